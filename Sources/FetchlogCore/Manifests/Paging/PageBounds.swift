/// How far one list of a run may go, decided once per resource: `limit` pages, and the
/// name of the ceiling when stopping there with pages left is news (nil: the caller asked
/// for that many).
struct PageBounds: Sendable, Equatable {
    /// The most pages one run fetches of a list that never says it ended, unless told
    /// otherwise (a manifest's `pageCeiling`, a paginator's own maximum, a shell's page range).
    static let listPageCeiling = 10_000

    let limit: Int
    let ceiling: String?

    /// `maxPages` asked for (nil: all), under `pageCeiling` (nil: `listPageCeiling`, or
    /// more when the paginator's own `maximum_page`/`maximum_offset` allows more).
    init(maxPages: Int?, pageCeiling: Int?, paginator: RestPaginator) {
        let ceiling = pageCeiling ?? max(Self.listPageCeiling, paginator.pageBound ?? 0)
        limit = min(maxPages ?? ceiling, ceiling)
        // Stopping at `maxPages` is what was asked; stopping at the ceiling is news.
        let limitIsCeiling = maxPages.map { $0 >= ceiling } ?? true
        self.ceiling = limitIsCeiling ? pageCeiling.map { "\(FrontEndTerm.pageCeiling) \($0)" } ?? "the ceiling of \(ceiling) pages" : nil
    }
}
