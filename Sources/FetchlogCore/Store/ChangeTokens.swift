import Synchronization

/// Which parts of a state moved, for observers — not part of the state's value (`LogState`'s
/// `==` ignores it, checkpoints do not hold it).
///
/// Every event the reducer applies gives its source a token never handed out before in this
/// process, and every state made from nothing (a replay, a restored checkpoint) a fresh
/// epoch. So two states with the same epoch and the same token for a source hold the same
/// events of that source: a view that reads only some sources is unchanged while their
/// tokens are, and an observer of it need not even compute it (`Store.observe(view:)`).
/// Tokens, not counters: states forked from one (an outbox folded on top, a pinned past)
/// can never meet again at equal numbers with different contents.
package struct ChangeTokens: Sendable {
    private static let next = Atomic<UInt64>(0)
    static func fresh() -> UInt64 { next.wrappingAdd(1, ordering: .relaxed).newValue }

    /// Fresh for every state made from nothing.
    package let epoch: UInt64 = ChangeTokens.fresh()
    /// Source → the token of the last event of it applied; absent: none since the epoch.
    private var bySource: [String: UInt64] = [:]

    init() {}

    mutating func bump(_ source: String) { bySource[source] = Self.fresh() }

    /// What identifies the part of the state `sources` own: equal keys, equal parts.
    package func key(for sources: Set<String>) -> [UInt64] {
        [epoch] + sources.sorted().map { bySource[$0] ?? 0 }
    }
}
