/// dlt's `HeaderCursorPaginator`: the next cursor is the response header `cursor_key`
/// (`next`), sent as the query parameter `cursor_param` (`cursor`).
package struct HeaderCursorPaginator: Paginator {
    package var cursorKey: String
    package var cursorParam: String

    init(_ reader: ManifestReader) throws(ManifestError) {
        try reader.allow(["type", "cursor_key", "cursor_param"])
        cursorKey = try reader.optionalString("cursor_key") ?? "next"
        guard !cursorKey.isEmpty else { throw ManifestError(path: reader.path + ".cursor_key", message: "must name a response header") }
        cursorParam = try reader.optionalString("cursor_param") ?? "cursor"
    }

    package func next(after page: AnsweredPage) -> PagingStep {
        guard let cursor = page.headers(cursorKey).first, !cursor.isEmpty else { return .end(.noNext) }
        return .request(PageRequest(query: [(cursorParam, cursor)]))
    }

    /// The header is what the next request is made from: a not-modified page's comes
    /// from the log, which keeps it.
    package var keptResponseHeaders: Set<String> { [cursorKey.lowercased()] }
}
