/// Which pages of a paged list to fetch.
public enum PageSelection: Sendable, Equatable, CustomStringConvertible {
    case range(ClosedRange<Int>)
    /// From the first page until the source says there are no more.
    case all

    /// `3`, `0-3`, `all`.
    public init?(_ text: String) {
        if text == "all" { self = .all; return }
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 1, let n = Int(parts[0]), n >= 0 { self = .range(n ... n); return }
        if parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a >= 0, a <= b { self = .range(a ... b); return }
        return nil
    }

    public var description: String {
        switch self {
        case .all: "all"
        case .range(let r): r.lowerBound == r.upperBound ? "\(r.lowerBound)" : "\(r.lowerBound)-\(r.upperBound)"
        }
    }

    func first(default start: Int) -> Int {
        if case .range(let r) = self { return r.lowerBound }
        return start
    }

    func last(knownTotal: Int?) -> Int? {
        switch self {
        case .range(let r): return min(r.upperBound, knownTotal ?? r.upperBound)
        case .all: return knownTotal
        }
    }
}

/// The paged fetches of the list endpoints. Each stops at the list's end: TVmaze's
/// 404 (recorded as end-of-list), or the `total_pages` a page announces.
extension Fetcher {
    /// Hard stop for `--pages all` on a source that never says it ended.
    static let pageLimit = 10_000

    public func fetchTVMazeShows(pages: PageSelection, onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        var reports: [FetchReport] = []
        var page = pages.first(default: 0)
        while page <= (pages.last(knownTotal: nil) ?? Self.pageLimit) {
            let report = try await fetch(.tvmazeShowsPage(page))
            reports.append(report)
            onReport(report)
            if report.outcome == .endOfList { break }
            page += 1
        }
        return reports
    }

    public func fetchThmanyahHome(pages: PageSelection, onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        try await fetchPaged(pages: pages, firstPage: 1, resource: { .thmanyahHome($0) }, onReport: onReport)
    }

    public func fetchArticArtworks(pages: PageSelection, limit: Int, onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        try await fetchPaged(pages: pages, firstPage: 1, resource: { .articArtworks(page: $0, limit: limit) }, onReport: onReport)
    }

    /// Lists whose pages announce `pagination.total_pages`.
    private func fetchPaged(pages: PageSelection, firstPage: Int, resource: (Int) -> Resource,
                            onReport: (FetchReport) -> Void) async throws -> [FetchReport] {
        var reports: [FetchReport] = []
        var total: Int?
        var page = pages.first(default: firstPage)
        while page <= (pages.last(knownTotal: total) ?? (total == nil && pages == .all ? Self.pageLimit : page)) {
            let target = resource(page)
            let report = try await fetch(target)
            reports.append(report)
            onReport(report)
            if total == nil, report.isUsable, let body = try heldBody(of: target),
               let json = try? JSONValue.parse(bytes: body) {
                total = json["pagination"]?["total_pages"]?.intValue
            }
            if !report.isUsable && pages == .all && total == nil { break }
            page += 1
        }
        return reports
    }
}
