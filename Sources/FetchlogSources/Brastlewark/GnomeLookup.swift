import FetchlogCore
/// The answer of an id-free gnome name lookup (`GnomesView.lookup`).
public enum GnomeLookup: Sendable, Equatable {
    /// One gnome: the exact (trimmed, case-sensitive) name, else the only case-insensitive match.
    case found(GnomeRow)
    /// No exact match and several case-insensitive ones: the candidates, in id order.
    case ambiguous([GnomeRow])
    /// No gnome has this name, in any case.
    case notFound
}

/// Names to rows, resolved exact first: a trimmed, case-sensitive match wins; otherwise a
/// unique trimmed, case-insensitive match; several case-insensitive matches and no exact
/// one resolve to none of them. One rule for the name look-up, friend names and paths, so
/// "Case Twin" and "case twin" are two gnomes everywhere.
struct GnomeNameIndex: Sendable, Equatable {
    /// Trimmed name → row index; on a repeated exact name the smallest id (first row) wins.
    private let exact: [String: Int]
    /// Trimmed, lowercased name → row indices, ascending (rows are in id order).
    private let folded: [String: [Int]]

    enum Resolution: Equatable {
        case one(Int)
        case several([Int])
        case none
    }

    init(_ rows: [GnomeRow]) {
        var exact: [String: Int] = [:], folded: [String: [Int]] = [:]
        for (i, row) in rows.enumerated() {
            if exact[row.name] == nil { exact[row.name] = i }
            folded[GnomeText.key(row.name), default: []].append(i)
        }
        self.exact = exact
        self.folded = folded
    }

    func resolve(_ text: String) -> Resolution {
        if let i = exact[GnomeText.trimmed(text)] { return .one(i) }
        let candidates = folded[GnomeText.key(text)] ?? []
        switch candidates.count {
        case 0: return .none
        case 1: return .one(candidates[0])
        default: return .several(candidates)
        }
    }
}
