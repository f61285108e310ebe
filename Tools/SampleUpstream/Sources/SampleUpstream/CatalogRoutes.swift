import Foundation

/// catalog: a generic REST API with every paginator style dlt's `rest_api` knows, for
/// manifests (`Examples/catalog.json`), their tests and the comparison with dlt. Twelve
/// items in pages of five; item 5 is repeated at the top of page 2 (a page boundary), so a
/// reader must deduplicate by primary key.
///
/// Next-page URLs are absolute, on the host the request named (as real APIs write them),
/// so a client pointed at this server follows them here.
public enum CatalogRoutes {
    /// One item: `{"id":N,"name":"item N","size":N*10}`.
    public static func item(_ id: Int) -> String { #"{"id":\#(id),"name":"item \#(id)","size":\#(id * 10)}"# }

    /// Page `n` (from 1): 1–5, 5–10 (item 5 again), 11–12; empty past the end.
    public static func ids(page n: Int) -> [Int] {
        switch n {
        case 1: Array(1 ... 5)
        case 2: Array(5 ... 10)
        case 3: [11, 12]
        default: []
        }
    }

    /// The reviews of item `id`: `id % 3` of them (items 3, 6, 9 and 12 have none).
    public static func reviews(of id: Int) -> String {
        let list = (0 ..< id % 3).map { k in #"{"id":"\#(id)-\#(k + 1)","stars":\#((id + k) % 5 + 1),"text":"review \#(k + 1) of item \#(id)"}"# }
        return #"{"data":[\#(list.joined(separator: ","))]}"#
    }

    /// When item `id` of `/changes` last changed.
    public static func changedAt(_ id: Int) -> String { "2026-01-" + (id < 10 ? "0" : "") + "\(id)T00:00:00Z" }

    static func list(_ ids: [Int]) -> String { "[" + ids.map(item).joined(separator: ",") + "]" }

    /// Words for the bulk catalog's names, so text search has something to find.
    static let colours = ["amber", "blue", "crimson", "dune", "emerald", "fern", "gold", "hazel", "indigo", "jade"]
    static let animals = ["ant", "bear", "crow", "deer", "eel", "fox", "gnu", "hare", "ibis", "jay", "koala"]

    /// Item `id` of the bulk catalog: a name of two words and the id, a size, a colour, tags.
    public static func bulkItem(_ id: Int) -> String {
        let colour = colours[id % colours.count], animal = animals[(id / 7) % animals.count]
        return #"{"id":\#(id),"name":"\#(colour) \#(animal) \#(id)","size":\#(id % 997),"colour":"\#(colour)","tags":["\#(animal)","t\#(id % 13)"]}"#
    }

    /// `/bulkchanges`: when item `id` last changed, in seconds after 2026-01-01T00:00:00Z.
    /// Generation 0: item N at N seconds (every timestamp distinct, so an inclusive
    /// `updated_since` of the latest one lists that one item). Generation 1: every hundredth
    /// item (`id % 100 == 0`, 1 % of them, the last one among them when N is a multiple of
    /// 100) changed again, 10,000,000 s later (late April), after every generation-0 time.
    public static func bulkChangedAt(_ id: Int, generation: Int) -> Int {
        generation >= 1 && id % 100 == 0 ? 10_000_000 + id : id
    }

    /// Items of `/bulkchanges` a page.
    public static let bulkChangesPageSize = 1000

    /// `seconds` after 2026-01-01T00:00:00Z as ISO 8601 (`2026-MM-DDTHH:MM:SSZ`), written
    /// by hand: a page holds a thousand of them. Within 2026 (not a leap year).
    public static func timestamp2026(_ seconds: Int) -> String {
        let days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var day = seconds / 86_400, month = 0
        while month < 11, day >= days[month] { day -= days[month]; month += 1 }
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let rest = seconds % 86_400
        return "2026-\(two(month + 1))-\(two(day + 1))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }

    /// An `updated_since` value as seconds after 2026-01-01T00:00:00Z, rounded up (the
    /// bound is inclusive and timestamps are whole seconds); nil when it is not ISO 8601.
    static func secondsAfter2026(_ text: String) -> Int? {
        let formatter = ISO8601DateFormatter()
        if text.contains(".") { formatter.formatOptions.insert(.withFractionalSeconds) }
        guard let date = formatter.date(from: text) else { return nil }
        return Int((date.timeIntervalSince1970 - 1_767_225_600).rounded(.up))
    }

    /// The ids `/bulkchanges` lists since `since` (inclusive), oldest change first.
    static func bulkChanges(count n: Int, since: Int, generation: Int) -> [Int] {
        guard n >= 1 else { return [] }
        let unchanged = (max(1, since) ... max(1, since, n)).filter { $0 <= n && bulkChangedAt($0, generation: generation) == $0 }
        let changed = generation >= 1 ? stride(from: 100, through: n, by: 100).filter { bulkChangedAt($0, generation: generation) >= since } : []
        return unchanged + changed
    }

    /// The ids whose name (`item N`) holds `text`, in id order.
    public static func matching(_ text: String) -> [Int] { (1 ... 12).filter { "item \($0)".contains(text) } }

    /// Page `cursor` (`s1`, `s2`, … ; none: `s1`) of a search's matches, five to a page.
    public static func searchPage(_ matches: [Int], cursor: String?) -> (ids: [Int], last: Bool) {
        let n = cursor.flatMap { Int($0.dropFirst()) } ?? 1
        let ids = Array(matches.dropFirst((n - 1) * 5).prefix(5))
        return (ids, n * 5 >= matches.count)
    }

    /// The integer at `path` in a JSON object body, nil when there is none.
    static func bodyInt(_ body: Data, _ path: [String]) -> Int? {
        var value: Any? = try? JSONSerialization.jsonObject(with: body)
        for key in path { value = (value as? [String: Any])?[key] }
        return (value as? NSNumber)?.intValue
    }

    static func respond(path: String, query: [String: String], host: String?, headers: [String: String], fullPath: String,
                        method: String = "GET", body: Data = Data(), generation: Int = 0) -> RouteResult {
        let page = Int(query["page"] ?? "") ?? 1
        let origin = "http://\(host ?? "127.0.0.1")/catalog"
        func ok(_ body: String, link: String? = nil) -> RouteResult { .ok(Data(body.utf8), link: link) }
        func refuse(_ status: Int, _ message: String) -> RouteResult { .error(status, JSONBody.encode(["error": message, "path": fullPath])) }
        if method == "POST", !["/search", "/form-search", "/body-pages", "/body-offsets"].contains(path) { return refuse(405, "only GET here") }
        if let linked = LinkRoutes.respond(path: path, page: page, host: host ?? "127.0.0.1") { return linked }
        if let guarded = CatalogAuthRoutes.respond(path: path, headers: headers) { return guarded }
        switch path {
        case "/search":
            // POST only, a JSON object body: `query` (text in the names) and, after the first
            // page, `page.after` (the cursor). The next cursor is always given; `has_more`
            // says false on the last page, so a client that reads only the cursor asks once more.
            guard method == "POST" else { return refuse(405, "POST a JSON body: {\"query\": TEXT, \"page\": {\"after\": CURSOR}}") }
            if let type = headers["content-type"], !type.hasPrefix("application/json") { return refuse(415, "send JSON, not \(type)") }
            guard let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let text = json["query"] as? String else {
                return refuse(400, "the body must be a JSON object with a string query")
            }
            let cursor = (json["page"] as? [String: Any])?["after"] as? String
            let n = cursor.flatMap { Int($0.dropFirst()) } ?? 1
            let (ids, last) = searchPage(matching(text), cursor: cursor)
            return ok(#"{"hits":\#(list(ids)),"next":{"cursor":"s\#(n + 1)"},"has_more":\#(!last)}"#)
        case "/form-search":
            // POST only, a form body: `q` (text in the names); one page.
            guard method == "POST" else { return refuse(405, "POST a form: q=TEXT") }
            guard headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true else {
                return refuse(415, "send a form (application/x-www-form-urlencoded)")
            }
            guard let text = parseQuery(String(decoding: body, as: UTF8.self))["q"] else { return refuse(400, "the form has no q") }
            return ok(#"{"hits":\#(list(matching(text)))}"#)
        case "/header-cursor":
            // The next cursor in the `X-Next-Cursor` header (none on the last page), asked
            // back as `cursor`: pages 1–3 as `ids(page:)`.
            let n = Int(query["cursor"]?.dropFirst() ?? "") ?? 1
            return .ok(Data(list(ids(page: n)).utf8), headers: n < 3 ? [("X-Next-Cursor", "h\(n + 1)")] : [])
        case "/related":
            // Links by another relation than `next` (`links_next_key`): `following`; its
            // `next` names page 1 again, which a client reading `next` would loop on.
            let link = page < 3 ? #"<\#(origin)/related?page=\#(page + 1)>; rel="following", <\#(origin)/related?page=1>; rel="next""# : nil
            return ok(list(ids(page: page)), link: link)
        case "/body-pages":
            // Pages 1–3 as `ids(page:)`, the page number in the query (`page`) or, in a POST,
            // in the JSON body at `paging.page`; `has_more` says whether another follows.
            let n = method == "POST" ? Self.bodyInt(body, ["paging", "page"]) ?? 1 : page
            return ok(#"{"data":\#(list(ids(page: n))),"has_more":\#(n < 3)}"#)
        case "/body-offsets":
            // Items 1–12 from `offset`, `limit` at a time, in the query or, in a POST, in the
            // JSON body at `range.offset` and `range.limit` (the limit may stay in the query);
            // `more` a string ("true"/"false").
            let offset = method == "POST" ? Self.bodyInt(body, ["range", "offset"]) ?? 0 : Int(query["offset"] ?? "") ?? 0
            let limit = (method == "POST" ? Self.bodyInt(body, ["range", "limit"]) : nil) ?? Int(query["limit"] ?? "") ?? 5
            return ok(#"{"items":\#(list(Array((1 ... 12).dropFirst(offset).prefix(limit)))),"more":"\#(offset + limit < 12)"}"#)
        case "/gappy":
            // Three pages, the second one empty: `stop_after_empty_page` decides whether the third is read.
            let ids: [Int] = switch page { case 1: Array(1 ... 5); case 3: Array(6 ... 8); default: [] }
            return ok(#"{"data":\#(list(ids)),"total_pages":3}"#)
        case "/entity":
            // One object that holds a list of objects: `$` takes the object, a guess the list.
            return ok(#"{"id":7,"name":"item 7","parts":[{"id":71},{"id":72}]}"#)
        case "/bare":
            // A document that is one number.
            return ok("42")
        case "/pages":
            return ok(#"{"data":\#(list(ids(page: page))),"total_pages":3}"#)
        case "/ended":
            guard page <= 3 else { return .error(404, Data(#"{"error":"no such page"}"#.utf8)) }
            return ok(#"{"data":\#(list(ids(page: page)))}"#)
        case "/offset":
            let offset = Int(query["offset"] ?? "") ?? 0, limit = Int(query["limit"] ?? "") ?? 5
            return ok(#"{"items":\#(list(Array((1 ... 12).dropFirst(offset).prefix(limit)))),"total":12}"#)
        case "/linked":
            let next = page < 3 ? #""\#(origin)/linked?page=\#(page + 1)""# : "null"
            return ok(#"{"results":\#(list(ids(page: page))),"paging":{"next":\#(next)}}"#)
        case "/headers":
            let link = page < 3 ? #"<\#(origin)/headers?page=\#(page + 1)>; rel="next", <\#(origin)/headers?page=3>; rel="last""# : nil
            return ok(list(ids(page: page)), link: link)
        case "/cursor":
            let cursor = query["cursor"] ?? ""
            let n = cursor.isEmpty ? 1 : Int(cursor.dropFirst()) ?? 1
            let next = n < 3 ? #""c\#(n + 1)""# : "null"
            return ok(#"{"data":\#(list(ids(page: n))),"cursors":{"next":\#(next)}}"#)
        case "/single":
            return ok(list([1, 2, 3]))
        case "/private":
            // Answers only with both credentials: a token header and a key parameter.
            guard headers["x-token"] == "t0ken-s3cret", query["key"] == "k3y-s3cret" else {
                return .error(401, Data(#"{"error":"who are you?"}"#.utf8))
            }
            return ok(list([1, 2]))
        case "/no-store":
            // Items a client must not keep (RFC 9111 §5.2.2.5): `Cache-Control: no-store`.
            return .ok(Data(list([1, 2]).utf8), headers: [("Cache-Control", "no-store")])
        case "/localized":
            // Names in the language `Accept-Language` asks for (French for `fr…`, else English),
            // `Vary: Accept-Language`: each language's body has its own ETag, so a client that
            // sends the English one with a French request gets a 200, not a 304.
            let french = headers["accept-language"]?.lowercased().hasPrefix("fr") == true
            let names = french ? ["un", "deux"] : ["one", "two"]
            let body = "[" + names.enumerated().map { #"{"id":\#($0.offset + 1),"name":"\#($0.element)"}"# }.joined(separator: ",") + "]"
            return .ok(Data(body.utf8), headers: [("Vary", "Accept-Language")])
        case "/versions":
            // Two readings of one body: `data`, or `detailed` (2 renamed and sized, 3 gone, 4 new).
            return ok(#"{"data":[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}],"#
                + #""detailed":[{"id":1,"name":"a"},{"id":2,"name":"B","size":2},{"id":4,"name":"d"}]}"#)
        case "/bulk":
            // `pages` pages (default 40) of `size` items (default 250), ids from 1.
            let size = min(max(Int(query["size"] ?? "") ?? 250, 1), 5000), pages = min(max(Int(query["pages"] ?? "") ?? 40, 1), 10_000)
            guard page >= 1, page <= pages else { return ok(#"{"data":[],"total_pages":\#(pages)}"#) }
            let first = (page - 1) * size + 1
            return ok(#"{"data":[\#((first ..< first + size).map(bulkItem).joined(separator: ","))],"total_pages":\#(pages)}"#)
        // Lists that misbehave, for the paging bounds (issue 28).
        case "/endless":
            // A cursor that never ends: every page names the next.
            let cursor = Int(query["cursor"]?.dropFirst() ?? "") ?? 1
            return ok(#"{"data":[\#(item(cursor))],"next":"c\#(cursor + 1)"}"#)
        case "/boundless":
            // Claims a billion pages, each with one item.
            return ok(#"{"data":[\#(item(page))],"total_pages":1000000000}"#)
        case "/same":
            // Ignores its page parameter: every page is page 1.
            return ok(#"{"data":\#(list([1, 2])),"total_pages":1000000000}"#)
        case "/elsewhere":
            // Its next link names another host.
            return ok(#"{"data":\#(list([page])),"next":"https://elsewhere.example/catalog/elsewhere?page=\#(page + 1)"}"#)
        case "/changes":
            // Incremental: item N changed on 2026-01-N; `updated_since` (inclusive) lists those
            // changed since, oldest first, five a page, with the page count.
            let since = query["updated_since"] ?? headers["x-updated-since"] ?? ""
            let changed = (1 ... 12).filter { changedAt($0) >= since }
            let pages = max(1, (changed.count + 4) / 5)
            let slice = changed.dropFirst((page - 1) * 5).prefix(5)
            let items = slice.map { #"{"id":\#($0),"name":"item \#($0)","updated_at":"\#(changedAt($0))"}"# }
            return ok(#"{"data":[\#(items.joined(separator: ","))],"total_pages":\#(pages)}"#)
        case "/by-header":
            // An item's reviews, the item named by a header only (dlt's header placeholders).
            guard let id = Int(headers["x-item-id"] ?? ""), (1 ... 12).contains(id) else {
                return .error(400, Data(#"{"error":"say which item in X-Item-Id"}"#.utf8))
            }
            return ok(reviews(of: id))
        case "/bulkchanges":
            // Incremental at scale (the manifest benchmark): `n` bulk items (default 100,000)
            // with `updated_at`, listed since `updated_since` (inclusive), oldest change first,
            // in pages of 1,000 with the page count. `SampleUpstream.setCatalogGeneration(1)`
            // changes 1 % of them (`bulkChangedAt`), so the same request lists them again.
            let n = min(max(Int(query["n"] ?? "") ?? 100_000, 0), 10_000_000)
            var since = Int.min
            if let text = query["updated_since"] {
                guard let seconds = secondsAfter2026(text) else {
                    return refuse(400, "updated_since \"\(text)\" is not an ISO 8601 time: send one like 2026-01-01T00:00:00Z")
                }
                since = seconds
            }
            let matches = bulkChanges(count: n, since: since, generation: generation)
            let size = bulkChangesPageSize, pages = max(1, (matches.count + size - 1) / size)
            let slice = page >= 1 ? matches.dropFirst((page - 1) * size).prefix(size) : []
            let items = slice.map { id in
                String(bulkItem(id).dropLast()) + #","updated_at":"\#(timestamp2026(bulkChangedAt(id, generation: generation)))"}"#
            }
            return ok(#"{"data":[\#(items.joined(separator: ","))],"total_pages":\#(pages)}"#)
        case "/quiet":
            // Page 1 has items; later pages say so in words, with a 200 (for `response_actions`
            // with `content`).
            guard page > 1 else { return ok(#"{"data":\#(list([1, 2])),"total_pages":9}"#) }
            return ok("no data for this page")
        case "/keyless":
            // Two objects without an id, two values that are not objects, a repeated name.
            return ok(#"[{"id":1,"name":"one"},{"name":"no id"},{"id":null,"name":"null id"},"text",7,{"id":3,"name":"first","name":"last"}]"#)
        default:
            // A child resource: /items/{id}/reviews for the twelve items.
            let parts = path.split(separator: "/")
            if parts.count == 3, parts[0] == "items", parts[2] == "reviews", let id = Int(parts[1]), (1 ... 12).contains(id) {
                return ok(reviews(of: id))
            }
            return .notFoundRoute(fullPath)
        }
    }
}
