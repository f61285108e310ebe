/// The store's door for paging a manifest resource (`ManifestPager`, a client of the store):
/// the public entry, and what a pager needs that a snapshot does not hold.
extension Store {
    /// The most pages one run fetches of a list that never says it ended, unless told
    /// otherwise (a manifest's `pageCeiling`, a paginator's own maximum, a shell's page range).
    package static let listPageCeiling = PageBounds.listPageCeiling

    /// Fetches `resource` of the manifest source `source` from its first page until its
    /// paginator says the list ends, `maxPages` pages were fetched, or a page fails.
    /// A page the paginator would ask for twice ends the run (a loop in the API's links).
    /// `firstPage` (from 1) starts a `page_number` or `offset` list further on; any other
    /// paginator reads its way there, its earlier pages fetched but not counted in `maxPages`.
    ///
    /// A list that has not ended after `pageCeiling` pages (default: `listPageCeiling`,
    /// or more when the paginator's own `maximum_page`/`maximum_offset` allows more) stops
    /// there, and the last report's `notices` say so; so does a page that repeats the page
    /// before it, a next link outside the source's base, and items a view leaves out.
    public func fetchManifestResource(source: Source, resource name: String, firstPage: Int = 1, maxPages: Int? = nil,
                                      pageCeiling: Int? = nil,
                                      onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        // Once per run, so the source's definition and its held pages are the log's latest.
        _ = try await catchUp()
        let pager = try ManifestPager(store: self, source: source, maxPages: maxPages, pageCeiling: pageCeiling)
        return try await pager.fetch(pager.resource(named: name), firstPage: firstPage, onReport: onReport)
    }

    /// The headers of the response whose body is held for `resource` (its last success),
    /// as the log recorded them; empty when none is held. A not-modified answer need not
    /// repeat headers a paginator reads (`Link`, a header cursor): they are these.
    package func heldResponseHeaders(of resource: Resource) -> [Header] {
        guard let seq = snapshot.state.status[ResourceKey(resource)]?.lastSuccessSeq, seq > 0,
              let response = (try? log.event(at: seq))??.response else { return [] }
        return response.headers
    }

    /// The URL `resource` is asked at under the store's configuration (its upstream), which
    /// a next link is resolved against; the plug-in's own base when the store has no fetcher.
    package func requestURL(of resource: Resource, plugin: any SourcePlugin) -> String {
        fetcher?.url(for: resource, plugin: plugin) ?? plugin.realBase + resource.path
    }

    /// Where requests go: the real sources, or the `--upstream` stand-in.
    package var upstream: Upstream { fetcher?.configuration.upstream ?? .real }
}
