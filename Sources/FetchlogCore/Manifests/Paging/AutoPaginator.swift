/// dlt's default when a resource names no paginator: follow a `Link: <…>; rel="next"`
/// header, else a `next` URL in the body, else the first page is the list.
package struct AutoPaginator: Paginator {
    package init() {}

    init(_ reader: ManifestReader) throws(ManifestError) {
        try reader.allow(["type"])
    }

    package func signals(in body: JSONValue) throws(DecodeError) -> PageSignals {
        PageSignals(nextURL: body["next"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 })
    }

    package func next(after page: AnsweredPage) -> PagingStep {
        (LinkHeader.target(page.headers("Link"), relation: "next") ?? page.signals.nextURL).map { .link($0) } ?? .end(.noNext)
    }
}
