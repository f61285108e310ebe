import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// The offline-first policy against the real sample upstream over loopback, with an
/// injected clock; requests are counted from the upstream's own request log.
@Suite(.serialized) struct OfflineFirstTests {
    typealias Rig = PolicyRig

    @Test func tvmazeTimeToLiveRenewsOnOpenAndRefetchesPageZeroAfterIt() async throws {
        let rig = try await Rig.start()
        let page0 = "/tvmaze/shows?page=0"
        try await rig.policy.open(.tvmazeShowsPage(0))
        await rig.policy.waitForBackgroundWork()
        #expect(await rig.requests(page0) == 1)

        rig.at(minute: 5)
        let opened = try await rig.policy.open(.tvmazeShowsPage(0))
        #expect(opened.freshness.level == .fresh)
        #expect(opened.freshness.validUntil == Timestamp(iso8601: "2026-11-22T08:20:00.000Z"))
        await rig.policy.waitForBackgroundWork()
        #expect(await rig.requests(page0) == 1, "within the TTL: no request")

        rig.at(minute: 19)
        #expect(rig.policy.freshness(of: .tvmazeShowsPage(0)).level == .fresh)
        rig.at(minute: 21)
        #expect(rig.policy.freshness(of: .tvmazeShowsPage(0)).level == .stale)
        #expect(rig.policy.warning(for: .tvmazeShowsPage(0), named: "shows") == "shows last updated 16m ago (stale since 2026-11-22T08:20:00.000Z)")
        let late = try await rig.policy.open(.tvmazeShowsPage(0))
        #expect(late.snapshot.state.document(.tvmazeShowsPage(0)) != nil, "answered from held data at once")
        await rig.policy.waitForBackgroundWork()
        #expect(await rig.requests(page0) == 2, "after the TTL: exactly one request for page 0")
        #expect(rig.policy.freshness(of: .tvmazeShowsPage(0)).validUntil == Timestamp(iso8601: "2026-11-22T08:36:00.000Z"))

        // After the TTL with the upstream answering 503: old data served, warning, nothing deleted.
        await rig.upstream.setFaults([Fault(match: "/tvmaze", kind: .status(503))])
        rig.at(minute: 40)
        try await rig.policy.open(.tvmazeShowsPage(0))
        await rig.policy.waitForBackgroundWork()
        let view = ShowsView(state: rig.store.snapshot.state)
        #expect(view.count == 240)
        #expect(rig.policy.warning(for: .tvmazeShowsPage(0), named: "shows") == "offline: HTTP 503 Service Unavailable — shows last updated 19m ago")
        #expect(await rig.requests(page0) == 6, "2 successes and 4 failed attempts")
        #expect(try rig.log.verify().isHealthy)
        // The renewal at minute 5 is an event: the TTL survives a restart.
        #expect(try rig.log.events(from: 1).filter { $0.label == "renew" }.count == 1)
        await rig.stop()
    }

    @Test(arguments: [(250, 5), (100, 11)])
    func theFirstThousandItemsSurviveARestartAndTheRestDoNot(pageSize: Int, pages: Int) async throws {
        let rig = try await Rig.start { $0.tvmazePageSize = pageSize; $0.tvmazePages = pages }
        for page in 0 ..< pages { try await rig.policy.fetchShowsPage(page) }
        let session = ShowsView(state: rig.store.snapshot.state)
        #expect(session.count == pageSize * pages)
        #expect(session.show(id: 1000)?.itemIndex == 999)
        #expect(session.show(id: 1001)?.itemIndex == 1000)
        // The page past the window was never written to the log.
        let logged = try rig.log.events(from: 1).map(\.label)
        #expect(logged == (0 ..< pages - 1).map { "/shows?page=\($0)" })
        #expect(rig.store.session.events.map(\.label) == ["/shows?page=\(pages - 1)"])

        let restarted = try Store(log: rig.log, sources: .seed)
        let durable = ShowsView(state: restarted.snapshot.state)
        #expect(durable.count == 1000)
        #expect(durable.show(id: 1000) != nil)
        #expect(durable.show(id: 1001) == nil)
        await rig.stop()
    }

    @Test func pagingNearTheEndPrefetchesTheNextPageOnce() async throws {
        let rig = try await Rig.start { $0.tvmazePageSize = 250; $0.tvmazePages = 4 }
        try await rig.policy.fetchShowsPage(0)
        #expect(rig.policy.didShow(itemIndex: 100, of: .shows) == nil)
        #expect(rig.policy.didShow(itemIndex: 230, of: .shows) == .tvmazeShowsPage(1))
        #expect(rig.policy.didShow(itemIndex: 235, of: .shows) == nil)
        #expect(rig.policy.didShow(itemIndex: 249, of: .shows) == nil)
        await rig.policy.waitForBackgroundWork()
        #expect(await rig.requests("/tvmaze/shows?page=1") == 1)
        #expect(await rig.requests("/tvmaze/shows?page=2") == 0)
        #expect(ShowsView(state: rig.store.snapshot.state).count == 500)
        await rig.stop()
    }

    @Test func tenConcurrentReadsOfOneResourceShareOneRequest() async throws {
        let rig = try await Rig.start { $0.faults = [Fault(match: "/brastlewark", kind: .latency(milliseconds: 300))] }
        let reports = try await withThrowingTaskGroup(of: FetchReport.self) { group in
            for _ in 0 ..< 10 { group.addTask { try await rig.store.fetch(.brastlewarkCensus) } }
            var all: [FetchReport] = []
            for try await report in group { all.append(report) }
            return all
        }
        #expect(reports.count == 10)
        #expect(reports.allSatisfy { $0.outcome == .fetched && $0.attempts.map(\.seq) == [1] })
        #expect(await rig.requests("/brastlewark/data.json") == 1)
        #expect(try rig.log.count() == 1)
        await rig.stop()
    }

    @Test func fiveKeystrokesFiftyMillisecondsApartSendOneSearch() async throws {
        let rig = try await Rig.start()
        let clock = rig.debounceClock
        let results = try await withThrowingTaskGroup(of: (String, FetchReport?).self) { group in
            // Each keystroke lands 50 ms (on the debounce clock) after the one before,
            // well inside the 200 ms debounce; then the user pauses.
            // Asleep after each keystroke: "g" (due at 200 ms) wakes as "girl"'s 50 ms pass,
            // finds itself superseded and returns nil.
            let asleepAfter = [1, 2, 3, 4, 4]
            for (i, text) in ["g", "gi", "gir", "girl", "girls"].enumerated() {
                group.addTask { (text, try await rig.policy.searchShows(text)) }
                await clock.waitForSleepers(asleepAfter[i])
                if i < 4 { clock.advance(by: .milliseconds(50)) }
            }
            #expect(clock.sleeping == 4, "gi, gir, girl and girls are waiting out the debounce")
            clock.advance(by: .milliseconds(200))
            var all: [(String, FetchReport?)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.filter { $0.1 != nil }.map(\.0) == ["girls"])
        #expect(await rig.upstream.requestLog.map(\.path) == ["/tvmaze/search/shows?q=girls"])
        #expect(SearchView(state: rig.store.snapshot.state).shows("girls")?.results.count == 10)
        await rig.stop()
    }

    @Test func viaplayRevalidatesEveryTimeAndFallsBackToTheStoredBody() async throws {
        let rig = try await Rig.start()
        try await rig.policy.open(.viaplayRoot)
        await rig.policy.waitForBackgroundWork()
        try await rig.policy.open(.viaplayRoot)
        await rig.policy.waitForBackgroundWork()
        #expect(await rig.upstream.requestLog.map(\.status) == [200, 304])
        let title2022 = PagesView(state: rig.store.snapshot.state).root?.title

        await rig.upstream.setVersion(viaplay: .v2024)
        try await rig.policy.open(.viaplayRoot)
        await rig.policy.waitForBackgroundWork()
        #expect(await rig.upstream.requestLog.map(\.status) == [200, 304, 200])
        let held = try #require(rig.store.snapshot.state.document(.viaplayRoot))
        let stored = try #require(try rig.log.event(at: held.seq)?.body)
        #expect(bytesEqual(stored, try Fixture.bytes("viaplay/ios-se-root-2024.json")))
        #expect(PagesView(state: rig.store.snapshot.state).root?.title != nil)
        #expect(title2022 != nil)

        await rig.upstream.stop()
        rig.at(minute: 3)
        try await rig.policy.open(.viaplayRoot)
        await rig.policy.waitForBackgroundWork()
        #expect(rig.store.snapshot.state.document(.viaplayRoot)?.seq == held.seq, "the stored body is still served")
        #expect(rig.policy.warning(for: .viaplayRoot, named: "pages") == "offline: connection refused — pages last updated 3m ago")
        await rig.fetcher.shutdown()
    }

    @Test func aHeldCensusIsNotRefetchedUntilForced() async throws {
        let rig = try await Rig.start()
        try await rig.policy.open(.brastlewarkCensus)
        await rig.policy.waitForBackgroundWork()
        rig.at(minute: 60 * 24 * 30)
        let opened = try await rig.policy.open(.brastlewarkCensus)
        #expect(opened.freshness.level == .fresh)
        await rig.policy.waitForBackgroundWork()
        #expect(await rig.requests("/brastlewark/data.json") == 1)
        try await rig.policy.open(.brastlewarkCensus, force: true)
        await rig.policy.waitForBackgroundWork()
        #expect(await rig.upstream.requestLog.map(\.status) == [200, 304])
        await rig.stop()
    }

    @Test func offlineForbidsTheNetwork() async throws {
        let rig = try await Rig.start()
        var configuration = rig.fetcher.configuration
        configuration.offline = true
        let offline = Fetcher(sources: .seed, configuration: configuration)
        let report = try await Store(log: rig.log, sources: .seed, fetcher: offline).fetch(.brastlewarkCensus)
        // The engine names the setting; the command line says `--offline` (CommandLineTerms).
        #expect(report.outcome == .failed(.transport, "offline: the network is not used (FetchConfiguration.offline)"))
        #expect(report.attempts.isEmpty)
        #expect(await rig.upstream.requestLog.isEmpty)
        #expect(try rig.log.count() == 0)
        await offline.shutdown()
        await rig.stop()
    }

    @Test func cacheControlMaxAgeAndAgeReplaceTheDefaultTimeToLive() {
        var state = LogState(sources: .seed)
        var b = StateBuilder()
        b.append(Event(recordedAt: Timestamp(milliseconds: 0), kind: .fetched, source: "artic", label: "/api/v1/agents/2",
                       response: Event.Response(status: 200, headers: [Header("Cache-Control", "public, max-age=600"), Header("Age", "100")]),
                       body: Array(#"{"data":{"id":2,"title":"A"}}"#.utf8)))
        state = b.state
        let policy = FreshnessPolicy(sources: .seed)
        let f = policy.evaluate(ResourceKey(.articAgent(2)), in: state, now: Timestamp(milliseconds: 499_000))
        #expect(f.level == .fresh)
        #expect(f.validUntil == Timestamp(milliseconds: 500_000))
        #expect(policy.evaluate(ResourceKey(.articAgent(2)), in: state, now: Timestamp(milliseconds: 500_000)).level == .stale)
        #expect(AgeText.describe(milliseconds: 8_040_000) == "2h 14m")
        #expect(AgeText.describe(milliseconds: 45_000) == "45s")
    }
}
