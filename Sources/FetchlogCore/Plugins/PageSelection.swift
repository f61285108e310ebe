/// Which pages of a paged list to fetch.
public enum PageSelection: Sendable, Equatable, CustomStringConvertible {
    /// Hard stop for `--pages all` on a list that never says it ended: the engine's own
    /// ceiling for lists (`Store.listPageCeiling`), so `--pages` and a manifest's list agree.
    package static let limit = Store.listPageCeiling

    case range(ClosedRange<Int>)
    /// From the first page until the source says there are no more.
    case all

    /// `3`, `0-3`, `all`.
    package init?(_ text: String) {
        if text == "all" { self = .all; return }
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 1, let n = Int(parts[0]), n >= 0 { self = .range(n ... n); return }
        if parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a >= 0, a <= b { self = .range(a ... b); return }
        return nil
    }

    /// `3`, `0-3`, `all`: as typed.
    public var description: String {
        switch self {
        case .all: "all"
        case .range(let r): r.lowerBound == r.upperBound ? "\(r.lowerBound)" : "\(r.lowerBound)-\(r.upperBound)"
        }
    }

    /// The first page asked for; `start` (the list's own first) for `all`.
    package func first(default start: Int) -> Int {
        if case .range(let r) = self { return r.lowerBound }
        return start
    }

    /// The last page to ask for: the range's end, never past a total the list announced;
    /// for `all`, that total (nil while none is known: go on until the list ends).
    package func last(knownTotal: Int?) -> Int? {
        switch self {
        case .range(let r): return min(r.upperBound, knownTotal ?? r.upperBound)
        case .all: return knownTotal
        }
    }
}
