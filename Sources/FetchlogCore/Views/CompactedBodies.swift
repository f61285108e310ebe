/// What a view cannot answer at a point before the compaction horizon: the resources it
/// reads whose body there `log compact` dropped.
package struct CompactedBodiesNotice: Sendable, Equatable, CustomStringConvertible {
    package let view: String
    package let seq: UInt64
    /// Each resource and the seq of the event whose body was dropped, in resource order.
    package let resources: [(key: ResourceKey, seq: UInt64)]

    package init(view: String, seq: UInt64, resources: [(key: ResourceKey, seq: UInt64)]) {
        self.view = view
        self.seq = seq
        self.resources = resources
    }

    package static func == (a: Self, b: Self) -> Bool {
        a.view == b.view && a.seq == b.seq && a.resources.map(\.key) == b.resources.map(\.key) && a.resources.map(\.seq) == b.resources.map(\.seq)
    }

    /// The notice for `view` read from `state`; nil when it reads no compacted body.
    package static func check(view: String, state: LogState) -> CompactedBodiesNotice? {
        guard !state.compactedBodies.isEmpty else { return nil }
        let read = sources(of: view, in: state)
        let hit = state.compactedBodies.filter { read?.contains($0.key.source) ?? true }
            .sorted { $0.key < $1.key }.map { (key: $0.key, seq: $0.value) }
        return hit.isEmpty ? nil : CompactedBodiesNotice(view: view, seq: state.seq, resources: hit)
    }

    /// The sources a view reads; nil when it cannot be told (then: any).
    private static func sources(of view: String, in state: LogState) -> Set<String>? {
        if let fixed = state.sources.views.first(where: { $0.name == view }) { return fixed.sources }
        let parts = view.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count >= 2, parts[0] == "items" || parts[0] == "facets" || parts[0] == "links" { return [String(parts[1])] }
        return nil
    }

    package var description: String {
        let list = resources.prefix(10).map { "\($0.key.source) \($0.key.path) (its body at seq \($0.seq))" }.joined(separator: ", ")
            + (resources.count > 10 ? ", … \(resources.count - 10) more" : "")
        let count = resources.count == 1 ? "the body of 1 resource" : "the bodies of \(resources.count) resources"
        return "at seq \(seq), \(count) that \(view) reads \(resources.count == 1 ? "was" : "were") compacted away (`log compact` dropped bodies a later one superseded): \(list)"
    }
}
