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
struct GnomeNameIndex: Sendable {
    /// Trimmed name → row index; on a repeated exact name the smallest id (first row) wins.
    /// Keys are the rows' own strings (shared, not copied).
    private let exact: [String: Int32]
    /// Trimmed, lowercased name → the first row with it; `repeated` holds every row of the
    /// few names more than one row folds to (ascending: rows are in id order).
    private let folded: [String: Int32]
    private let repeated: [String: [Int]]

    enum Resolution: Equatable {
        case one(Int)
        case several([Int])
        case none
    }

    init(_ rows: [GnomeRow]) {
        var exact: [String: Int32] = [:], folded: [String: Int32] = [:], repeated: [String: [Int]] = [:]
        exact.reserveCapacity(rows.count)
        folded.reserveCapacity(rows.count)
        for (i, row) in rows.enumerated() {
            if exact[row.name] == nil { exact[row.name] = Int32(i) }
            let key = row.searchKeys[0].text
            if let first = folded[key] {
                repeated[key, default: [Int(first)]].append(i)
            } else {
                folded[key] = Int32(i)
            }
        }
        self.exact = exact
        self.folded = folded
        self.repeated = repeated
    }

    func resolve(_ text: String) -> Resolution {
        if let i = exact[GnomeText.trimmed(text)] { return .one(Int(i)) }
        let key = GnomeText.key(text)
        if let several = repeated[key] { return .several(several) }
        return folded[key].map { .one(Int($0)) } ?? .none
    }
}
