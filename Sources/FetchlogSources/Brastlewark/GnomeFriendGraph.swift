import FetchlogCore

/// Friendships in a census, resolved once per census: per gnome the friends it lists, who
/// lists it, the names that match nobody, and undirected adjacency lists for paths.
struct GnomeFriendGraph: Sendable {
    /// One per row, in id order.
    let entries: [FriendsView.Entry]
    /// Undirected neighbours of each row by position, ascending (ids ascend with position).
    let neighbours: [[Int]]
    let listingCount: Int
    let linkCount: Int
    let unknownNames: [String]

    init(_ rows: [GnomeRow], names: GnomeNameIndex) {
        // Friend names resolve as `GnomesView.lookup` does: the exact (trimmed,
        // case-sensitive) name first, else a unique case-insensitive match; a name that
        // several gnomes share up to case, none exactly, is unknown rather than guessed.
        var friendIndices = [[Int]](repeating: [], count: rows.count)
        var listedBy = [[Int]](repeating: [], count: rows.count)
        var unknown = [[String]](repeating: [], count: rows.count)
        var neighbourLists = [[Int]](repeating: [], count: rows.count)
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
                    neighbourLists[i].append(j)
                    neighbourLists[j].append(i)
                }
            }
        }
        // Ids ascend with the position (rows are in id order), so sorting positions sorts ids.
        entries = rows.indices.map { i in
            FriendsView.Entry(id: rows[i].id, friends: friendIndices[i].map { rows[$0].id },
                              listedBy: listedBy[i].sorted().map { rows[$0].id }, unknownFriends: unknown[i])
        }
        // A pair listed both ways appears twice: sorted, then each once.
        neighbours = neighbourLists.map { list in
            var unique: [Int] = []
            for n in list.sorted() where n != unique.last { unique.append(n) }
            return unique
        }
        listingCount = friendIndices.reduce(0) { $0 + $1.count }
        linkCount = neighbours.reduce(0) { $0 + $1.count } / 2
        unknownNames = Set(unknown.joined()).sorted()
    }
}
