import FetchlogCore

/// The seed sources' paged lists, as store calls (`SeedLists` fetches them, a client of
/// the store's door).
extension Store {
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
        try await SeedLists(store: self).fetchTVMazeShows(pages: pages, window: window, onReport: onReport)
    }

    /// Pages of Thmanyah's home until `pages` ends or the `total_pages` a page announces.
    public func fetchThmanyahHome(pages: PageSelection, onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        try await SeedLists(store: self).fetchThmanyahHome(pages: pages, onReport: onReport)
    }

    /// Pages of ARTIC's artworks, `limit` a page, until `pages` ends or the announced total.
    public func fetchArticArtworks(pages: PageSelection, limit: Int, onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        try await SeedLists(store: self).fetchArticArtworks(pages: pages, limit: limit, onReport: onReport)
    }
}
