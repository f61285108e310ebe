import FetchlogCore
import FetchlogShell
/// The paged fetches of the seed list endpoints, through the store. Each stops at the
/// list's end: TVmaze's 404 (recorded as end-of-list), or the `total_pages` a page announces
/// (read from the page as the store holds it, never from the stored body).
extension Store {
    /// Hard stop for `--pages all` on a source that never says it ended.
    public static var pageLimit: Int { PageSelection.limit }

    /// Fetches pages of the TVmaze show index until `pages` ends or the index does (404).
    ///
    /// Each page follows the durable window (`DurableWindow`): its first item index is the
    /// number of shows on the pages before it, counted from what the store holds (the log,
    /// and this session) plus the pages fetched earlier in this run. A page shown to start
    /// inside the window is recorded in the log; a page starting at or past it — or one whose
    /// index is unknown (an earlier page neither held nor fetched) and could be past it — is
    /// kept in the store's `session` only. Each report carries `firstItemIndex` (nil when
    /// unknown) and says how it was `recorded`.
    public func fetchTVMazeShows(pages: PageSelection, window: DurableWindow = DurableWindow(),
                                 onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        var reports: [FetchReport] = []
        var page = pages.first(default: 0)
        // Where the page starts: counted once for the first page, then carried forward page
        // by page (an unknown index stays unknown for every later page).
        var position = window.position(ofPage: page) { showsHeld(onPage: $0) }
        while page <= (pages.last(knownTotal: nil) ?? Self.pageLimit) {
            let durable = window.isDurable(position)
            var report = try await fetch(.tvmazeShowsPage(page), durable: durable)
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
        guard case .tvmazeShowsPage(let shows)? = snapshot.state.document(.tvmazeShowsPage(page))?.tvmaze else { return nil }
        return shows.count
    }

    public func fetchThmanyahHome(pages: PageSelection, onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        try await fetchPaged(pages: pages, firstPage: 1, resource: { .thmanyahHome($0) }, onReport: onReport) { held in
            guard case .thmanyahHome(let home)? = held.thmanyah else { return nil }
            return home.totalPages
        }
    }

    public func fetchArticArtworks(pages: PageSelection, limit: Int, onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
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
        while page <= (pages.last(knownTotal: total) ?? (total == nil && pages == .all ? Self.pageLimit : page)) {
            let target = resource(page)
            let report = try await fetch(target)
            reports.append(report)
            onReport(report)
            if total == nil, report.isUsable, let held = snapshot.state.document(target) { total = totalPages(held) }
            if !report.isUsable && pages == .all && total == nil { break }
            page += 1
        }
        return reports
    }
}
