import FetchlogCore
/// The Brastlewark census: every gnome in id order, with search and look-ups.
/// Export: `{"gnomes":[{id,name,thumbnail,age,weight,height,hairColor,professions,friends}],"count":N}`.
public struct GnomesView: ExportableView, Equatable {
    public static let viewName = "gnomes"

    /// In id order; empty when no census has been fetched.
    public var gnomes: [GnomeRow] { census.rows }
    /// The held census with its indexes (built when it was decoded; shared by snapshots).
    private let census: GnomeCensusData

    public init(state: LogState) {
        census = GnomeCensus.data(in: state)
    }

    public var count: Int { census.rows.count }

    /// Gnomes whose name, hair colour or a profession contains `text` (trimmed,
    /// case-insensitive), in id order. Blank text gives every gnome.
    public func search(_ text: String) -> [GnomeRow] { Array(matches(text)) }

    /// As `search`, without copying rows: positions into the census, for counting and paging.
    public func matches(_ text: String) -> GnomeSelection { census.selection(filter: GnomeFilter(), search: text) }

    /// Gnomes passing `filter` (as if it were the active one; see `GnomeFilter.matches`)
    /// and, when given, containing `search` — without an intent: a what-if query.
    public func matching(_ filter: GnomeFilter, search: String? = nil) -> GnomeSelection { census.selection(filter: filter, search: search) }

    public func gnome(id: Int) -> GnomeRow? { census.position(ofID: id).map { census.rows[$0] } }

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
        switch census.names.resolve(text) {
        case .one(let i): return .found(census.rows[i])
        case .several(let indices): return .ambiguous(indices.map { census.rows[$0] })
        case .none: return .notFound
        }
    }

    public func exportMembers() -> [(String, JSONValue)] {
        [("gnomes", .array(gnomes.map(\.json))), ("count", .number(gnomes.count))]
    }
}
