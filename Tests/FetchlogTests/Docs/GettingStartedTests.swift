import FetchlogCore
import FetchlogSources
import Foundation
import SampleUpstream
import Testing

/// The code of `Sources/FetchlogCore/FetchlogCore.docc/GettingStarted.md`, compiled and run
/// against the bundled sample upstream: a change to the API that breaks the article breaks
/// this test. Keep the two in step (same statements, same order).
@Suite struct GettingStartedTests {
    @Test func theArticleRunsAsWritten() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let temporary = TemporaryDirectory("getting-started")
        let directory = temporary.path

        // Open a store
        let log = try EventLog.open(at: directory)
        let sources = SeedSources.registry
        var configuration = FetchConfiguration()
        configuration.upstream = Upstream(base: base)
        let fetcher = Fetcher(sources: sources, configuration: configuration)
        let store = try Store(log: log, sources: sources, fetcher: fetcher)

        // Fetch
        let report = try await store.fetch(.brastlewarkCensus)
        #expect(report.outcome == .fetched)
        #expect(try await store.fetch(.brastlewarkCensus).outcome == .notModified)

        // Read a snapshot
        let gnomes = GnomesView(state: store.snapshot.state).gnomes
        #expect(gnomes.count == 1337)

        // Subscribe
        var pinkTinkers = GnomeFilter()
        pinkTinkers.hairColor = "Pink"
        pinkTinkers.profession = "Tinker"
        let filters = try store.observe(view: "filters")
        var changes = filters.makeAsyncIterator()
        let before = await changes.next()
        try await store.setGnomeFilter(pinkTinkers)
        let after = await changes.next()
        #expect(before?["active"]?["hairColor"] == .null)
        #expect(after?["active"]?["hairColor"] == .string("Pink"))
        #expect(after?["matchingCount"] == .number(38))

        // Export
        let json = try ViewCatalog.export("filters", state: store.snapshot.state).canonicalText()
        #expect(json.contains(#""hairColor":"Pink""#) && json.contains(#""matchingCount":38,"view":"filters"}"#), "\(json)")

        // Replay
        let replayed = try Store.replay(log, sources: sources).state
        #expect(replayed == store.durableState)

        await fetcher.shutdown()
        log.close()
        await upstream.stop()
    }
}
