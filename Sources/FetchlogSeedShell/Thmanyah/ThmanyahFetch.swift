import FetchlogCore
import FetchlogShell
import FetchlogSources

/// `fetch thmanyah home|search`.
enum ThmanyahFetch {
    static let targets: [FetchTarget] = [
        FetchTarget(source: "thmanyah", what: "home", synopsis: "thmanyah home [--pages all|1-3]") { request in
            try await request.store.fetchThmanyahHome(pages: try request.pageSelection(default: "1"), onReport: request.report)
        },
        FetchTarget(source: "thmanyah", what: "search", synopsis: "thmanyah search TEXT") { try await $0.one(.thmanyahSearch(try $0.text())) },
    ]
}
