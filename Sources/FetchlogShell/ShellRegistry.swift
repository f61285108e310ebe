import FetchlogCore

/// What a shell serves: the engine's sources (a `SourceRegistry`, all the store needs) and
/// what only a shell needs of them — their commands, their `fetch SOURCE WHAT` grammar,
/// and the plan `demo` and `tour` run. The engine never sees this half: a library client
/// opens a store with `sources` alone. Built once, then immutable.
///
/// ```swift
/// let shell = ShellRegistry(SourceRegistry([MyAPI()], views: [MyAPI.itemsView]),
///                           commands: MyAPI.commands, fetchTargets: MyAPI.fetchTargets)
/// ```
public struct ShellRegistry: Sendable {
    /// The sources and views the store is opened with.
    public let sources: SourceRegistry
    /// The shell commands the sources bring, in the order `help` lists them.
    public let commands: [ShellCommand]
    /// The `fetch SOURCE WHAT` targets the sources bring, in the order `fetch --help` lists them.
    public let fetchTargets: [FetchTarget]
    /// What `demo` and `tour` run with these sources.
    public let demo: DemoPlan

    public init(_ sources: SourceRegistry, commands: [ShellCommand] = [], fetchTargets: [FetchTarget] = [], demo: DemoPlan = DemoPlan()) {
        self.sources = sources
        self.commands = commands
        self.fetchTargets = fetchTargets
        self.demo = demo
    }

    /// The engine with no plug-in, and a shell with no source command.
    public static let core = ShellRegistry(.core)

    /// The fetch target `source what`, nil when none is registered.
    public func fetchTarget(source: String, what: String) -> FetchTarget? {
        fetchTargets.first { $0.source == source && $0.what == what }
    }

    /// The SOURCE words `fetch` takes, in registration order.
    public var fetchSources: [String] {
        var seen = Set<String>()
        return fetchTargets.map(\.source).filter { seen.insert($0).inserted }
    }
}
