import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Issue 14: two processes share one store, and each revalidates with the newest
/// validators in the log — whoever fetched them. Process B is this test process (a store
/// kept open, as a shell would); process A is a `fetchlog fetch` command run beside it.
///
/// Before: the fetcher kept its own index of validators, built from the log once and then
/// updated only by its own appends, so B went on sending the ETag of the body it had fetched
/// itself, and the upstream answered with the whole body again instead of a 304.
@Suite struct SharedStoreRevalidationTests {
    @Test func processBRevalidatesWithTheETagProcessAFetched() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        defer { Task { await upstream.stop() } }
        let dir = TemporaryDirectory("shared-store")
        let log = try EventLog.open(at: dir.path)
        defer { log.close() }
        var configuration = FetchHarness.patientConfiguration(base: base)
        configuration.clock = SystemClock()
        let fetcher = Fetcher(sources: .seed, configuration: configuration)
        defer { Task { await fetcher.shutdown() } }
        let b = try Store(log: log, sources: .seed, fetcher: fetcher)

        // B fetches the Viaplay root (the 2022 recording): 200 with the first ETag.
        #expect(try await b.fetch(.viaplayRoot).outcome == .fetched)
        let first = try #require(b.snapshot.state.status[ResourceKey(.viaplayRoot)]?.etag)

        // The upstream moves to the 2024 recording; A, another process, fetches the root:
        // conditional on B's ETag, answered with the new body and a second ETag.
        await upstream.setVersion(viaplay: .v2024)
        let a = try await runFetchlog(["--store", dir.path, "--upstream", base, "fetch", "viaplay", "root"])
        #expect(a.status == 0, "\(a.stderr)")
        let events = try log.events(from: 1)
        #expect(events.map(\.kind) == [.fetched, .fetched])
        let second = try #require(events.last?.response?.header("ETag"))
        #expect(second != first)

        // B revalidates: it sends A's ETag, and the upstream answers 304.
        let report = try await b.fetch(.viaplayRoot)
        #expect(report.outcome == .notModified)
        let asked = await upstream.requestLog.filter { $0.path.hasPrefix("/viaplay") }
        #expect(asked.map(\.status) == [200, 200, 304])
        #expect(asked.map(\.ifNoneMatch) == [nil, first, second])
        // And B's state holds A's body, confirmed by B's 304.
        let status = try #require(b.snapshot.state.status[ResourceKey(.viaplayRoot)])
        #expect(status.lastSuccessSeq == 2)
        #expect(status.etag == second)
        #expect(try log.events(from: 3).map(\.kind) == [.notModified])
    }
}
