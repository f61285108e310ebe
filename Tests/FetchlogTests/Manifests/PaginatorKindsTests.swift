import FetchlogCore
import Foundation
import Testing

/// Issue 36, item 4: each of dlt's paginator kinds asks its first page, reads what a page
/// says and asks the next (or ends the list) in a type of its own — checked here kind by
/// kind, without a server, with dlt's meaning for every key.
@Suite struct PaginatorKindsTests {
    /// The kind a manifest's `paginator` value reads as.
    static func kind(_ paginator: String) throws -> any Paginator {
        try #require(ManifestTests.manifest(#"{"name":"r","endpoint":{"path":"r","paginator":\#(paginator)}}"#).resources.first).paginator.kind
    }

    /// A page answered to `request`, with `items` items, what its body says, and its headers by name.
    static func page(_ request: PageRequest = PageRequest(), items: Int = 1, _ signals: PageSignals = PageSignals(),
                     headers: [String: [String]] = [:]) -> AnsweredPage {
        AnsweredPage(request: request, itemCount: items, signals: signals, headers: { headers[$0] ?? [] })
    }

    /// A first page saying `signals`.
    static func page(_ signals: PageSignals, headers: [String: [String]] = [:]) -> AnsweredPage {
        page(PageRequest(), signals, headers: headers)
    }

    static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(bytes: Array(text.utf8)) }

    @Test func pageNumberStartsAtItsPageAndEndsAtTheTotal() throws {
        let kind = try Self.kind(#"{"type":"page_number","base_page":1,"total_path":"total_pages"}"#)
        let first = kind.first(skipping: 2)
        #expect(first.request == PageRequest(query: [("page", "3")], position: 3))
        #expect(first.uncounted == 0)
        let signals = try kind.signals(in: Self.json(#"{"total_pages":3,"data":[]}"#))
        #expect(signals == PageSignals(total: 3))
        #expect(kind.next(after: Self.page(PageRequest(query: [("page", "2")], position: 2), signals))
            == .request(PageRequest(query: [("page", "3")], position: 3)))
        // Page 4 would be past the total of 3 pages counted from base_page 1.
        #expect(kind.next(after: Self.page(PageRequest(query: [("page", "3")], position: 3), signals)) == .end(.total))
        #expect(kind.next(after: Self.page(PageRequest(query: [("page", "1")], position: 1), items: 0, signals)) == .end(.emptyPage))
        #expect(kind.pageBound == nil)
        #expect(!kind.writesBody)
    }

    @Test func offsetWritesItsBodyPathAndStopsAtItsMaximum() throws {
        let kind = try Self.kind(#"{"type":"offset","limit":5,"offset_body_path":"range.offset","total_path":null,"maximum_offset":10}"#)
        let first = kind.first(skipping: 0).request
        #expect(first == PageRequest(query: [("limit", "5")], body: [(["range", "offset"], .number("0"))], position: 0))
        #expect(kind.next(after: Self.page(first)) == .request(PageRequest(query: [("limit", "5")], body: [(["range", "offset"], .number("5"))], position: 5)))
        #expect(kind.next(after: Self.page(PageRequest(position: 5))) == .end(.maximum))
        #expect(kind.pageBound == 2)
        #expect(kind.writesBody)
    }

    @Test func aRangeWithoutAStopRuleOrAStepAsksOnePage() throws {
        // A limit of 0 never moves the offset: one page, whatever the maximum.
        let still = try Self.kind(#"{"type":"offset","limit":0,"maximum_offset":100}"#)
        #expect(still.next(after: Self.page(PageRequest(position: 0))) == .end(.noStep))
        #expect(still.pageBound == 1)
        // No total, maximum, has_more_path or empty-page stop: dlt refuses to go on.
        let endless = try Self.kind(#"{"type":"offset","limit":5,"total_path":null,"stop_after_empty_page":false}"#)
        #expect(endless.next(after: Self.page(PageRequest(position: 0))) == .end(.noStopRule))
        // `has_more_path` false ends the list (a string read as dlt's str2bool reads it).
        let told = try Self.kind(#"{"type":"page_number","total_path":null,"has_more_path":"more"}"#)
        let signals = try told.signals(in: Self.json(#"{"more":"no"}"#))
        #expect(signals == PageSignals(hasMore: false))
        #expect(told.next(after: Self.page(PageRequest(position: 0), signals)) == .end(.noMore))
    }

    @Test func aCursorGoesToItsParamOrItsBodyPathUnlessFalsy() throws {
        let inQuery = try Self.kind(#"{"type":"cursor"}"#)
        let signals = try inQuery.signals(in: Self.json(#"{"cursors":{"next":"abc"}}"#))
        #expect(signals == PageSignals(cursor: .string("abc")))
        #expect(inQuery.next(after: Self.page(signals)) == .request(PageRequest(query: [("cursor", "abc")])))
        // It knows the next page only from the one before: later pages are read to.
        #expect(inQuery.first(skipping: 3) == FirstPage(request: PageRequest(), uncounted: 3))
        let inBody = try Self.kind(#"{"type":"cursor","cursor_path":"next","cursor_body_path":"page.after","has_more_path":"more"}"#)
        let typed = try inBody.signals(in: Self.json(#"{"next":7,"more":true}"#))
        #expect(typed == PageSignals(cursor: .number("7"), hasMore: true))
        #expect(inBody.next(after: Self.page(typed)) == .request(PageRequest(body: [(["page", "after"], .number("7"))])))
        #expect(inBody.writesBody)
        // 0 is falsy to dlt: no cursor, no next page.
        let zero = try inBody.signals(in: Self.json(#"{"next":0,"more":true}"#))
        #expect(zero == PageSignals(hasMore: true))
        #expect(inBody.next(after: Self.page(zero)) == .end(.noNext))
    }

    @Test func aHeaderCursorIsKeptAndSentAsItsParam() throws {
        let kind = try Self.kind(#"{"type":"header_cursor","cursor_key":"X-Next"}"#)
        #expect(kind.keptResponseHeaders == ["x-next"])
        #expect(kind.next(after: Self.page(headers: ["X-Next": ["c2"]])) == .request(PageRequest(query: [("cursor", "c2")])))
        #expect(kind.next(after: Self.page(headers: ["X-Next": [""]])) == .end(.noNext))
        #expect(kind.next(after: Self.page()) == .end(.noNext))
    }

    @Test func linksComeFromTheirHeaderOrTheirBody() throws {
        let header = try Self.kind(#"{"type":"header_link","links_next_key":"more"}"#)
        let link = [#"<https://catalog.example/r?p=2>; rel="more", <https://catalog.example/r?p=9>; rel="last""#]
        #expect(header.next(after: Self.page(headers: ["Link": link])) == .link("https://catalog.example/r?p=2"))
        #expect(header.next(after: Self.page(headers: ["Link": [#"<https://catalog.example/r?p=2>; rel="next""#]])) == .end(.noNext))
        let body = try Self.kind(#"{"type":"json_link","next_url_path":"paging.next"}"#)
        #expect(try body.signals(in: Self.json(#"{"paging":{"next":"/r?p=2"}}"#)) == PageSignals(nextURL: "/r?p=2"))
        // An empty next URL is none.
        let empty = try body.signals(in: Self.json(#"{"paging":{"next":""}}"#))
        #expect(empty == PageSignals())
        #expect(body.next(after: Self.page(empty)) == .end(.noNext))
        // `auto`: a `Link` rel="next" first, else the body's `next`.
        let auto = try Self.kind(#""auto""#)
        let said = try auto.signals(in: Self.json(#"{"next":"/r?p=3"}"#))
        #expect(auto.next(after: Self.page(said, headers: ["Link": [#"</r?p=2>; rel="next""#]])) == .link("/r?p=2"))
        #expect(auto.next(after: Self.page(said)) == .link("/r?p=3"))
        #expect(auto.next(after: Self.page()) == .end(.noNext))
    }

    @Test func aSinglePageIsTheList() throws {
        let kind = try Self.kind(#""single_page""#)
        #expect(kind.first(skipping: 0) == FirstPage(request: PageRequest(), uncounted: 0))
        #expect(kind.next(after: Self.page(items: 5)) == .end(.singlePage))
        #expect(kind.keptResponseHeaders.isEmpty)
    }
}
