/// The durable window of the TVmaze show index: the first `items` shows, by item index
/// across pages whatever the page size, go to the log; the rest are kept for the session.
///
/// The rule for a page (README, sources.md): a page whose first item index is below the
/// window is durable — whole, even when it straddles the boundary; a page whose first item
/// index is at or past it is session-only. The first item index of page N is the number of
/// shows on pages 0..<N. When any of those pages is not known (neither held nor fetched in
/// the same run), the index is unknown and the page is treated as outside the window:
/// nothing that cannot be shown to be inside the window enters the log.
public struct DurableWindow: Sendable, Equatable {
    /// How many items (from index 0) are durable.
    public var items: Int

    /// The window of `items` items (1,000 by default, as the README says).
    public init(items: Int = 1000) { self.items = items }

    /// The item index of page `page`'s first show: the sum of `showsOnPage(q)` for every
    /// q in 0..<page, or nil as soon as one of them is nil (a page neither held nor fetched).
    public static func firstItemIndex(ofPage page: Int, showsOnPage: (Int) throws -> Int?) rethrows -> Int? {
        var index = 0
        for earlier in 0 ..< max(0, page) {
            guard let count = try showsOnPage(earlier) else { return nil }
            index += count
        }
        return index
    }

    /// True when a page whose first item has index `firstItemIndex` is written to the log:
    /// only a known index below the window. An unknown index (nil) is never durable.
    public func isDurable(firstItemIndex: Int?) -> Bool {
        guard let firstItemIndex else { return false }
        return firstItemIndex < items
    }

    /// The item index of page `page`'s first show from what `state` holds (durable pages
    /// and this session's pages alike), nil when an earlier page is not held.
    public static func firstItemIndex(ofPage page: Int, in state: LogState) -> Int? {
        firstItemIndex(ofPage: page) { earlier in
            guard case .tvmazeShowsPage(let shows)? = state.document(.tvmazeShowsPage(earlier))?.document else { return nil }
            return shows.count
        }
    }
}
