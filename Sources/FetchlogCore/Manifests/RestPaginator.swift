/// How the pages of a resource follow one another — dlt's paginators, with dlt's
/// parameters and defaults.
package enum RestPaginator: Sendable, Equatable {
    case singlePage
    /// dlt's default when none is given: follow a `Link: <…>; rel="next"` header or a
    /// `next` URL in the body, else a single page.
    case auto
    case pageNumber(basePage: Int, page: Int?, pageParam: String, totalPath: JSONPath?, maximumPage: Int?, stopAfterEmptyPage: Bool)
    case offset(limit: Int, offset: Int, offsetParam: String, limitParam: String, totalPath: JSONPath?, maximumOffset: Int?, stopAfterEmptyPage: Bool)
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
            try reader.allow(["type", "base_page", "page", "page_param", "total_path", "maximum_page", "stop_after_empty_page"],
                             unsupported: ["page_body_path", "has_more_path"])
            let totalPath = reader.json["total_path"].map { $0.isNull ? nil : $0.stringValue } ?? "total"
            self = .pageNumber(basePage: try reader.optionalInt("base_page") ?? 0, page: try reader.optionalInt("page"),
                               pageParam: try reader.optionalString("page_param") ?? "page", totalPath: try jsonPath("total_path", totalPath),
                               maximumPage: try reader.optionalInt("maximum_page"),
                               stopAfterEmptyPage: try reader.optionalBool("stop_after_empty_page") ?? true)
        case "offset":
            try reader.allow(["type", "limit", "offset", "offset_param", "limit_param", "total_path", "maximum_offset", "stop_after_empty_page"],
                             unsupported: ["offset_body_path", "limit_body_path", "has_more_path"])
            let totalPath = reader.json["total_path"].map { $0.isNull ? nil : $0.stringValue } ?? "total"
            let limit = try reader.int("limit")
            // `limit: 0` is dlt's too (a config generated from an API's defaults): one page,
            // since an offset that never moves would ask the same page again.
            guard limit >= 0 else { throw ManifestError(path: path + ".limit", message: "must be 0 or more") }
            self = .offset(limit: limit, offset: try reader.optionalInt("offset") ?? 0,
                           offsetParam: try reader.optionalString("offset_param") ?? "offset",
                           limitParam: try reader.optionalString("limit_param") ?? "limit", totalPath: try jsonPath("total_path", totalPath),
                           maximumOffset: try reader.optionalInt("maximum_offset"),
                           stopAfterEmptyPage: try reader.optionalBool("stop_after_empty_page") ?? true)
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
                let parts = bodyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard !parts.contains(where: \.isEmpty) else {
                    throw ManifestError(path: path + ".cursor_body_path", message: "\"\(bodyPath)\" is not a dot-separated path of member names (page.cursor)")
                }
                target = .body(parts)
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
    /// How many pages the paginator's own `maximum_page` / `maximum_offset` allows from its
    /// first page, when it sets one.
    var pageBound: Int? {
        switch self {
        case .pageNumber(let base, let page, _, _, let maximum?, _): max(0, maximum - (page ?? base))
        case .offset(let limit, let offset, _, _, _, let maximum?, _): limit > 0 ? max(0, (maximum - offset + limit - 1) / limit) : nil
        default: nil
        }
    }
}
