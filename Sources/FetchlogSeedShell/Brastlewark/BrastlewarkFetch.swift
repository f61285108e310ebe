import FetchlogCore
import FetchlogShell
import FetchlogSources

/// `fetch brastlewark census` and `fetch assets gnomes`.
enum BrastlewarkFetch {
    static let targets: [FetchTarget] = [
        FetchTarget(source: "brastlewark", what: "census", synopsis: "brastlewark census") { try await $0.one(.brastlewarkCensus) },
    ]
    static let assetTargets: [FetchTarget] = [
        FetchTarget(source: "assets", what: "gnomes", synopsis: "assets gnomes") { request in
            try await request.policy.fetchGnomeThumbnails(concurrency: request.concurrency, progress: request.assetProgress)
        },
    ]
}
