import FetchlogCore
/// The Brastlewark census: every gnome in id order, with search and look-ups.
/// Export: `{"gnomes":[{id,name,thumbnail,age,weight,height,hairColor,professions,friends}],"count":N}`.
public struct GnomesView: ExportableView, Equatable {
    public static let viewName = "gnomes"

    /// In id order; empty when no census has been fetched.
    public let gnomes: [GnomeRow]
    private let indexByID: [Int: Int]
    private let names: GnomeNameIndex

    public init(state: LogState) {
        let rows = GnomeCensus.rows(in: state)
        gnomes = rows
        (indexByID, names) = Self.indexMemo.value(for: rows) {
            var byID: [Int: Int] = [:]
            // Rows are in id order, so on a repeated id the smallest id wins.
            for (i, row) in rows.enumerated() where byID[row.id] == nil { byID[row.id] = i }
            return (byID, GnomeNameIndex(rows))
        }
    }

    private static let indexMemo = LastValueMemo<[GnomeRow], ([Int: Int], GnomeNameIndex)>()

    public var count: Int { gnomes.count }

    /// Gnomes whose name, hair colour or a profession contains `text` (trimmed,
    /// case-insensitive), in id order. Blank text gives every gnome.
    public func search(_ text: String) -> [GnomeRow] { GnomeCensus.search(gnomes, text) }

    public func gnome(id: Int) -> GnomeRow? { indexByID[id].map { gnomes[$0] } }

    /// The gnome named `name` when the name picks exactly one (see `lookup`): the exact
    /// (trimmed, case-sensitive) name, else the only case-insensitive match; nil when none
    /// does or several differ only in case.
    public func gnome(named name: String) -> GnomeRow? {
        if case .found(let row) = lookup(name) { return row }
        return nil
    }

    /// Looks a gnome up by name, without ids: an exact (trimmed, case-sensitive) match wins;
    /// otherwise a unique case-insensitive match; several case-insensitive matches and no
    /// exact one are `.ambiguous`, with the candidates in id order.
    public func lookup(_ text: String) -> GnomeLookup {
        switch names.resolve(text) {
        case .one(let i): return .found(gnomes[i])
        case .several(let indices): return .ambiguous(indices.map { gnomes[$0] })
        case .none: return .notFound
        }
    }

    public func exportMembers() -> [(String, JSONValue)] {
        [("gnomes", .array(gnomes.map(\.json))), ("count", .number(gnomes.count))]
    }
}
