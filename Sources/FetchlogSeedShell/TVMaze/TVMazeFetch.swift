import FetchlogCore
import FetchlogShell
import FetchlogSources

/// `fetch tvmaze …` and `fetch assets shows|show`.
enum TVMazeFetch {
    static let targets: [FetchTarget] = [
        FetchTarget(source: "tvmaze", what: "shows", synopsis: "tvmaze shows [--pages 0-3|all]") { request in
            // Pages starting past the durable window go to the store's session (for a
            // one-shot command, nowhere once it ends): never to the log.
            try await request.store.fetchTVMazeShows(pages: try request.pageSelection(default: "0"), onReport: request.report)
        },
        FetchTarget(source: "tvmaze", what: "show", synopsis: "tvmaze show ID [--with images,episodes]") { request in
            let id = try request.intValue("a show id")
            var resources = [Resource.tvmazeShow(id)]
            for extra in (request.with ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !extra.isEmpty {
                switch extra {
                case "images": resources.append(.tvmazeImages(id))
                case "episodes": resources.append(.tvmazeEpisodes(id))
                default: throw ShellError.usage("--with takes images and episodes, not '\(extra)'")
                }
            }
            return try await request.each(resources)
        },
        FetchTarget(source: "tvmaze", what: "search", synopsis: "tvmaze search TEXT") { request in
            try await request.one(.tvmazeSearch(try request.text()))
        },
    ]

    static let assetTargets: [FetchTarget] = [
        FetchTarget(source: "assets", what: "shows", synopsis: "assets shows [--first N]") { request in
            try await request.policy.fetchShowListImages(first: request.first, concurrency: request.concurrency, progress: request.assetProgress)
        },
        FetchTarget(source: "assets", what: "show", synopsis: "assets show ID") { request in
            let id = try request.intValue("a show id")
            guard request.store.snapshot.state.document(.tvmazeImages(id)) != nil else {
                throw ShellError.failed("the image list of show \(id) is not held: fetch tvmaze show \(id) --with images")
            }
            return try await request.policy.fetchShowDetailImage(id: id, concurrency: request.concurrency, progress: request.assetProgress)
        },
    ]
}

extension FetchRequest {
    /// Progress of a bulk download: the planned count, then each image as it ends.
    var assetProgress: AssetProgress { AssetProgress(onPlan: expect, onReport: report) }
}
