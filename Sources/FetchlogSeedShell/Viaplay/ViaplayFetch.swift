import FetchlogCore
import FetchlogShell
import FetchlogSources

/// `fetch viaplay root|page HREF`.
enum ViaplayFetch {
    static let targets: [FetchTarget] = [
        FetchTarget(source: "viaplay", what: "root", synopsis: "viaplay root") { try await $0.one(.viaplayRoot) },
        FetchTarget(source: "viaplay", what: "page", synopsis: "viaplay page HREF") { request in
            let href = try request.text()
            let upstream = request.store.fetcher?.configuration.upstream ?? .real
            guard let resource = Resource.viaplayPage(href, upstream: upstream) else {
                throw ShellError.usage("'\(href)' is not a viaplay page: give a path (/ios-se/serier) or a content.viaplay URL")
            }
            return try await request.one(resource)
        },
    ]
}
