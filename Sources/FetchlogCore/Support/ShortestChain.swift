/// A shortest chain between two nodes of an undirected graph (neighbour lists ascending),
/// choosing at each step the smallest neighbour that is one step closer.
///
/// Why the choice is right: with `distance` the breadth-first distance to `to`, a chain is
/// shortest exactly when every step lowers it by one, and from any node at distance d every
/// neighbour at d − 1 continues to `to`. Choosing the smallest such neighbour at each step
/// never rules out a completion, so the chain is the lexicographically smallest of the
/// shortest ones. O(V + E). `[from]` when they are one node; nil when not connected.
public func shortestChain(neighbours: [[Int]], from: Int, to: Int) -> [Int]? {
    guard neighbours.indices.contains(from), neighbours.indices.contains(to) else { return nil }
    var distance = [Int](repeating: -1, count: neighbours.count)
    distance[to] = 0
    var queue = [to], head = 0
    while head < queue.count, distance[from] < 0 {
        let u = queue[head]
        head += 1
        for v in neighbours[u] where distance[v] < 0 {
            distance[v] = distance[u] + 1
            queue.append(v)
        }
    }
    guard distance[from] >= 0 else { return nil }
    var chain = [from]
    var u = from
    while u != to {
        // Neighbours ascend, so the first one a step closer is the smallest.
        guard let next = neighbours[u].first(where: { distance[$0] == distance[u] - 1 }) else { return nil }
        chain.append(next)
        u = next
    }
    return chain
}
