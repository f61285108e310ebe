import FetchlogCore

extension OfflineFirst {
    // MARK: Paged lists

    /// Fetches TVmaze page `page` following the durable window (`DurableWindow`): durably
    /// when its first item index — the shows held on pages 0..<page — is shown to be below
    /// `durableWindow`; for this session only when it is at or past it, or is unknown (an
    /// earlier page not held) and could be. The report carries `firstItemIndex` (nil when
    /// unknown) and says how it was `recorded`.
    @discardableResult
    public func fetchShowsPage(_ page: Int) async throws -> FetchReport {
        let resource = Resource.tvmazeShowsPage(page)
        let window = DurableWindow(items: durableWindow)
        let position = window.position(ofPage: page, in: store.snapshot.state)
        let durable = window.isDurable(position)
        var report = try await store.fetch(resource, durable: durable)
        report.firstItemIndex = position.firstItemIndex
        return report
    }

    public enum PagedList: Sendable, Equatable {
        case shows
        case podcastSections
        /// The ARTIC artworks list of page size `limit`; `.artworks()` (nil) means the held
        /// list's limit (`ArtworksView.heldList`), so a list fetched with `--limit 4` is
        /// continued with limit 4.
        case artworks(limit: Int? = nil)
    }

    /// The user is looking at item `index` of `list`: when that is within
    /// `prefetchDistance` of the end of what is held, the next page is fetched in the
    /// background (once). Returns the page it started, if any.
    @discardableResult
    public func didShow(itemIndex index: Int, of list: PagedList) -> Resource? {
        let state = store.snapshot.state
        let next: Resource?
        let held: Int
        switch list {
        case .shows:
            let view = ShowsView(state: state)
            held = view.count
            let page = (view.pagesHeld.max() ?? -1) + 1
            next = view.endOfListPage.map { page >= $0 } == true ? nil : .tvmazeShowsPage(page)
        case .podcastSections:
            let view = SectionsView(state: state)
            held = view.sections.count
            let page = (view.pages.max() ?? 0) + 1
            next = view.totalPages.map { page > $0 } == true ? nil : .thmanyahHome(page)
        case .artworks(let asked):
            let limit = asked ?? ArtworksView.heldList(in: state).limit
            held = ArtworksView(state: state).count
            var pages: [Int] = []
            var total: Int?
            for (key, doc) in state.documents where key.source == "artic" && key.path.hasPrefix("/api/v1/artworks?") && key.path.hasSuffix("&limit=\(limit)") {
                if case .articArtworks(let page)? = doc.artic {
                    pages.append(page.pagination.currentPage)
                    total = page.pagination.totalPages
                }
            }
            let page = (pages.max() ?? 0) + 1
            next = total.map { page > $0 } == true ? nil : .articArtworks(page: page, limit: limit)
        }
        // The show index follows the durable window; the other lists are plain fetches.
        guard next?.document == .tvmazeShowsPage, let next else { return prefetch(next, itemIndex: index, held: held) }
        let page = Int(next.path.split(separator: "=").last ?? "") ?? 0
        return prefetch(next, itemIndex: index, held: held) { _ = try await self.fetchShowsPage(page) }
    }

    // MARK: Search

    /// A TVmaze show search, debounced: superseded within 200 ms, it sends nothing and
    /// returns nil.
    public func searchShows(_ text: String) async throws -> FetchReport? {
        try await debouncedFetch(.tvmazeSearch(text), channel: "tvmaze.search")
    }

    /// A Thmanyah search, debounced like `searchShows`.
    public func searchPodcasts(_ text: String) async throws -> FetchReport? {
        try await debouncedFetch(.thmanyahSearch(text), channel: "thmanyah.search")
    }

}
