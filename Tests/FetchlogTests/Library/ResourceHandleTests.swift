import FetchlogCore
import Foundation
import Testing

/// The typed handles of a source defined by a manifest (issue 25, item 4): names checked
/// with "did you mean", a failed fetch that throws, items decoded into the caller's type,
/// observed typed.
@Suite struct ResourceHandleTests {
    /// The catalog's `pages` list as `items`, and `gone`, a path the upstream does not serve.
    static let manifest = """
        {"name": "catalog", "client": {"base_url": "https://catalog.example"}, "resource_defaults": {"primary_key": "id"},
         "resources": [{"name": "items", "endpoint": {"path": "pages", "data_selector": "data",
                        "paginator": {"type": "page_number", "base_page": 1, "total_path": "total_pages"}}},
                       {"name": "gone", "endpoint": {"path": "nowhere", "paginator": "single_page"}}]}
        """

    struct Sized: Decodable, Equatable, Sendable {
        let id: Int
        let size: Double
    }

    static let twelve = (1 ... 12).map { Sized(id: $0, size: Double($0 * 10)) }

    static func open(_ dir: TemporaryDirectory, _ upstream: CatalogUpstream) async throws -> Store {
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: upstream.base)
        configuration.fetching.retry.retries = 0
        return try await Store.open(at: URL(filePath: dir.path), configuration: configuration)
    }

    static func define(_ store: Store, _ text: String = manifest) async throws -> SourceHandle {
        try await store.define(try RestManifest(json: JSONValue.parse(text)))
    }

    @Test func aNameTheStoreDoesNotHoldIsRefusedWithTheNamesItHolds() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("handle-names")
        let store = try await Self.open(dir, upstream)
        #expect(throws: DefinedSourceError.self) { _ = try store.source("catalog") }
        let catalog = try await Self.define(store)
        do {
            _ = try catalog.resource("itemz")
            Issue.record("itemz was accepted")
        } catch {
            #expect("\(error)" == "catalog has no resource 'itemz' (did you mean 'items'?): its resources are items, gone")
        }
        do {
            _ = try store.source("catalgo")
            Issue.record("catalgo was accepted")
        } catch {
            #expect("\(error)" == "no source 'catalgo' is defined by a manifest in this store (did you mean 'catalog'?): defined: catalog")
        }
        // The source as a later session finds it: by name, no new event.
        let seq = store.snapshot.seq
        let items = try store.source("catalog").resource("items")
        #expect(items.viewName == "items/catalog/items")
        #expect(store.snapshot.seq == seq)
        // Nothing fetched yet: no items, and an export that says so.
        #expect(try items.items(as: Sized.self) == [])
        #expect(try items.export().canonicalText() == #"{"asOf":1,"count":0,"items":[],"resource":"items","source":"catalog","view":"items"}"#)
        await store.close()
        await upstream.stop()
    }

    @Test func aFetchThatBringsNothingUsableThrowsAndKeepsWhatWasHeld() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("handle-fetch-fails")
        let store = try await Self.open(dir, upstream)
        let catalog = try await Self.define(store)
        let items = try catalog.resource("items")
        let reports = try await items.fetch()
        #expect(reports.map(\.outcome) == [.fetched, .fetched, .fetched])
        #expect(try items.items(as: Sized.self) == Self.twelve)

        // A path the upstream answers 404: nothing usable, nothing held.
        let gone = try catalog.resource("gone")
        do {
            try await gone.fetch()
            Issue.record("a 404 passed for a fetch")
        } catch DefinedSourceError.fetchFailed(let source, let resource, let reports) {
            #expect(source == "catalog" && resource == "gone")
            #expect(reports.map(\.outcome.isHTTPFailure) == [true])
            #expect(DefinedSourceError.fetchFailed(source: source, resource: resource, reports: reports).description
                .hasSuffix(": nothing usable arrived; the items held before are kept; fetch again to complete it"))
        }
        #expect(try gone.items(as: Sized.self) == [])

        // The upstream gone (connection refused, as a DNS failure would be): the fetch
        // throws, and the twelve items held are still read.
        await upstream.stop()
        do {
            try await items.fetch()
            Issue.record("a fetch with no upstream passed")
        } catch DefinedSourceError.fetchFailed(_, _, let reports) {
            #expect(reports.count == 1)
            #expect(reports.allSatisfy { !$0.isUsable && $0.recorded == .durable })
        }
        #expect(try items.items(as: Sized.self) == Self.twelve)
        await store.close()
    }

    /// `/ended` answers 404 past page 3. Read as dlt's `response_actions` say (ignore the
    /// 404), the list ends there and the fetch succeeds; without them the 404 is a failure
    /// part-way, and the fetch throws, keeping the three pages that arrived.
    @Test func aListThatFailsPartWayThrowsAndKeepsThePagesThatArrived() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("handle-fetch-part-way")
        let store = try await Self.open(dir, upstream)
        // Each its own pages (a param tells them apart): a page is held for one resource.
        func endpoint(_ tag: String, _ extra: String = "") -> String {
            #"{"path": "ended", "params": {"r": "\#(tag)"}, "data_selector": "data", "#
                + #""paginator": {"type": "page_number", "base_page": 1, "total_path": null, "stop_after_empty_page": false, "maximum_page": 10}\#(extra)}"#
        }
        let source = try await Self.define(store, #"{"name": "catalog", "client": {"base_url": "https://catalog.example"}, "#
            + #""resource_defaults": {"primary_key": "id"}, "resources": ["#
            + #"{"name": "ignored", "endpoint": \#(endpoint("i", #", "response_actions": [{"status_code": 404, "action": "ignore"}]"#))}, "#
            + #"{"name": "ended", "endpoint": \#(endpoint("e"))}]}"#)
        let ignored = try source.resource("ignored")
        let reports = try await ignored.fetch()
        #expect(reports.count == 4 && reports.allSatisfy(\.isUsable))
        #expect(try ignored.items(as: Sized.self) == Self.twelve)

        let ended = try source.resource("ended")
        do {
            try await ended.fetch()
            Issue.record("a list that failed part-way passed for a fetch")
        } catch DefinedSourceError.fetchFailed(_, let resource, let reports) {
            #expect(resource == "ended")
            #expect(reports.map(\.isUsable) == [true, true, true, false])
            let description = DefinedSourceError.fetchFailed(source: "catalog", resource: resource, reports: reports).description
            #expect(description.hasPrefix("fetching catalog/ended failed (") && description.contains("page=4") && description.contains(": http-status: "), "\(description)")
            #expect(description.hasSuffix("): 3 of 4 pages arrived and are kept, with the items held before; fetch again to complete it"), "\(description)")
        }
        #expect(try ended.items(as: Sized.self) == Self.twelve)
        await store.close()
        await upstream.stop()
    }

    @Test func typedObservationYieldsTheItemsOnlyWhenTheyChange() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("handle-observe")
        let store = try await Self.open(dir, upstream)
        let items = try await Self.define(store).resource("items")
        var changes = items.observe(as: Sized.self).makeAsyncIterator()
        #expect(try await changes.next() == [])

        // The three pages arrive one by one: each value seen is the items after some page
        // (a value may be skipped, never the last), no value twice in a row.
        try await items.fetch()
        let afterPage = [Array(Self.twelve[0 ..< 5]), Array(Self.twelve[0 ..< 10]), Self.twelve]
        var seen: [[Sized]] = []
        while seen.last != Self.twelve, let value = try await changes.next() {
            #expect(afterPage.contains(value), "\(value)")
            #expect(value != seen.last)
            seen.append(value)
        }
        #expect(seen.last == Self.twelve)

        // A redefinition without the resource ends the observation with the reason.
        _ = try await Self.define(store, Self.manifest.replacingOccurrences(of: #"{"name": "items", "#, with: #"{"name": "things", "#))
        do {
            while try await changes.next() != nil {}
            Issue.record("the observation went on after the resource was gone")
        } catch {
            #expect("\(error)" == "catalog has no resource 'items': its resources are things, gone")
        }
        await store.close()
        await upstream.stop()
    }
}

extension FetchReport.Outcome {
    var isHTTPFailure: Bool { if case .failed(.httpStatus, _) = self { true } else { false } }
}
