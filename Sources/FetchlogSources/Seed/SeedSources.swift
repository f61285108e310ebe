import FetchlogCore
import Logging

/// The five seed sources — TVmaze, Brastlewark, Viaplay, Thmanyah, ARTIC — and their views,
/// registered as plug-ins on the engine's public API like any other source.
public enum SeedSources {
    public static let plugins: [any SourcePlugin] = [TVMazeSource(), BrastlewarkSource(), ViaplaySource(), ThmanyahSource(), ArticSource()]

    public static let views: [ViewDefinition] = [
        ViewDefinition(ArtistsView.self, sources: ["artic"], make: ArtistsView.init),
        ViewDefinition(ArtworksView.self, sources: ["artic"], make: ArtworksView.init),
        ViewDefinition(FiltersView.self, sources: ["brastlewark"], make: FiltersView.init),
        ViewDefinition(FriendsView.self, sources: ["brastlewark"], make: FriendsView.init),
        ViewDefinition(GnomesView.self, sources: ["brastlewark"], make: GnomesView.init),
        ViewDefinition(PagesView.self, sources: ["viaplay"], make: PagesView.init),
        ViewDefinition(SearchView.self, sources: ["thmanyah", "tvmaze"], make: SearchView.init),
        ViewDefinition(SectionsView.self, sources: ["thmanyah"], make: SectionsView.init),
        ViewDefinition(ShowsView.self, sources: ["tvmaze"], make: ShowsView.init),
    ]

    public static let parameterizedViews: [ParameterizedView] = [
        ParameterizedView(prefix: "show/", pattern: "show/ID") { state, parameter in
            guard let id = Int(parameter), id >= 0 else { return nil }
            return ShowDetailView(state: state, id: id).export(asOf: state.seq)
        },
    ]

    /// The seed sources' shell commands, in the order `help` lists them.
    public static let commands: [ShellCommand] = TVMazeCommands.commands + SearchCommand.commands + BrastlewarkCommands.commands
        + ViaplayCommands.commands + ThmanyahCommands.commands + ArticCommands.commands

    /// `fetch SOURCE WHAT` for each seed source, then the image downloads, in `fetch --help` order.
    public static let fetchTargets: [FetchTarget] = TVMazeFetch.targets + BrastlewarkFetch.targets + ViaplayFetch.targets
        + ThmanyahFetch.targets + ArticFetch.targets
        + TVMazeFetch.assetTargets + BrastlewarkFetch.assetTargets + ArticFetch.assetTargets

    /// `demo`: the first pages of every source; `tour`: a fetch of each kind, a 304, a failing
    /// upstream; and the examples of the engine's commands on the demo store.
    public static let demo = DemoPlan(
        firstFetches: [
            .tvmazeShowsPage(0), .tvmazeShow(1), .tvmazeImages(1), .tvmazeEpisodes(1), .brastlewarkCensus,
            .viaplayRoot, .thmanyahHome(1), .articArtworks(page: 1, limit: 12),
        ],
        tour: [
            TourStep("tvmaze shows --pages all") { store, report in try await store.fetchTVMazeShows(pages: .all, onReport: report) },
            TourStep("tvmaze show 1 --with images,episodes") { store, report in
                try await each([.tvmazeShow(1), .tvmazeImages(1), .tvmazeEpisodes(1)], store, report)
            },
            TourStep("brastlewark census") { store, report in try await each([.brastlewarkCensus], store, report) },
            TourStep("brastlewark census   (again: a conditional request, 304, no body stored twice)") { store, report in
                try await each([.brastlewarkCensus], store, report)
            },
            TourStep("viaplay root") { store, report in try await each([.viaplayRoot], store, report) },
            TourStep("thmanyah home --pages 1-2") { store, report in try await store.fetchThmanyahHome(pages: .range(1 ... 2), onReport: report) },
            TourStep("artic artworks --pages 1-2 --limit 5") { store, report in
                try await store.fetchArticArtworks(pages: .range(1 ... 2), limit: 5, onReport: report)
            },
            TourStep("artic artist 2") { store, report in try await each([.articAgent(2)], store, report) },
            TourStep("brastlewark census   (the upstream now fails 5 times: 4 attempts, held data kept)",
                     failures: (prefix: "/brastlewark", count: 5)) { store, report in try await each([.brastlewarkCensus], store, report) },
        ],
        examples: [
            "help": "help shows", "fetch": "fetch tvmaze show 1",
            "asset": "asset show https://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg",
        ])

    /// Fetches one after another, reporting each as it ends.
    static func each(_ resources: [Resource], _ store: Store, _ report: @Sendable (FetchReport) -> Void) async throws -> [FetchReport] {
        var reports: [FetchReport] = []
        for resource in resources {
            let fetched = try await store.fetch(resource)
            report(fetched)
            reports.append(fetched)
        }
        return reports
    }

    /// The engine with the five seed sources.
    public static let registry = SourceRegistry(plugins, views: views, parameterizedViews: parameterizedViews, commands: commands,
                                                fetchTargets: fetchTargets, demo: demo)
}

extension SourceRegistry {
    /// The five seed sources and their views (`SeedSources.registry`).
    public static var seed: SourceRegistry { SeedSources.registry }
}

// Conveniences for callers of the seed sources alone: the engine's initialisers without
// a registry, using `SourceRegistry.seed`.

extension LogState {
    /// An empty state of the seed sources.
    public init() { self.init(sources: .seed) }
}

extension LogReducer {
    public static func fold<S: Sequence>(_ events: S) -> LogState where S.Element == Event { fold(events, sources: .seed) }
}

extension FreshnessPolicy {
    /// The seed sources' own rules (sources.md).
    public init() { self.init(sources: .seed) }
}

extension Fetcher {
    package convenience init(log: EventLog, configuration: FetchConfiguration = FetchConfiguration()) {
        self.init(log: log, sources: .seed, configuration: configuration)
    }
}

extension Store {
    package convenience init(log: EventLog, fetcher: Fetcher? = nil, clock: any WallClock = SystemClock(),
                            logger: Logger = FetchlogLogging.logger(label: "fetchlog.store")) throws {
        try self.init(log: log, sources: fetcher?.sources ?? .seed, fetcher: fetcher, clock: clock, logger: logger)
    }

    package static func replay(_ log: EventLog, to seq: UInt64? = nil, isCancelled: () -> Bool = { Task.isCancelled },
                              progress: (_ seq: UInt64, _ last: UInt64) -> Void = { _, _ in }) throws -> (state: LogState, events: [String: Int]) {
        try replay(log, sources: .seed, to: seq, isCancelled: isCancelled, progress: progress)
    }

    package static func fullReplay(_ log: EventLog, to seq: UInt64? = nil, isCancelled: () -> Bool = { Task.isCancelled },
                                  progress: (_ seq: UInt64, _ last: UInt64) -> Void = { _, _ in }) throws -> LogState {
        try fullReplay(log, sources: .seed, to: seq, isCancelled: isCancelled, progress: progress)
    }
}

extension Checkpoint {
    package static func decode(_ bytes: [UInt8], log: EventLog) throws -> LogState? { try decode(bytes, log: log, sources: .seed) }
}

extension ViewCatalog {
    /// The seed registry's fixed view names.
    public static var fixedNames: [String] { fixedNames(in: .seed) }
    public static var exportNames: [String] { SourceRegistry.seed.exportNames }
    public static var sources: [String: Set<String>] { sources(in: .seed) }
}

extension Source {
    /// The five seed sources.
    public static var dataSources: [Source] { SourceRegistry.seed.sources }
}

extension DocumentKind {
    /// Every document kind of the seed sources, and the core's `asset`.
    public static let seedKinds: [DocumentKind] = [
        .tvmazeShowsPage, .tvmazeShow, .tvmazeImages, .tvmazeEpisodes, .tvmazeSearch, .brastlewarkCensus, .viaplayPage,
        .thmanyahHome, .thmanyahSearch, .articArtworks, .articArtwork, .articAgent, .asset,
    ]
}

extension DocumentDecoder {
    /// Decodes a body of one of the seed kinds with its source's plug-in (the source is the
    /// kind's name up to its first dot: `tvmaze.show` is TVmaze's).
    public static func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        let source = kind == .asset ? Source.assets.rawValue : String(kind.rawValue.prefix { $0 != "." })
        guard let plugin = SourceRegistry.seed.plugin(source) else {
            throw DecodeError(path: "$", reason: "no seed source decodes '\(kind)'")
        }
        return try plugin.decode(kind, body: body)
    }
}
