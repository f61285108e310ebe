/// How the pages of a resource follow one another — dlt's paginators, with dlt's
/// parameters and defaults.
public enum RestPaginator: Sendable, Equatable {
    case singlePage
    /// dlt's default when none is given: follow a `Link: <…>; rel="next"` header or a
    /// `next` URL in the body, else a single page.
    case auto
    case pageNumber(basePage: Int, page: Int?, pageParam: String, totalPath: JSONPath?, maximumPage: Int?, stopAfterEmptyPage: Bool)
    case offset(limit: Int, offset: Int, offsetParam: String, limitParam: String, totalPath: JSONPath?, maximumOffset: Int?, stopAfterEmptyPage: Bool)
    case jsonLink(nextURLPath: JSONPath)
    case headerLink
    case cursor(cursorPath: JSONPath, cursorParam: String)

    static let types = ["single_page", "page_number", "offset", "json_link", "header_link", "cursor", "auto"]

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
            try reader.allow(["type", "base_page", "page", "page_param", "total_path", "maximum_page", "stop_after_empty_page"])
            let totalPath = reader.json["total_path"].map { $0.isNull ? nil : $0.stringValue } ?? "total"
            self = .pageNumber(basePage: try reader.optionalInt("base_page") ?? 0, page: try reader.optionalInt("page"),
                               pageParam: try reader.optionalString("page_param") ?? "page", totalPath: try jsonPath("total_path", totalPath),
                               maximumPage: try reader.optionalInt("maximum_page"),
                               stopAfterEmptyPage: try reader.optionalBool("stop_after_empty_page") ?? true)
        case "offset":
            try reader.allow(["type", "limit", "offset", "offset_param", "limit_param", "total_path", "maximum_offset", "stop_after_empty_page"])
            let totalPath = reader.json["total_path"].map { $0.isNull ? nil : $0.stringValue } ?? "total"
            let limit = try reader.int("limit")
            guard limit > 0 else { throw ManifestError(path: path + ".limit", message: "must be at least 1") }
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
            if let key = try reader.optionalString("links_next_key"), key != "next" {
                throw ManifestError(path: path + ".links_next_key", message: "only next is supported")
            }
            self = .headerLink
        case "cursor":
            try reader.allow(["type", "cursor_path", "cursor_param"])
            self = .cursor(cursorPath: try jsonPath("cursor_path", try reader.optionalString("cursor_path") ?? "cursors.next")!,
                           cursorParam: try reader.optionalString("cursor_param") ?? "cursor")
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
