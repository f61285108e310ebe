import FetchlogCore

/// The paged fetches of the seed list endpoints: a client of the store, through its door
/// (`Store.fetch`, the snapshot). Each stops at the list's end: TVmaze's 404 (recorded as
/// end-of-list), or the `total_pages` a page announces (read from the page as the store
/// holds it, never from the stored body). `Store.fetchTVMazeShows(…)` and its siblings
/// (`Store+SeedLists.swift`) are how callers reach it.
struct SeedLists {
    let store: Store

    /// Pages of the TVmaze show index (see `Store.fetchTVMazeShows`).
    func fetchTVMazeShows(pages: PageSelection, window: DurableWindow = DurableWindow(),
                                 onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        var reports: [FetchReport] = []
        var page = pages.first(default: 0)
        // Where the page starts: counted once for the first page, then carried forward page
        // by page (an unknown index stays unknown for every later page).
        var position = window.position(ofPage: page) { showsHeld(onPage: $0) }
        while page <= (pages.last(knownTotal: nil) ?? PageSelection.limit) {
            let durable = window.isDurable(position)
            var report = try await store.fetch(.tvmazeShowsPage(page), durable: durable)
            report.firstItemIndex = position.firstItemIndex
            reports.append(report)
            onReport(report)
            if report.outcome == .endOfList { break }
            // What this page holds now: the body just fetched, the one a 304 confirmed, or —
            // when this fetch failed — whatever was held before; nil when none is.
            position = window.advance(position, by: showsHeld(onPage: page))
            page += 1
        }
        return reports
    }

    /// The number of shows held for TVmaze page `page` (this session's body over the log's,
    /// as in every snapshot); nil when none is held.
    func showsHeld(onPage page: Int) -> Int? {
        guard case .tvmazeShowsPage(let shows)? = store.snapshot.state.document(.tvmazeShowsPage(page))?.tvmaze else { return nil }
        return shows.count
    }

    func fetchThmanyahHome(pages: PageSelection, onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        try await fetchPaged(pages: pages, firstPage: 1, resource: { .thmanyahHome($0) }, onReport: onReport) { held in
            guard case .thmanyahHome(let home)? = held.thmanyah else { return nil }
            return home.totalPages
        }
    }

    func fetchArticArtworks(pages: PageSelection, limit: Int, onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        try await fetchPaged(pages: pages, firstPage: 1, resource: { .articArtworks(page: $0, limit: limit) }, onReport: onReport) { held in
            guard case .articArtworks(let page)? = held.artic else { return nil }
            return page.pagination.totalPages
        }
    }

    /// Lists whose pages announce their total; `totalPages` reads it from a held page.
    private func fetchPaged(pages: PageSelection, firstPage: Int, resource: (Int) -> Resource,
                            onReport: (FetchReport) -> Void, totalPages: (HeldDocument) -> Int?) async throws -> [FetchReport] {
        var reports: [FetchReport] = []
        var total: Int?
        var page = pages.first(default: firstPage)
        while page <= (pages.last(knownTotal: total) ?? (total == nil && pages == .all ? PageSelection.limit : page)) {
            let target = resource(page)
            let report = try await store.fetch(target)
            reports.append(report)
            onReport(report)
            if total == nil, report.isUsable, let held = store.snapshot.state.document(target) { total = totalPages(held) }
            if !report.isUsable && pages == .all && total == nil { break }
            page += 1
        }
        return reports
    }
}
