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
    public var entries: [Entry] { census.rows.indices.map { census.friends.entry($0, rows: census.rows) } }
    /// Resolved listings (A lists B), counted once per pair in that direction.
    public var listingCount: Int { census.friends.listingCount }
    /// Undirected links: pairs {A, B}, A ≠ B, where either lists the other.
    public var linkCount: Int { census.friends.linkCount }
    /// Distinct friend names, as listed, that match no gnome.
    public var unknownNames: [String] { census.friends.unknownNames }

    /// The held census; its friend graph is resolved once, when it was decoded.
    private let census: GnomeCensusData

    public init(state: LogState) {
        census = GnomeCensus.data(in: state)
    }

    public func entry(id: Int) -> Entry? { census.position(ofID: id).map { census.friends.entry($0, rows: census.rows) } }

    /// A shortest chain of gnome ids from `from` to `to` over friendships counted both
    /// ways; among equally short chains the lexicographically smallest (`shortestChain`:
    /// neighbours ascend by id). `[from]` when they are the same gnome, nil when either is
    /// unknown or they are not connected.
    public func path(from: Int, to: Int) -> [Int]? {
        guard let source = census.position(ofID: from), let target = census.position(ofID: to) else { return nil }
        let graph = census.friends.neighbours
        return shortestChain(offsets: graph.offsets, targets: graph.targets, from: source, to: target)?.map { census.rows[$0].id }
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
