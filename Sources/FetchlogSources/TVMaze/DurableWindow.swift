import FetchlogCore
/// The durable window of the TVmaze show index: the first `items` shows, by item index
/// across pages whatever the page size, go to the log; the rest are kept for the session.
///
/// The rule for a page (README, sources.md): a page whose first item index is below the
/// window is durable — whole, even when it straddles the boundary; a page whose first item
/// index is at or past it is session-only. The first item index of page N is the number of
/// shows on pages 0..<N, counted from the held state plus the pages fetched earlier in the
/// same run. Nothing that cannot be shown to be inside the window enters the log: when an
/// earlier page is neither held nor fetched, the index is unknown, and the page is durable
/// only if even the largest index it could have is inside the window — each unknown page
/// counted as `maxPageSize` shows, the most a TVmaze index page holds (250). So page 1
/// after a failed page 0 (index ≤ 250) is durable, and page 5 with pages 0–3 missing
/// (index ≤ 1,250) is not. Without a `maxPageSize`, an unknown index is never durable.
public struct DurableWindow: Sendable, Equatable {
    /// How many items (from index 0) are durable.
    public var items: Int
    /// The most shows one index page can hold (TVmaze: 250), the bound an unknown page
    /// counts as; nil: no bound, so an unknown index is always outside the window.
    public var maxPageSize: Int?

    /// The window of `items` items (1,000 by default, as the README says).
    public init(items: Int = 1000, maxPageSize: Int? = 250) {
        self.items = items
        self.maxPageSize = maxPageSize
    }

    /// Where a page starts, as far as can be known.
    public struct Position: Sendable, Equatable {
        /// The item index of the page's first show; nil when an earlier page is not known.
        public let firstItemIndex: Int?
        /// The largest that index can be (equal to it when known); nil when unbounded.
        public let upperBound: Int?

        public init(firstItemIndex: Int?, upperBound: Int?) {
            self.firstItemIndex = firstItemIndex
            self.upperBound = upperBound
        }
    }

    /// Where page 0 starts.
    public static let start = Position(firstItemIndex: 0, upperBound: 0)

    /// Where the page after one at `position` starts, given that page's show count (nil:
    /// neither held nor fetched).
    public func advance(_ position: Position, by count: Int?) -> Position {
        Position(firstItemIndex: position.firstItemIndex.flatMap { index in count.map { index + $0 } },
                 upperBound: position.upperBound.flatMap { bound in (count ?? maxPageSize).map { bound + $0 } })
    }

    /// Where page `page` starts, each earlier page q counted as `showsOnPage(q)` shows
    /// (nil: that page is neither held nor fetched).
    public func position(ofPage page: Int, showsOnPage: (Int) throws -> Int?) rethrows -> Position {
        var position = Self.start
        for earlier in 0 ..< max(0, page) { position = advance(position, by: try showsOnPage(earlier)) }
        return position
    }

    /// Where page `page` starts from what `state` holds (durable pages and this session's
    /// pages alike).
    public func position(ofPage page: Int, in state: LogState) -> Position {
        position(ofPage: page) { earlier in
            guard case .tvmazeShowsPage(let shows)? = state.document(.tvmazeShowsPage(earlier))?.tvmaze else { return nil }
            return shows.count
        }
    }

    /// True when a page starting at `position` goes to the log: it is shown to start inside
    /// the window (its largest possible first index is below `items`).
    public func isDurable(_ position: Position) -> Bool {
        guard let bound = position.upperBound else { return false }
        return bound < items
    }

    /// True when a page whose first item has index `firstItemIndex` is durable; nil (not
    /// known, no bound) never is.
    public func isDurable(firstItemIndex: Int?) -> Bool {
        isDurable(Position(firstItemIndex: firstItemIndex, upperBound: firstItemIndex))
    }
}
