/// "Change the reading, not the data": what a new definition of a source would make of the
/// bodies already held — per resource, the items it would add, remove and change — with
/// nothing fetched and nothing written.
public struct ManifestTrial: Sendable, Equatable {
    /// What the new reading would change in one resource.
    public struct ResourceChange: Sendable, Equatable {
        /// The resource's name.
        public let resource: String
        /// Items the current definition reads from the held bodies.
        public let before: Int
        /// Items the new definition would read from the same bodies.
        public let after: Int
        /// Primary keys (canonical JSON text) of the items only the new reading has.
        public let added: [String]
        /// …only the current reading has.
        public let removed: [String]
        /// Items in both whose values differ, with the fields that differ (sorted).
        public let changed: [(key: String, fields: [String])]
        /// An incremental resource's next first request under the new reading (its start
        /// value from the items it would hold); nil for other resources.
        public var next: String? = nil

        /// Equal when every count, key and changed field is equal.
        public static func == (a: ResourceChange, b: ResourceChange) -> Bool {
            a.next == b.next && a.resource == b.resource && a.before == b.before && a.after == b.after && a.added == b.added && a.removed == b.removed
                && a.changed.elementsEqual(b.changed) { $0.key == $1.key && $0.fields == $1.fields }
        }
    }

    /// The manifest source tried.
    public let source: String
    /// Per resource of either definition, in the new definition's order, then the removed ones.
    public let resources: [ResourceChange]

    /// The trial of `manifest` on `state` (pure: the state is not changed).
    public init(_ manifest: RestManifest, on state: LogState) {
        source = manifest.name
        var tried = state
        let event = Event(recordedAt: Timestamp(milliseconds: 0), kind: .intent, source: ManifestDefinition.source,
                          label: ManifestDefinition.label, body: Array(manifest.json.canonicalText().utf8))
        ManifestDefinition.apply(event, to: &tried)
        let current = state.manifests[manifest.name]?.manifest
        var names = manifest.resources.map(\.name)
        for resource in current?.resources ?? [] where !names.contains(resource.name) { names.append(resource.name) }
        resources = names.map { name in
            let before = ItemsView(state: state, source: manifest.name, resource: name)?.items ?? []
            let after = ItemsView(state: tried, source: manifest.name, resource: name)?.items ?? []
            let key = manifest.resource(name)?.primaryKey ?? current?.resource(name)?.primaryKey ?? []
            var change = Self.compare(name, before, after, key: key)
            if let resource = manifest.resource(name), resource.incremental != nil, resource.parent == nil {
                change.next = resource.preparedForFetch(held: after).firstPageLabel
            }
            return change
        }
    }

    /// Items matched by primary key (by position when the resource has none).
    static func compare(_ name: String, _ before: [JSONValue], _ after: [JSONValue], key: [String]) -> ResourceChange {
        func keyed(_ items: [JSONValue]) -> [(String, JSONValue)] {
            items.enumerated().map { index, item in
                (key.isEmpty ? "#\(index)" : JSONValue.array(key.map { item[$0] ?? .null }).canonicalText(), item)
            }
        }
        let old = keyed(before), new = keyed(after)
        let oldByKey = Dictionary(old, uniquingKeysWith: { first, _ in first })
        let newByKey = Dictionary(new, uniquingKeysWith: { first, _ in first })
        let added = new.map(\.0).filter { oldByKey[$0] == nil }
        let removed = old.map(\.0).filter { newByKey[$0] == nil }
        var changed: [(key: String, fields: [String])] = []
        for (key, item) in new {
            guard let was = oldByKey[key], was != item else { continue }
            changed.append((key, differingFields(was, item)))
        }
        return ResourceChange(resource: name, before: before.count, after: after.count, added: added, removed: removed, changed: changed)
    }

    static func differingFields(_ a: JSONValue, _ b: JSONValue) -> [String] {
        guard case .object(let x) = a, case .object(let y) = b else { return ["$"] }
        let names = Set(x.map(\.0)).union(y.map(\.0))
        return names.filter { a[$0] != b[$0] }.sorted()
    }
}
