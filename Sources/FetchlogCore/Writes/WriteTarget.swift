/// The resource a write goes to, as the store resolves it (issue 26): its writes are asked
/// of the manifest defining the source first, then of the registered plug-in
/// (`SourcePlugin.writes(for:)`) — one declaration, recorded and sent alike.
struct WriteTarget: Sendable {
    let source: String
    let resource: String
    let writes: ResourceWrites
    let plugin: any SourcePlugin
    /// The manifest resource, when a manifest declares the writes: its items are its
    /// `ItemsView`, its fields typed by its `columns` too.
    let rest: RestResource?

    /// The fields naming an item.
    var key: [String] { writes.key }

    /// Refuses (nothing recorded) a source no manifest defines and no plug-in is, a
    /// resource it does not have, one that declares no writes, and a plug-in's declaration
    /// that does not hold together.
    init(_ state: LogState, source: String, resource name: String) throws(WriteError) {
        guard let plugin = state.plugin(source) else {
            let names = Set(state.manifests.keys).union(state.sources.sources.map(\.rawValue)).subtracting([Source.assets.rawValue]).sorted()
            throw WriteError("no source '\(source)' is defined by a manifest or a plug-in\(Suggest.didYouMean(source, names))"
                + (names.isEmpty ? "" : ": defined are \(names.joined(separator: ", "))"))
        }
        self.source = source
        self.resource = name
        self.plugin = plugin
        if let manifest = (plugin as? ManifestSource)?.manifest {
            guard let resource = manifest.resource(name) else {
                let names = manifest.resources.map(\.name)
                throw WriteError("\(source) has no resource '\(name)'\(Suggest.didYouMean(name, names)): use \(names.joined(separator: ", "))")
            }
            guard let writes = resource.writes else {
                throw WriteError(Self.noWrites(source, name) + #"add "fetchlog": {"writes": {"create": {"method": "POST", "path": …}, …}} to the resource in the manifest"#)
            }
            self.writes = writes
            rest = resource
            return
        }
        guard let writes = plugin.writes(for: name) else {
            throw WriteError(Self.noWrites(source, name) + "the plug-in's writes(for: \"\(name)\") declares none (return a ResourceWrites from it)")
        }
        if let problem = writes.problem {
            throw WriteError("\(source) \(name): the plug-in's writes(for: \"\(name)\") does not hold together: \(problem); nothing was recorded")
        }
        self.writes = writes
        rest = nil
    }

    /// The same words whoever should have declared the writes: the remedy follows.
    static func noWrites(_ source: String, _ resource: String) -> String {
        "\(source) \(resource) declares no writes, so nothing can be sent for it: "
    }

    /// The items held, with the server's answers — and, unless `confirmedOnly`, the pending
    /// mutations — folded on top (`WriteOverlay`).
    func items(_ state: LogState, confirmedOnly: Bool = false) -> [JSONValue] {
        if rest != nil { return ItemsView(state: state, source: source, resource: resource, confirmedOnly: confirmedOnly)?.items ?? [] }
        let held = heldItems(state)
        return WriteOverlay.items(held.items, positions: { ItemsView.keyPositions(held.items, key: key) }, state: state, source: source,
                                  resource: resource, key: key, newestPage: { held.newest }, confirmedOnly: confirmedOnly) ?? held.items
    }

    /// What a write is checked against: the schema of `items(state)` (`WriteSchema`) and
    /// whether an item with a key (fields joined by `/`) is among them — for a manifest
    /// resource without reading every item when the view's last fold and its base's members
    /// are kept (`ItemsView.writeChecking`); the same answers either way.
    func checking(_ state: LogState) -> (schema: WriteSchema, holds: (String) -> Bool) {
        let items: [JSONValue]
        if rest != nil {
            let view = ItemsView(state: state, source: source, resource: resource)
            if let view, key == view.restResource.primaryKey, let fast = view.writeChecking(columns: columns) { return fast }
            items = view?.items ?? []
        } else {
            items = self.items(state)
        }
        return (WriteSchema(columns: columns, items: items), { item(key: $0, in: items) != nil })
    }

    /// The item whose key (fields joined by `/`) is `text`, as `items` shows it.
    func item(_ state: LogState, key text: String, confirmedOnly: Bool = false) -> JSONValue? {
        item(key: text, in: items(state, confirmedOnly: confirmedOnly))
    }

    /// The first of `items` whose key is `text` (as `ItemsView.item(key:)` finds it).
    func item(key text: String, in items: [JSONValue]) -> JSONValue? {
        guard !key.isEmpty else { return nil }
        let wanted = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return items.first { item in key.map { ItemsView.text(item[$0]) } == wanted }
    }

    /// The seq of the newest held body of the resource: an answer newer than it is the
    /// server's latest word on its item.
    func newestPageSeq(_ state: LogState) -> UInt64 {
        if let rest { return WriteOverlay.newestPageSeq(state, source: source, resource: rest) }
        return heldItems(state).newest
    }

    /// The types a manifest declares for its resource's fields (`columns`); a plug-in's
    /// fields are typed by its held items alone.
    var columns: [(String, String)] { rest?.columnTypes ?? [] }

    /// The credentials the resource's requests carry, as its fetches send them.
    func credentials(environment: [String: String]) throws(CredentialsError) -> Credentials {
        if let rest, let manifest = plugin as? ManifestSource {
            return try manifest.credentials(for: manifest.kind(of: rest), environment: environment)
        }
        return try plugin.credentials(environment: environment)
    }

    /// A plug-in's items as its held documents hold them (`ResourceWrites.items`), as a
    /// manifest's are read: bodies in the order they came (session-only ones, seq 0, last),
    /// deduplicated by key — first-seen order, the newest body's values.
    private func heldItems(_ state: LogState) -> (items: [JSONValue], newest: UInt64) {
        guard let read = writes.items else { return ([], 0) }
        var bodies: [(seq: UInt64, path: String, items: [JSONValue])] = []
        for (key, held) in state.documents where key.source == source {
            guard let items = read(held.document) else { continue }
            bodies.append((held.seq == 0 ? .max : held.seq, key.path, items))
        }
        bodies.sort { ($0.seq, $0.path) < ($1.seq, $1.path) }
        return (ItemsView.deduplicated(bodies.flatMap(\.items), key: key), bodies.last?.seq ?? 0)
    }
}
