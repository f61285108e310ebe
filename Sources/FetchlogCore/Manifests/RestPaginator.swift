/// How the pages of a resource follow one another — dlt's paginators, with dlt's
/// parameters and defaults.
package enum RestPaginator: Sendable, Equatable {
    case singlePage
    /// dlt's default when none is given: follow a `Link: <…>; rel="next"` header or a
    /// `next` URL in the body, else a single page.
    case auto
    /// dlt's `PageNumberPaginator`: the page number goes to `page_param` or `page_body_path`.
    case pageNumber(RangePaging)
    /// dlt's `OffsetPaginator`: the offset and the limit go to `offset_param`/`offset_body_path`
    /// and `limit_param`/`limit_body_path`.
    case offset(RangePaging)
    case jsonLink(nextURLPath: JSONPath)
    /// `links_next_key`: the `Link` relation naming the next page (`next` by default).
    case headerLink(linksNextKey: String)
    /// dlt's `JSONResponseCursorPaginator`: the cursor at `cursorPath` goes to `target` (a
    /// query parameter, or a place in the JSON body: `cursor_body_path`); `has_more_path`
    /// (a boolean in the body) and `stop_after_empty_page` (off by default) end the list too.
    case cursor(cursorPath: JSONPath, target: CursorTarget, hasMorePath: JSONPath?, stopAfterEmptyPage: Bool)
    /// dlt's `HeaderCursorPaginator`: the next cursor is the response header `cursor_key`
    /// (`next`), sent as the query parameter `cursor_param` (`cursor`).
    case headerCursor(cursorKey: String, cursorParam: String)

    /// Where a cursor goes in the next request.
    package enum CursorTarget: Sendable, Equatable {
        /// A query parameter (`cursor_param`).
        case param(String)
        /// A member of the JSON body (`cursor_body_path`, dot-separated, as dlt sets it:
        /// objects made on the way).
        case body([String])
    }

    static let types = ["single_page", "page_number", "offset", "json_link", "header_link", "cursor", "header_cursor", "auto"]

    init(_ reader: ManifestReader, path: String) throws(ManifestError) {
        var json = reader.json
        if case .string(let type) = json { json = .object([("type", .string(type))]) }
        let reader = try ManifestReader(json, path: path)
        guard case .object = json else { throw ManifestError(path: path, message: "expected an object or a paginator type") }
        let type = try reader.string("type")
        /// A path member as dlt reads it (JSONPath), its errors naming the key.
        func jsonPath(_ key: String, _ text: String?) throws(ManifestError) -> JSONPath? {
            guard let text else { return nil }
            do { return try JSONPath(text) } catch { throw ManifestError(path: path + "." + key, message: error.description) }
        }
        switch type {
        case "single_page":
            try reader.allow(["type"])
            self = .singlePage
        case "auto":
            try reader.allow(["type"])
            self = .auto
        case "page_number":
            try reader.allow(["type", "base_page", "page", "page_param", "page_body_path", "total_path", "maximum_page",
                              "stop_after_empty_page", "has_more_path"])
            let base = try reader.optionalInt("base_page") ?? 0
            self = .pageNumber(RangePaging(
                first: try reader.optionalInt("page") ?? base, base: base, step: 1,
                target: try Self.target(reader, path: path, param: "page_param", bodyPath: "page_body_path", defaultParam: "page"),
                limit: nil, totalPath: try jsonPath("total_path", Self.totalPath(reader)), maximum: try reader.optionalInt("maximum_page"),
                stopAfterEmptyPage: try reader.optionalBool("stop_after_empty_page") ?? true,
                hasMorePath: try jsonPath("has_more_path", try reader.optionalString("has_more_path"))))
        case "offset":
            try reader.allow(["type", "limit", "offset", "offset_param", "offset_body_path", "limit_param", "limit_body_path", "total_path",
                              "maximum_offset", "stop_after_empty_page", "has_more_path"])
            let limit = try reader.int("limit")
            // `limit: 0` is dlt's too (a config generated from an API's defaults): one page,
            // since an offset that never moves would ask the same page again.
            guard limit >= 0 else { throw ManifestError(path: path + ".limit", message: "must be 0 or more") }
            self = .offset(RangePaging(
                first: try reader.optionalInt("offset") ?? 0, base: 0, step: limit,
                target: try Self.target(reader, path: path, param: "offset_param", bodyPath: "offset_body_path", defaultParam: "offset"),
                limit: try Self.target(reader, path: path, param: "limit_param", bodyPath: "limit_body_path", defaultParam: "limit"),
                totalPath: try jsonPath("total_path", Self.totalPath(reader)), maximum: try reader.optionalInt("maximum_offset"),
                stopAfterEmptyPage: try reader.optionalBool("stop_after_empty_page") ?? true,
                hasMorePath: try jsonPath("has_more_path", try reader.optionalString("has_more_path"))))
        case "json_link", "json_response": // json_response: dlt's deprecated name for json_link
            try reader.allow(["type", "next_url_path"])
            self = .jsonLink(nextURLPath: try jsonPath("next_url_path", try reader.optionalString("next_url_path") ?? "next")!)
        case "header_link":
            try reader.allow(["type", "links_next_key"])
            let key = try reader.optionalString("links_next_key") ?? "next"
            guard !key.isEmpty else { throw ManifestError(path: path + ".links_next_key", message: "must name a link relation (next)") }
            self = .headerLink(linksNextKey: key)
        case "cursor":
            try reader.allow(["type", "cursor_path", "cursor_param", "cursor_body_path", "has_more_path", "stop_after_empty_page"])
            let param = try reader.optionalString("cursor_param")
            let target: CursorTarget
            if let bodyPath = try reader.optionalString("cursor_body_path") {
                // dlt refuses both at once: the cursor goes to one place.
                guard param == nil else {
                    throw ManifestError(path: path + ".cursor_body_path", message: "give cursor_param or cursor_body_path, not both (as dlt says)")
                }
                target = .body(try Self.bodyPath(bodyPath, path: path + ".cursor_body_path"))
            } else {
                target = .param(param ?? "cursor")
            }
            self = .cursor(cursorPath: try jsonPath("cursor_path", try reader.optionalString("cursor_path") ?? "cursors.next")!, target: target,
                           hasMorePath: try jsonPath("has_more_path", try reader.optionalString("has_more_path")),
                           stopAfterEmptyPage: try reader.optionalBool("stop_after_empty_page") ?? false)
        case "header_cursor":
            try reader.allow(["type", "cursor_key", "cursor_param"])
            let key = try reader.optionalString("cursor_key") ?? "next"
            guard !key.isEmpty else { throw ManifestError(path: path + ".cursor_key", message: "must name a response header") }
            self = .headerCursor(cursorKey: key, cursorParam: try reader.optionalString("cursor_param") ?? "cursor")
        default:
            throw ManifestError(path: path + ".type", message: "\"\(type)\" is not one of \(Self.types.joined(separator: ", "))")
        }
    }
}

extension RestPaginator {
    /// `total_path`, `total` when not given, none when null (dlt's default and its way off).
    private static func totalPath(_ reader: ManifestReader) -> String? {
        reader.json["total_path"].map { $0.isNull ? nil : $0.stringValue } ?? "total"
    }

    /// A dot-separated body path (`page.number`) as member names.
    private static func bodyPath(_ text: String, path: String) throws(ManifestError) -> [String] {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else {
            throw ManifestError(path: path, message: "\"\(text)\" is not a dot-separated path of member names (page.number)")
        }
        return parts
    }

    /// Where a page number, offset or limit goes: the query parameter `param`, or the place
    /// `bodyPath` in the JSON body; `defaultParam` when neither is given, and never both
    /// (as dlt's constructors say).
    private static func target(_ reader: ManifestReader, path: String, param: String, bodyPath: String,
                               defaultParam: String) throws(ManifestError) -> CursorTarget {
        let name = try reader.optionalString(param), body = try reader.optionalString(bodyPath)
        switch (name, body) {
        case (nil, nil): return .param(defaultParam)
        case (let name?, nil):
            guard !name.isEmpty else { throw ManifestError(path: path + "." + param, message: "must name a query parameter") }
            return .param(name)
        case (nil, let body?): return .body(try Self.bodyPath(body, path: path + "." + bodyPath))
        case (_?, _?): throw ManifestError(path: path + "." + bodyPath, message: "give \(param) or \(bodyPath), not both (as dlt says)")
        }
    }

    /// True when the paginator writes into the request's JSON body, so a list's pages have
    /// bodies of their own.
    var writesBody: Bool {
        switch self {
        case .cursor(_, .body, _, _): true
        case .pageNumber(let range), .offset(let range): range.writesBody
        default: false
        }
    }

    /// How many pages the paginator's own `maximum_page` / `maximum_offset` allows from its
    /// first page, when it sets one.
    var pageBound: Int? {
        switch self {
        case .pageNumber(let range), .offset(let range):
            // A step of 0 (offset `limit: 0`) asks one page whatever the maximum.
            range.step > 0 ? range.maximum.map { max(0, ($0 - range.first + range.step - 1) / range.step) } : 1
        default: nil
        }
    }
}

/// dlt's `RangePaginator`, which `page_number` and `offset` are: a number that starts at
/// `first` and grows by `step` a page, sent as a query parameter or written into the JSON
/// body; the list ends at an empty page (`stop_after_empty_page`, on by default), at
/// `total_path`'s total, at `maximum`, or when `has_more_path` says false.
package struct RangePaging: Sendable, Equatable {
    /// The first request's page (`page`, else `base_page`) or `offset`.
    package var first: Int
    /// dlt's base index: `base_page` (a total of pages counts from it); 0 for offsets.
    package var base: Int
    /// 1 for pages, `limit` for offsets.
    package var step: Int
    /// Where the page or offset goes.
    package var target: RestPaginator.CursorTarget
    /// Where the limit (`step`) goes, for `offset`; nil for `page_number`.
    package var limit: RestPaginator.CursorTarget?
    package var totalPath: JSONPath?
    /// `maximum_page` / `maximum_offset`.
    package var maximum: Int?
    package var stopAfterEmptyPage: Bool
    package var hasMorePath: JSONPath?

    /// The query parameters and JSON body members of the request at `value`, in dlt's order
    /// (the page or offset, then the limit).
    func request(at value: Int) -> (query: [(String, String)], body: [([String], JSONValue)]) {
        var query: [(String, String)] = [], body: [([String], JSONValue)] = []
        for (target, number) in [(target, value)] + (limit.map { [($0, step)] } ?? []) {
            switch target {
            case .param(let name): query.append((name, String(number)))
            case .body(let path): body.append((path, .number(String(number))))
            }
        }
        return (query, body)
    }

    var writesBody: Bool {
        if case .body = target { return true }
        if case .body? = limit { return true }
        return false
    }
}
