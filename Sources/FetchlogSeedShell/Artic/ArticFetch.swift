import FetchlogCore
import FetchlogShell
import FetchlogSources

/// `fetch artic artworks|artwork|artist` and `fetch assets artworks`.
enum ArticFetch {
    static let targets: [FetchTarget] = [
        FetchTarget(source: "artic", what: "artworks", synopsis: "artic artworks [--pages 1-3] [--limit 12]") { request in
            guard (1 ... 100).contains(request.limit) else { throw ShellError.usage("--limit takes 1 to 100") }
            return try await request.store.fetchArticArtworks(pages: try request.pageSelection(default: "1"), limit: request.limit,
                                                              onReport: request.report)
        },
        FetchTarget(source: "artic", what: "artwork", synopsis: "artic artwork ID") { try await $0.one(.articArtwork(try $0.intValue("an artwork id"))) },
        FetchTarget(source: "artic", what: "artist", synopsis: "artic artist ID") { try await $0.one(.articAgent(try $0.intValue("an artist id"))) },
        FetchTarget(source: "artic", what: "agent", synopsis: nil) { try await $0.one(.articAgent(try $0.intValue("an artist id"))) },
    ]
    static let assetTargets: [FetchTarget] = [
        FetchTarget(source: "assets", what: "artworks", synopsis: "assets artworks") { request in
            try await request.policy.fetchArtworkImages(concurrency: request.concurrency, progress: request.assetProgress)
        },
    ]
}
