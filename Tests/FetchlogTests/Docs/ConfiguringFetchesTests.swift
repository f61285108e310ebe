import Foundation
import SampleUpstream
import Testing
import FetchlogCore

/// The code of `Sources/FetchlogCore/FetchlogCore.docc/ConfiguringFetches.md`, run against
/// the sample upstream: every statement of its Swift blocks is a line here, and each setting
/// is checked to do what the article says.
@Suite struct ConfiguringFetchesTests {
    struct Item: Decodable, Equatable {
        let id: Int
    }

    @Test func theArticlesSettingsDoWhatItSays() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start()
        defer { Task { await upstream.stop() } }
        let temporary = TemporaryDirectory("configuring-fetches")
        let directory = URL(filePath: temporary.path)

        var configuration = Store.Configuration()
        configuration.fetching.connectTimeout = .seconds(5)
        configuration.fetching.readTimeout = .seconds(30)
        configuration.fetching.deadline = .seconds(120)
        configuration.fetching.retry.retries = 2
        configuration.fetching.maxBodyBytes = 64 << 20
        configuration.fetching.userAgent = "my-app/1.0"
        configuration.fetching.allowPrivateHosts = true
        configuration.fetching.upstream = Upstream(base: URL(string: "http://127.0.0.1:8080"))
        #expect(configuration.fetching.upstream.base == "http://127.0.0.1:8080")
        // Here: the sample upstream, with margins the suite's load never trips.
        configuration.fetching.upstream = Upstream(base: base)
        configuration.fetching.bearTheSuitesLoad()
        var offline = Store.Configuration()
        offline.fetching.offline = true
        var reading = Store.Configuration()
        reading.fetches = false

        // A manifest whose base_url is the loopback server itself (no stand-in): allowed.
        let root = base.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let manifest = try RestManifest(json: JSONValue.parse(#"""
            {"name": "catalog", "client": {"base_url": "\#(root)/catalog"}, "resource_defaults": {"primary_key": "id"},
             "resources": [{"name": "items", "endpoint": {"path": "pages", "data_selector": "data",
                            "paginator": {"type": "page_number", "base_page": 1, "total_path": "total_pages"}}}]}
            """#))
        configuration.fetching.upstream = .real
        do {
            let store = try await Store.open(at: directory, configuration: configuration)
            let items = try await store.define(manifest).resource("items")
            #expect(try await items.fetch().map(\.outcome) == [.fetched, .fetched, .fetched])
            await store.close()
        }
        // Not allowed: nothing is sent, the message names the setting.
        var strict = configuration
        strict.fetching.allowPrivateHosts = false
        do {
            let store = try await Store.open(at: directory, configuration: strict)
            let reports = try await store.fetchManifestResource(source: "catalog", resource: "items", maxPages: 1)
            guard case .failed(_, let message)? = reports.first?.outcome else {
                Issue.record("not refused: \(reports)")
                return
            }
            #expect(message.contains("a loopback address") && message.contains("Pass FetchConfiguration.allowPrivateHosts"), "\(message)")
            await store.close()
        }
        // Offline: no request, no event; what is held still reads.
        do {
            let store = try await Store.open(at: directory, configuration: offline)
            let before = store.snapshot.seq
            let items = try store.source("catalog").resource("items")
            _ = try? await items.fetch()
            #expect(store.snapshot.seq == before)
            #expect(try items.items(as: Item.self).count == 12)
            await store.close()
        }
        // Only reading: a fetch says there is no fetcher.
        let store = try await Store.open(at: directory, configuration: reading)
        let items = try store.source("catalog").resource("items")
        await #expect(throws: StoreUsageError.noFetcher) { try await items.fetch() }
        #expect(try items.items(as: Item.self).count == 12)
        await store.close()
    }

    /// Every statement of the article's Swift blocks is a line of this file, but its store's
    /// directory: the reader's `data.fetchlog` is a temporary directory here.
    @Test func everyStatementOfTheArticleIsRunHere() throws {
        let blocks = try ArticleCode.blocks(of: "Sources/FetchlogCore/FetchlogCore.docc/ConfiguringFetches.md")
        #expect(blocks.count == 5)
        let replaced: Set = [#"let directory = URL(filePath: "data.fetchlog")"#]
        for statement in try ArticleCode.statementsNotIn(#filePath, blocks: blocks, replaced: replaced) {
            Issue.record("the article's \(statement) is not run by this test")
        }
    }
}
