/// dlt's `JSONResponseCursorPaginator`: the cursor at `cursor_path` (`cursors.next`) goes
/// to `cursor_param` (`cursor`) or into the JSON body at `cursor_body_path`;
/// `has_more_path` (a boolean in the body) and `stop_after_empty_page` (off by default)
/// end the list too.
package struct CursorPaginator: Paginator {
    package var cursorPath: JSONPath
    /// Where the cursor goes.
    package var target: PagingTarget
    package var hasMorePath: JSONPath?
    package var stopAfterEmptyPage: Bool

    init(_ reader: ManifestReader) throws(ManifestError) {
        try reader.allow(["type", "cursor_path", "cursor_param", "cursor_body_path", "has_more_path", "stop_after_empty_page"])
        let param = try reader.optionalString("cursor_param")
        if let bodyPath = try reader.optionalString("cursor_body_path") {
            // dlt refuses both at once: the cursor goes to one place.
            guard param == nil else {
                throw ManifestError(path: reader.path + ".cursor_body_path", message: "give cursor_param or cursor_body_path, not both (as dlt says)")
            }
            target = .body(try ManifestReader.bodyPath(bodyPath, path: reader.path + ".cursor_body_path"))
        } else {
            target = .param(param ?? "cursor")
        }
        cursorPath = try reader.jsonPath("cursor_path", default: "cursors.next")!
        hasMorePath = try reader.jsonPath("has_more_path")
        stopAfterEmptyPage = try reader.optionalBool("stop_after_empty_page") ?? false
    }

    package func signals(in body: JSONValue) throws(DecodeError) -> PageSignals {
        // dlt takes the first value, and none when it is falsy (null, "", 0, false, empty).
        let found = cursorPath.first(in: body)
        let falsy: Bool = switch found {
        case nil, .null?, .bool(false)?: true
        case .string(let s)?: s.isEmpty
        case .number(let n)?: Double(n) == 0
        case .array(let a)?: a.isEmpty
        case .object(let o)?: o.isEmpty
        default: false
        }
        return PageSignals(cursor: falsy ? nil : found,
                           hasMore: try hasMorePath.map { path throws(DecodeError) in try PageSignals.hasMore(at: path, in: body) })
    }

    /// As dlt: an empty page ends the list when asked to, then `has_more_path` decides,
    /// and without a cursor there is no next page to ask for.
    package func next(after page: AnsweredPage) -> PagingStep {
        if stopAfterEmptyPage && page.itemCount == 0 { return .end(.emptyPage) }
        if page.signals.hasMore == false { return .end(.noMore) }
        guard let cursor = page.signals.cursor, let text = page.signals.cursorText, !text.isEmpty else { return .end(.noNext) }
        var request = PageRequest()
        target.place(cursor, text: text, in: &request)
        return .request(request)
    }

    package var writesBody: Bool { target.isBody }
}
