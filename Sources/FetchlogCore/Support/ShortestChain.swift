/// A shortest chain between two nodes of an undirected graph (neighbour lists ascending),
/// choosing at each step the smallest neighbour that is one step closer.
///
/// Why the choice is right: with `distance` the breadth-first distance to `to`, a chain is
/// shortest exactly when every step lowers it by one, and from any node at distance d every
/// neighbour at d − 1 continues to `to`. Choosing the smallest such neighbour at each step
/// never rules out a completion, so the chain is the lexicographically smallest of the
/// shortest ones. O(V + E). `[from]` when they are one node; nil when not connected.
package func shortestChain(neighbours: [[Int]], from: Int, to: Int) -> [Int]? {
    var offsets: [Int32] = [0], targets: [Int32] = []
    for list in neighbours {
        targets.append(contentsOf: list.lazy.map { Int32($0) })
        offsets.append(Int32(targets.count))
    }
    return shortestChain(offsets: offsets, targets: targets, from: from, to: to)
}

/// As `shortestChain(neighbours:from:to:)`, the graph in compressed form: node i's
/// neighbours (ascending) are `targets[offsets[i] ..< offsets[i + 1]]`.
package func shortestChain(offsets: [Int32], targets: [Int32], from: Int, to: Int) -> [Int]? {
    let count = offsets.count - 1
    guard (0 ..< count).contains(from), (0 ..< count).contains(to) else { return nil }
    func neighbours(_ u: Int) -> ArraySlice<Int32> { targets[Int(offsets[u]) ..< Int(offsets[u + 1])] }
    var distance = [Int32](repeating: -1, count: count)
    distance[to] = 0
    var queue = [Int32(to)], head = 0
    while head < queue.count, distance[from] < 0 {
        let u = Int(queue[head])
        head += 1
        for v in neighbours(u) where distance[Int(v)] < 0 {
            distance[Int(v)] = distance[u] + 1
            queue.append(v)
        }
    }
    guard distance[from] >= 0 else { return nil }
    var chain = [from]
    var u = from
    while u != to {
        // Neighbours ascend, so the first one a step closer is the smallest.
        guard let next = neighbours(u).first(where: { distance[Int($0)] == distance[u] - 1 }) else { return nil }
        chain.append(Int(next))
        u = Int(next)
    }
    return chain
}
