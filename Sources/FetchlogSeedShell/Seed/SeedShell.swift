import FetchlogCore
import FetchlogShell
import FetchlogSources

/// Helpers the seed sources' shell commands share.
enum SeedShell {
    /// `, bytes held` when the store holds the asset's bytes.
    static func heldNote(_ session: any ShellContext, _ url: String) -> String {
        AssetsView(state: session.state).asset(url)?.info != nil ? ", bytes held" : ""
    }
}

/// What only a shell needs of the seed sources: their commands, their `fetch` grammar and
/// the demo (the store needs `SeedSources.registry` alone).
extension SeedSources {
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
            // `help items` and its kin on a store that defines no source by a manifest.
            "defined:items": "items census gnomes" + definedSteps, "defined:item": "item census gnomes 0" + definedSteps,
            "defined:facets": "facets census gnomes" + definedSteps, "defined:links": "links census gnomes 0" + definedSteps,
        ])

    /// What makes the `defined:` examples run: the manifest the repository ships, fetched.
    static let definedSteps = "   (once defined and fetched: source add docs/manifests/census.json, then fetch census gnomes)"

    /// Fetches one after another, reporting each as it ends (`FetchRequest.each`).
    static func each(_ resources: [Resource], _ store: Store, _ report: @Sendable (FetchReport) -> Void) async throws -> [FetchReport] {
        try await FetchRequest.each(resources, store: store, report: report)
    }

    /// The seed sources with their commands, `fetch` targets and demo: the command line's.
    public static let shell = ShellRegistry(registry, commands: commands, fetchTargets: fetchTargets, demo: demo)
}
