import FetchlogCore

/// What a saved view reads, as sources whose events can change its rows: so a reader that
/// asks a saved view for every snapshot (`/api/stream`) asks it again only when one of them
/// moved, as the fixed views are (`ViewCatalog.inputs`).
package enum SavedViewInputs {
    /// The sources whose events can change saved view `name`'s rows over `state`: the
    /// inputs of each fixed view its SQL (and the saved views it names, transitively) names,
    /// the source of each `SOURCE.RESOURCE` (with downloads), and the saved views' own
    /// definitions. Nil when any event can (it reads `events`, or `status`), or it is unknown.
    /// A word that merely looks like a table's name counts as naming it: more is asked, never less.
    package static func of(_ name: String, in state: LogState) -> Set<String>? {
        var inputs: Set<String> = [SavedViews.source, Source.assets.rawValue]
        let registry = state.sources
        let fixed = Dictionary(registry.views.map { ($0.name.lowercased(), $0.name) }, uniquingKeysWith: { a, _ in a })
        let saved = Dictionary(state.savedViews.values.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        var queue = [name.lowercased()]
        var seen = Set<String>()
        while let next = queue.popLast() {
            guard seen.insert(next).inserted else { continue }
            guard let view = saved[next] else { return nil }
            let mentions = SQLText.mentions(view.sql)
            if mentions.names.contains(SQLTables.eventsName) { return nil }
            for word in mentions.names {
                if let viewName = fixed[word] {
                    guard let own = ViewCatalog.inputs(of: viewName, in: registry) else { return nil }
                    inputs.formUnion(own)
                } else if saved[word] != nil {
                    queue.append(word)
                }
            }
            for (schema, _) in mentions.qualified {
                if let source = state.manifests.keys.first(where: { $0.lowercased() == schema }) { inputs.insert(source) }
            }
        }
        return inputs
    }
}
