import FetchlogCore
/// Friendships in the census: names resolved to gnomes, who lists whom, names that
/// match nobody, and shortest paths between gnomes.
/// Export: `{"gnomes":[{id,friends:[ids],listedBy:[ids],unknownFriends:[names]}],
/// "totals":{"listings":N,"links":N,"unknownNames":N}}`.
public struct FriendsView: ExportableView, Equatable {
    public static let viewName = "friends"

    public struct Entry: Sendable, Equatable {
        public let id: Int
        /// Ids of the listed friends that resolve, in listed order (a name listed twice once).
        public let friends: [Int]
        /// Ids of the gnomes that list this one, ascending.
        public let listedBy: [Int]
        /// Listed names (as listed) that match no gnome — or several that differ only in
        /// case, none exactly.
        public let unknownFriends: [String]
    }

    /// One per gnome, in id order.
    public let entries: [Entry]
    /// Resolved listings (A lists B), counted once per pair in that direction.
    public let listingCount: Int
    /// Undirected links: pairs {A, B}, A ≠ B, where either lists the other.
    public let linkCount: Int
    /// Distinct friend names, as listed, that match no gnome.
    public let unknownNames: [String]

    private let indexByID: [Int: Int]
    /// Undirected neighbours of each entry by index, ascending by id (ids ascend with index).
    private let neighbours: [[Int]]

    public init(state: LogState) {
        let rows = GnomeCensus.rows(in: state)
        var indexByID: [Int: Int] = [:]
        for (i, row) in rows.enumerated() where indexByID[row.id] == nil { indexByID[row.id] = i }
        // Friend names resolve as `GnomesView.lookup` does: the exact (trimmed,
        // case-sensitive) name first, else a unique case-insensitive match; a name that
        // several gnomes share up to case, none exactly, is unknown rather than guessed.
        let names = GnomeNameIndex(rows)
        var friendIndices = [[Int]](repeating: [], count: rows.count)
        var listedBy = [[Int]](repeating: [], count: rows.count)
        var unknown = [[String]](repeating: [], count: rows.count)
        var neighbourSets = [Set<Int>](repeating: [], count: rows.count)
        for (i, row) in rows.enumerated() {
            for name in row.friends {
                guard case .one(let j) = names.resolve(name) else {
                    unknown[i].append(name)
                    continue
                }
                if friendIndices[i].contains(j) { continue }
                friendIndices[i].append(j)
                listedBy[j].append(i)
                if i != j {
                    neighbourSets[i].insert(j)
                    neighbourSets[j].insert(i)
                }
            }
        }
        // Ids ascend with the index (rows are in id order), so sorting indices sorts ids.
        entries = rows.indices.map { i in
            Entry(id: rows[i].id, friends: friendIndices[i].map { rows[$0].id },
                  listedBy: listedBy[i].sorted().map { rows[$0].id }, unknownFriends: unknown[i])
        }
        neighbours = neighbourSets.map { $0.sorted() }
        listingCount = friendIndices.reduce(0) { $0 + $1.count }
        linkCount = neighbourSets.reduce(0) { $0 + $1.count } / 2
        unknownNames = Set(unknown.joined()).sorted()
        self.indexByID = indexByID
    }

    public func entry(id: Int) -> Entry? { indexByID[id].map { entries[$0] } }

    /// A shortest chain of gnome ids from `from` to `to` over friendships counted both
    /// ways; among equally short chains the lexicographically smallest (`shortestChain`:
    /// neighbours ascend by id). `[from]` when they are the same gnome, nil when either is
    /// unknown or they are not connected.
    public func path(from: Int, to: Int) -> [Int]? {
        guard let source = indexByID[from], let target = indexByID[to] else { return nil }
        return shortestChain(neighbours: neighbours, from: source, to: target)?.map { entries[$0].id }
    }

    public func exportMembers() -> [(String, JSONValue)] {
        let gnomes: [JSONValue] = entries.map { e in
            .object([
                ("id", .number(e.id)),
                ("friends", .array(e.friends.map { .number($0) })),
                ("listedBy", .array(e.listedBy.map { .number($0) })),
                ("unknownFriends", .array(e.unknownFriends.map(JSONValue.string))),
            ])
        }
        return [("gnomes", .array(gnomes)),
                ("totals", .object([("listings", .number(listingCount)), ("links", .number(linkCount)),
                                    ("unknownNames", .number(unknownNames.count))]))]
    }
}
