/// dlt's `HeaderLinkPaginator`: the next page is the target of a `Link` header's relation
/// `links_next_key` (`next`), on any of the response's `Link` lines.
package struct HeaderLinkPaginator: Paginator {
    package var linksNextKey: String

    init(_ reader: ManifestReader) throws(ManifestError) {
        try reader.allow(["type", "links_next_key"])
        linksNextKey = try reader.optionalString("links_next_key") ?? "next"
        guard !linksNextKey.isEmpty else { throw ManifestError(path: reader.path + ".links_next_key", message: "must name a link relation (next)") }
    }

    package func next(after page: AnsweredPage) -> PagingStep {
        LinkHeader.target(page.headers("Link"), relation: linksNextKey).map { .link($0) } ?? .end(.noNext)
    }
}
