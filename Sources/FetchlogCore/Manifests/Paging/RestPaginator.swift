/// Which of dlt's paginators a resource's pages follow, with its parameters: each case
/// holds its kind's own type, which does the paging (`Paginator`). An enum of the kinds
/// rather than `any Paginator`, so a resource's equality is synthesized and a manifest's
/// kinds are a closed set a `switch` covers.
package enum RestPaginator: Sendable, Equatable {
    case singlePage
    /// dlt's default when none is given.
    case auto
    case pageNumber(PageNumberPaginator)
    case offset(OffsetPaginator)
    case jsonLink(JSONLinkPaginator)
    case headerLink(HeaderLinkPaginator)
    case cursor(CursorPaginator)
    case headerCursor(HeaderCursorPaginator)

    /// The `type`s a manifest may give, in the order its errors list them.
    static let types = ["single_page", "page_number", "offset", "json_link", "header_link", "cursor", "header_cursor", "auto"]

    /// A `json_link` paginator reading the next URL at `nextURLPath`.
    package static func jsonLink(nextURLPath: JSONPath) -> Self { .jsonLink(JSONLinkPaginator(nextURLPath: nextURLPath)) }

    /// The kind that pages: the one place the cases are told apart.
    package var kind: any Paginator {
        switch self {
        case .singlePage: SinglePagePaginator()
        case .auto: AutoPaginator()
        case .pageNumber(let kind): kind
        case .offset(let kind): kind
        case .jsonLink(let kind): kind
        case .headerLink(let kind): kind
        case .cursor(let kind): kind
        case .headerCursor(let kind): kind
        }
    }

    /// A `paginator` object (or a bare `type` string), read by its kind.
    init(_ reader: ManifestReader, path: String) throws(ManifestError) {
        var json = reader.json
        if case .string(let type) = json { json = .object([("type", .string(type))]) }
        let reader = try ManifestReader(json, path: path)
        guard case .object = json else { throw ManifestError(path: path, message: "expected an object or a paginator type") }
        let type = try reader.string("type")
        switch type {
        // The two kinds without parameters: their readers refuse keys, their cases hold nothing.
        case "single_page": _ = try SinglePagePaginator(reader); self = .singlePage
        case "auto": _ = try AutoPaginator(reader); self = .auto
        case "page_number": self = .pageNumber(try PageNumberPaginator(reader))
        case "offset": self = .offset(try OffsetPaginator(reader))
        case "json_link", "json_response": self = .jsonLink(try JSONLinkPaginator(reader)) // json_response: dlt's deprecated name
        case "header_link": self = .headerLink(try HeaderLinkPaginator(reader))
        case "cursor": self = .cursor(try CursorPaginator(reader))
        case "header_cursor": self = .headerCursor(try HeaderCursorPaginator(reader))
        default:
            throw ManifestError(path: path + ".type", message: "\"\(type)\" is not one of \(Self.types.joined(separator: ", "))")
        }
    }

    /// True when the paginator writes into the request's JSON body, so a list's pages have
    /// bodies of their own.
    var writesBody: Bool { kind.writesBody }

    /// How many pages the paginator's own `maximum_page` / `maximum_offset` allows from its
    /// first page, when it sets one.
    var pageBound: Int? { kind.pageBound }
}
