/// dlt's `JSONLinkPaginator` (`json_link`, or its deprecated name `json_response`): the
/// next page's URL is in the body at `next_url_path` (`next`).
package struct JSONLinkPaginator: Paginator {
    package var nextURLPath: JSONPath

    package init(nextURLPath: JSONPath) {
        self.nextURLPath = nextURLPath
    }

    init(_ reader: ManifestReader) throws(ManifestError) {
        try reader.allow(["type", "next_url_path"])
        nextURLPath = try reader.jsonPath("next_url_path", default: "next")!
    }

    package func signals(in body: JSONValue) throws(DecodeError) -> PageSignals {
        PageSignals(nextURL: nextURLPath.first(in: body)?.stringValue.flatMap { $0.isEmpty ? nil : $0 })
    }

    package func next(after page: AnsweredPage) -> PagingStep {
        page.signals.nextURL.map { .link($0) } ?? .end(.noNext)
    }
}
