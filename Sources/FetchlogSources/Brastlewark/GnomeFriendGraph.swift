import FetchlogCore

/// Friendships in a census, resolved once per census: per gnome the friends it lists, who
/// lists it, the names that match nobody, and undirected adjacency for paths — each as one
/// flat list with offsets (a row's part is `offsets[i] ..< offsets[i + 1]`), not an array
/// per gnome: a million gnomes are three allocations, not three million.
struct GnomeFriendGraph: Sendable {
    /// Row positions of the listed friends that resolve, in listed order, each once.
    let friends: Adjacency
    /// Row positions of the gnomes listing each, ascending.
    let listedBy: Adjacency
    /// Undirected neighbours by position, ascending (ids ascend with position).
    let neighbours: Adjacency
    /// Listed names that match no gnome, per row (only rows that have any).
    let unknown: [Int32: [String]]
    let listingCount: Int
    let linkCount: Int
    let unknownNames: [String]

    struct Adjacency: Sendable {
        let offsets: [Int32]
        let targets: [Int32]

        subscript(row: Int) -> ArraySlice<Int32> { targets[Int(offsets[row]) ..< Int(offsets[row + 1])] }

        /// From per-row lists given in row order.
        init(rows: Int, _ each: (Int, inout [Int32]) -> Void) {
            var offsets: [Int32] = [0], targets: [Int32] = []
            offsets.reserveCapacity(rows + 1)
            for row in 0 ..< rows {
                each(row, &targets)
                offsets.append(Int32(targets.count))
            }
            self.offsets = offsets
            self.targets = targets
        }
    }

    init(_ rows: [GnomeRow], names: GnomeNameIndex) {
        // Friend names resolve as `GnomesView.lookup` does: the exact (trimmed,
        // case-sensitive) name first, else a unique case-insensitive match; a name that
        // several gnomes share up to case, none exactly, is unknown rather than guessed.
        var unknown: [Int32: [String]] = [:]
        var listedByCount = [Int32](repeating: 0, count: rows.count)
        let friends = Adjacency(rows: rows.count) { i, targets in
            let start = targets.count
            for name in rows[i].friends {
                guard case .one(let j) = names.resolve(name) else {
                    unknown[Int32(i), default: []].append(name)
                    continue
                }
                if targets[start...].contains(Int32(j)) { continue }
                targets.append(Int32(j))
                listedByCount[j] += 1
            }
        }
        // Who lists whom, by counting then placing (rows in order: each list ascends).
        var listedByOffsets: [Int32] = [0]
        listedByOffsets.reserveCapacity(rows.count + 1)
        for count in listedByCount { listedByOffsets.append(listedByOffsets.last! + count) }
        var listedByTargets = [Int32](repeating: 0, count: Int(listedByOffsets.last!))
        var fill = Array(listedByOffsets.dropLast())
        for i in 0 ..< rows.count {
            for j in friends[i] {
                listedByTargets[Int(fill[Int(j)])] = Int32(i)
                fill[Int(j)] += 1
            }
        }
        let listedBy = Adjacency(offsets: listedByOffsets, targets: listedByTargets)
        self.friends = friends
        self.listedBy = listedBy
        // Neighbours: friends and listers merged, without self and repeats.
        neighbours = Adjacency(rows: rows.count) { i, targets in
            let start = targets.count
            targets.append(contentsOf: friends[i].lazy.filter { $0 != Int32(i) })
            targets.append(contentsOf: listedBy[i].lazy.filter { $0 != Int32(i) })
            targets[start...].sort()
            var write = start
            for read in start ..< targets.count where write == start || targets[read] != targets[write - 1] {
                targets[write] = targets[read]
                write += 1
            }
            targets.removeLast(targets.count - write)
        }
        self.unknown = unknown
        listingCount = friends.targets.count
        linkCount = neighbours.targets.count / 2
        unknownNames = Set(unknown.values.joined()).sorted()
    }

    /// Row `i`'s entry, with ids.
    func entry(_ i: Int, rows: [GnomeRow]) -> FriendsView.Entry {
        FriendsView.Entry(id: rows[i].id, friends: friends[i].map { rows[Int($0)].id },
                          listedBy: listedBy[i].map { rows[Int($0)].id }, unknownFriends: unknown[Int32(i)] ?? [])
    }
}

extension GnomeFriendGraph.Adjacency {
    init(offsets: [Int32], targets: [Int32]) {
        self.offsets = offsets
        self.targets = targets
    }
}
