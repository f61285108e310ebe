/// The Brastlewark census: every gnome in id order, with search and look-ups.
/// Export: `{"gnomes":[{id,name,thumbnail,age,weight,height,hairColor,professions,friends}],"count":N}`.
public struct GnomesView: ExportableView, Equatable {
    public static let viewName = "gnomes"

    /// In id order; empty when no census has been fetched.
    public let gnomes: [GnomeRow]
    private let indexByID: [Int: Int]
    private let indexByName: [String: Int]

    public init(state: LogState) {
        let rows = GnomeCensus.rows(in: state)
        gnomes = rows
        (indexByID, indexByName) = Self.indexMemo.value(for: rows) {
            var byID: [Int: Int] = [:], byName: [String: Int] = [:]
            // Rows are in id order, so on a repeated id or name the smallest id wins.
            for (i, row) in rows.enumerated() {
                if byID[row.id] == nil { byID[row.id] = i }
                let key = row.searchKeys[0].text
                if byName[key] == nil { byName[key] = i }
            }
            return (byID, byName)
        }
    }

    private static let indexMemo = LastValueMemo<[GnomeRow], ([Int: Int], [String: Int])>()

    public var count: Int { gnomes.count }

    /// Gnomes whose name, hair colour or a profession contains `text` (trimmed,
    /// case-insensitive), in id order. Blank text gives every gnome.
    public func search(_ text: String) -> [GnomeRow] { GnomeCensus.search(gnomes, text) }

    public func gnome(id: Int) -> GnomeRow? { indexByID[id].map { gnomes[$0] } }

    /// The gnome with exactly this name, compared trimmed and case-insensitively.
    public func gnome(named name: String) -> GnomeRow? { indexByName[GnomeText.key(name)].map { gnomes[$0] } }

    public func exportMembers() -> [(String, JSONValue)] {
        [("gnomes", .array(gnomes.map(\.json))), ("count", .number(gnomes.count))]
    }
}
