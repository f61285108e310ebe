/// The sources and views an engine serves: what `Store`, `Fetcher`, replay, export and
/// the command line consult instead of naming any source. Built once, then immutable.
/// (What only a shell needs of the sources — commands, `fetch` grammar, the demo — is
/// FetchlogShell's `ShellRegistry`, which pairs one of these with them.)
///
/// The core's own source (`assets`) and views (`assets`, `status`) are always present;
/// everything else arrives as plug-ins:
///
/// ```swift
/// let sources = SourceRegistry([MyAPI()], views: [MyAPI.itemsView])
/// let store = try Store(log: log, sources: sources)
/// ```
public struct SourceRegistry: Sendable {
    /// The data sources in registration order (the core's `assets` is not among them).
    public let plugins: [any SourcePlugin]
    /// Every view with a fixed name, sorted by name (the order `replay` and `export all` use).
    public let views: [ViewDefinition]
    /// Views that take a parameter (`show/ID`).
    public let parameterizedViews: [ParameterizedView]
    private let index: [String: Int]
    private static let assets = AssetsPlugin()

    /// `plugins` must have distinct names, none of them `assets`; `views` distinct names,
    /// none of them `assets`, `status` or `all`. A clash is a programming error and traps
    /// with both names, so it is found the first time the program runs.
    public init(_ plugins: [any SourcePlugin], views: [ViewDefinition] = [], parameterizedViews: [ParameterizedView] = []) {
        var index: [String: Int] = [:]
        for (i, plugin) in plugins.enumerated() {
            precondition(plugin.source != .assets, "the source name 'assets' is the core's own")
            precondition(index.updateValue(i, forKey: plugin.source.rawValue) == nil, "two sources named '\(plugin.source)'")
        }
        self.plugins = plugins
        self.index = index
        let core = [ViewDefinition.assets, ViewDefinition.status(sources: plugins.map(\.source.rawValue) + [Source.assets.rawValue])]
        let all = views + core
        var names = Set<String>()
        for view in all { precondition(view.name != "all" && names.insert(view.name).inserted, "two views named '\(view.name)'") }
        self.views = all.sorted { $0.name < $1.name }
        // Sources defined by manifests share one generic view.
        self.parameterizedViews = parameterizedViews + (plugins.contains { $0 is ManifestSource } ? [ItemsView.definition, FacetsView.definition] : [])
    }

    /// The engine with no plug-in: assets and statuses only.
    public static let core = SourceRegistry([])

    /// The plug-in of `source` (the core's for `assets`), nil when none is registered.
    public func plugin(_ source: String) -> (any SourcePlugin)? {
        if source == Source.assets.rawValue { return Self.assets }
        return index[source].map { plugins[$0] }
    }

    /// The plug-in registered for `source` (or the core's `assets`); nil for an unknown name.
    public func plugin(_ source: Source) -> (any SourcePlugin)? { plugin(source.rawValue) }

    /// The data sources' names, in registration order.
    public var sources: [Source] { plugins.map(\.source) }

    /// Rebuilds a resource from a logged event's source and label; nil when no registered
    /// plug-in knows it.
    package func resource(source: String, label: String) -> Resource? {
        guard let plugin = plugin(source), let kind = plugin.documentKind(ofPath: label) else { return nil }
        return Resource(source: plugin.source, path: label, document: kind)
    }

    /// Decodes `body` as `resource`'s plug-in says.
    package func decode(_ resource: Resource, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        guard let plugin = plugin(resource.source) else {
            throw DecodeError(path: "$", reason: "no registered source named '\(resource.source)'")
        }
        return try plugin.decode(resource.document, body: body)
    }

    /// The real base of `resource` (its plug-in's, for its kind).
    package func realBase(of resource: Resource) -> String {
        plugin(resource.source)?.realBase(for: resource.document) ?? ""
    }

    /// Every name `export` accepts: the fixed views, each parameterized one's pattern, `all`.
    package var exportNames: [String] { views.map(\.name) + parameterizedViews.map(\.pattern) + ["all"] }
}
