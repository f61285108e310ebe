import FetchlogCore

/// The census as it is held: the gnomes as sent, their rows, and every structure the gnome
/// views answer from — built once, when the census body is decoded (on arrival, in replay,
/// when a checkpoint is restored), and shared by every snapshot that holds this census. A
/// query then costs what it touches: a name search the rows its trigrams name, a filter the
/// rows of its facet values and ranges (as bitmaps), a friend look-up one adjacency list.
///
/// Checkpoints hold no index: they name the census body, and restoring decodes it again,
/// which rebuilds these (so an index layout change never invalidates a checkpoint).
public final class GnomeCensusData: Sendable, Equatable {
    /// As sent (untrimmed).
    public let gnomes: [Gnome]
    /// In id order (stable on repeated ids), trimmed.
    public let rows: [GnomeRow]
    /// id → row position, on a repeated id the smallest; nil when row i has id i for every
    /// row (the census as published), so no table is needed.
    private let positionByID: [Int: Int]?
    let names: GnomeNameIndex
    /// Folded names by row (sharing the rows' strings), for the checked paths of search.
    let nameKeys: [FoldedText]
    let nameSearch: GnomeSearchIndex
    /// Per distinct folded hair colour, the rows that have it.
    let hairColors: [FacetValue]
    /// Per distinct folded profession, the rows that list it.
    let professions: [FacetValue]
    let ages: SortedColumn<Int>
    let weights: SortedColumn<Double>
    let heights: SortedColumn<Double>
    let friendCounts: SortedColumn<Int>
    let friends: GnomeFriendGraph
    let available: FiltersView.Available

    struct FacetValue: Sendable {
        let key: FoldedText
        let rows: RowSet
    }

    static let empty = GnomeCensusData([])

    public init(_ gnomes: [Gnome]) {
        self.gnomes = gnomes
        // Stable sort by id: the census is already in id order, but the views promise it.
        let rows = gnomes.enumerated().sorted { ($0.element.id, $0.offset) < ($1.element.id, $1.offset) }.map { GnomeRow($0.element) }
        self.rows = rows
        if rows.indices.allSatisfy({ rows[$0].id == $0 }) {
            positionByID = nil
        } else {
            var byID: [Int: Int] = [:]
            byID.reserveCapacity(rows.count)
            for (i, row) in rows.enumerated() where byID[row.id] == nil { byID[row.id] = i }
            positionByID = byID
        }
        names = GnomeNameIndex(rows)
        nameKeys = rows.map { $0.searchKeys[0] }
        nameSearch = GnomeSearchIndex(nameKeys)
        func facet(_ keys: (GnomeRow) -> ArraySlice<FoldedText>) -> [FacetValue] {
            var positions: [String: (FoldedText, [Int32])] = [:]
            for (i, row) in rows.enumerated() {
                for key in keys(row) { positions[key.text, default: (key, [])].1.append(Int32(i)) }
            }
            return positions.keys.sorted().map { text in
                let (key, list) = positions[text]!
                return FacetValue(key: key, rows: RowSet(count: rows.count, positions: list))
            }
        }
        hairColors = facet { $0.searchKeys[1 ..< 2] }
        professions = facet { $0.searchKeys[2...] }
        ages = SortedColumn(rows.map(\.age))
        weights = SortedColumn(rows.map(\.weight))
        heights = SortedColumn(rows.map(\.height))
        friendCounts = SortedColumn(rows.map(\.friendCount))
        friends = GnomeFriendGraph(rows, names: names)
        available = FiltersView.Available(
            age: .init(min: ages.min, max: ages.max), weight: .init(min: weights.min, max: weights.max),
            height: .init(min: heights.min, max: heights.max), friends: .init(min: friendCounts.min, max: friendCounts.max),
            hairColors: Set(rows.map(\.hairColor)).sorted(), professions: Set(rows.flatMap(\.professions)).sorted())
    }

    /// The row of the gnome with `id` (the first, should ids repeat).
    func position(ofID id: Int) -> Int? {
        guard let positionByID else { return rows.indices.contains(id) ? id : nil }
        return positionByID[id]
    }

    public static func == (a: GnomeCensusData, b: GnomeCensusData) -> Bool { a === b || a.gnomes == b.gnomes }

    /// The rows whose folded name contains `key` (non-empty).
    func nameMatches(_ key: FoldedText) -> RowSet { nameSearch.matches(key, names: nameKeys) }

    /// The rows with a value of `facet` containing `key`: the union of those values' rows.
    func facetMatches(_ facet: [FacetValue], _ key: FoldedText) -> RowSet {
        var set = RowSet(count: rows.count)
        for value in facet where value.key.contains(key) { set.formUnion(value.rows) }
        return set
    }

    /// Rows whose name, hair colour or a profession contains `key` (non-empty).
    func searchMatches(_ key: FoldedText) -> RowSet {
        var set = nameMatches(key)
        set.formUnion(facetMatches(hairColors, key))
        set.formUnion(facetMatches(professions, key))
        return set
    }

    /// Rows passing `filter` whose search keys contain `search` (when given and not blank).
    func selection(filter: GnomeFilter, search: String?) -> GnomeSelection {
        var set = filterMatches(GnomeFilter.Matcher(filter))
        if let search {
            let key = FoldedText(GnomeText.key(search))
            if !key.isEmpty { set.formIntersection(searchMatches(key)) }
        }
        return GnomeSelection(rows: rows, positions: set.positions)
    }

    /// Rows passing `filter` (see `GnomeFilter.matches`), intersected member by member.
    func filterMatches(_ filter: GnomeFilter.Matcher) -> RowSet {
        var set = RowSet(count: rows.count, full: true)
        if let key = filter.name { set.formIntersection(nameMatches(key)) }
        if let key = filter.hairColor { set.formIntersection(facetMatches(hairColors, key)) }
        if let key = filter.profession { set.formIntersection(facetMatches(professions, key)) }
        let f = filter.filter
        for range in [ages.rows(f.ageMin, f.ageMax), weights.rows(f.weightMin, f.weightMax),
                      heights.rows(f.heightMin, f.heightMax), friendCounts.rows(f.friendsMin, f.friendsMax)] {
            if let range { set.formIntersection(range) }
        }
        return set
    }
}

/// One numeric column sorted, with the row of each value: a range is two binary searches
/// and the rows between them.
struct SortedColumn<Value: Comparable & Sendable>: Sendable {
    private let values: [Value]
    private let positions: [Int32]

    init(_ column: [Value]) {
        let order = column.indices.sorted { (column[$0], $0) < (column[$1], $1) }
        values = order.map { column[$0] }
        positions = order.map { Int32($0) }
    }

    var min: Value? { values.first }
    var max: Value? { values.last }

    /// Rows with `low ≤ value ≤ high` (a nil bound is open); nil when both are open.
    func rows(_ low: Value?, _ high: Value?) -> RowSet? {
        guard low != nil || high != nil else { return nil }
        let start = low.map { low in first { $0 >= low } } ?? 0
        let end = high.map { high in first { $0 > high } } ?? values.count
        return RowSet(count: values.count, positions: start < end ? positions[start ..< end] : [])
    }

    /// The first position whose value satisfies `predicate` (monotone: false then true).
    private func first(_ predicate: (Value) -> Bool) -> Int {
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if predicate(values[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}

/// Matching rows in id order: positions into the census rows, so paging and counting touch
/// only what is shown.
public struct GnomeSelection: RandomAccessCollection, Sendable {
    let rows: [GnomeRow]
    let positions: [Int32]

    public var startIndex: Int { 0 }
    public var endIndex: Int { positions.count }
    public subscript(i: Int) -> GnomeRow { rows[Int(positions[i])] }
}
