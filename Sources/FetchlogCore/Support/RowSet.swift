/// A set of row positions `0..<count` as a bitmap: the currency of indexed view queries.
/// A facet value, a numeric range and a text match each give one; a query is their
/// intersection, its count a population count, its page the first set bits — so answering
/// costs words (count / 64), not rows.
///
/// `@inlinable`: the views using it live in other modules, and a generic or per-bit call
/// across a module boundary costs more than the bit operation it does.
package struct RowSet: Sendable, Equatable {
    @usableFromInline package private(set) var words: [UInt64]
    package let count: Int

    /// Every row (`full`) or none.
    @inlinable package init(count: Int, full: Bool = false) {
        self.count = count
        words = [UInt64](repeating: full ? ~0 : 0, count: (count + 63) / 64)
        if full, count % 64 != 0 { words[words.count - 1] = (1 << UInt64(count % 64)) - 1 }
    }

    /// The rows at `positions` (any order). Concrete, not generic over sequences: an
    /// unspecialised generic loop costs a hundred nanoseconds a row.
    @inlinable package init(count: Int, positions: [Int32]) {
        self.init(count: count)
        for p in positions { insert(Int(p)) }
    }

    /// The rows at `positions[range]`.
    @inlinable package init(count: Int, positions: ArraySlice<Int32>) {
        self.init(count: count)
        for p in positions { insert(Int(p)) }
    }

    /// The rows of `candidates` for which `keep` holds.
    @inlinable package init(count: Int, candidates: [Int32], where keep: (Int) -> Bool) {
        self.init(count: count)
        for p in candidates where keep(Int(p)) { insert(Int(p)) }
    }

    /// The rows `0..<count` for which `keep` holds.
    @inlinable package init(count: Int, where keep: (Int) -> Bool) {
        self.init(count: count)
        for p in 0 ..< count where keep(p) { insert(p) }
    }

    @inlinable package mutating func insert(_ row: Int) { words[row >> 6] |= 1 << UInt64(row & 63) }

    @inlinable package func contains(_ row: Int) -> Bool { words[row >> 6] & (1 << UInt64(row & 63)) != 0 }

    @inlinable package mutating func formIntersection(_ other: RowSet) {
        for i in words.indices { words[i] &= other.words[i] }
    }

    @inlinable package mutating func formUnion(_ other: RowSet) {
        for i in words.indices { words[i] |= other.words[i] }
    }

    /// How many rows are in the set.
    @inlinable package var population: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// The positions in the set, ascending.
    @inlinable package var positions: [Int32] {
        var out: [Int32] = []
        out.reserveCapacity(population)
        for (w, word) in words.enumerated() {
            var bits = word
            while bits != 0 {
                out.append(Int32(w << 6 + bits.trailingZeroBitCount))
                bits &= bits - 1
            }
        }
        return out
    }
}
