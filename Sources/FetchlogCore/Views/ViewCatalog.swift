/// Every view by its export name: what `export VIEW` and `replay` know, from the
/// state's registry (`LogState.sources`).
public enum ViewCatalog {
    /// Views with a fixed name, in the order replay prints them.
    package static func fixedNames(in sources: SourceRegistry) -> [String] { sources.views.map(\.name) }

    /// The sources whose events feed each view (for replay's "events applied").
    package static func sources(in registry: SourceRegistry) -> [String: Set<String>] {
        Dictionary(uniqueKeysWithValues: registry.views.map { ($0.name, $0.sources) })
    }

    /// The sources whose events can change view `name`: its declared sources, plus asset
    /// downloads (a view may show an image as failing) and manifest definitions (which
    /// re-read held pages). For `items/SOURCE/…` and `facets/SOURCE/…`, that source. Nil
    /// when not known (the status view, parameterized views): then observers compute the
    /// view for every snapshot.
    package static func inputs(of name: String, in registry: SourceRegistry) -> Set<String>? {
        let always: Set<String> = [Source.assets.rawValue, ManifestDefinition.source]
        if name != StatusView.viewName, let view = registry.views.first(where: { $0.name == name }) { return view.sources.union(always) }
        for prefix in ["items/", "facets/"] where name.hasPrefix(prefix) {
            let source = name.dropFirst(prefix.count).split(separator: "/").first.map(String.init)
            if let source, !registry.parameterizedViews.contains(where: { name.hasPrefix($0.prefix) }) { return always.union([source]) }
        }
        return nil
    }

    /// The canonical export of `name` (a parameterized view such as `show/ID`, or `all`
    /// for every fixed view).
    public static func export(_ name: String, state: LogState) throws(ViewNameError) -> JSONValue {
        let registry = state.sources
        if let view = registry.views.first(where: { $0.name == name }) { return view.export(state) }
        if name == "all" {
            let members = registry.views.map { ($0.name, $0.export(state)) }
            return .object([("view", .string("all")), ("asOf", .number(state.seq)), ("views", .object(members))])
        }
        // Manifest sources held in the state bring the generic items view with them.
        let extra = state.manifests.isEmpty || registry.parameterizedViews.contains { $0.prefix == "items/" }
            ? [] : [ItemsView.definition, FacetsView.definition]
        for view in registry.parameterizedViews + extra where name.hasPrefix(view.prefix) {
            if let json = view.export(state, String(name.dropFirst(view.prefix.count))) { return json }
        }
        throw ViewNameError(name: name, known: registry.exportNames + extra.map(\.pattern))
    }

    /// Every name `export(_:state:)` answers for `state`: the registry's views and patterns,
    /// then each resource of each source a manifest defined, by its own name
    /// (`items/catalog/items`, `facets/catalog/items`), in source and resource order.
    public static func exportNames(in state: LogState) -> [String] {
        let defined = state.manifests.keys.sorted().flatMap { source in
            state.manifests[source]!.manifest.resources.flatMap { ["items/\(source)/\($0.name)", "facets/\(source)/\($0.name)"] }
        }
        return state.sources.exportNames + defined
    }

    /// SHA-256 of each fixed view's canonical export, then of each manifest resource's items
    /// (`items/SOURCE/RESOURCE`): the user's own sources are views like the seeds' (issue 36),
    /// so `replay` and `replay --verify` name them too.
    package static func hashes(of state: LogState) -> [(view: String, sha256: String)] {
        let fixed = state.sources.views.map { view in (view: view.name, sha256: SHA256.hex(view.export(state).canonicalText())) }
        let items = ViewRecord.names(in: state).dropFirst(state.sources.views.count).compactMap { name -> (view: String, sha256: String)? in
            (try? export(name, state: state)).map { (name, SHA256.hex($0.canonicalText())) }
        }
        return fixed + items
    }
}

/// An `export` of a view no registered source offers; lists the ones that exist.
public struct ViewNameError: Error, CustomStringConvertible, Equatable {
    /// The name asked for.
    public let name: String
    /// Every name that would have been accepted.
    public let known: [String]
    /// No view named `name`; `known` lists the names that exist.
    package init(name: String, known: [String]) {
        self.name = name
        self.known = known
    }
    /// The unknown name, the likeliest one meant, and every name that exists.
    public var description: String {
        "no view named '\(name)'\(Suggest.didYouMean(name, known)): views are \(known.joined(separator: ", "))"
    }
}

/// "did you mean" for a mistyped word (Levenshtein distance, small).
package enum Suggest {
    package static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var row = Array(0 ... b.count)
        for i in 1 ... a.count {
            var previous = row[0]
            row[0] = i
            for j in 1 ... b.count {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }

    /// ` (did you mean 'x'?)`, or empty when nothing is close.
    package static func didYouMean(_ word: String, _ options: [String]) -> String {
        guard let best = options.min(by: { distance(word, $0) < distance(word, $1) }),
              distance(word, best) <= max(2, best.count / 3) else { return "" }
        return " (did you mean '\(best)'?)"
    }
}
