import Foundation
import SampleUpstream
import Synchronization
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// `SyncRunner.run`, the loop `fetchlog sync` runs without `--once`: driven by a clock the
/// test moves, so a day of syncing takes no wall-clock time.
@Suite struct SyncLoopTests {
    static let manifest = #"""
    {"name":"catalog","client":{"base_url":"https://catalog.example"},"resource_defaults":{"primary_key":"id"},"resources":[
      {"name":"items","endpoint":{"path":"pages","data_selector":"data",
        "paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}},"fetchlog":{"ttl":"15m"}},
      {"name":"notes","endpoint":{"path":"notes","data_selector":"data","paginator":"single_page"},"fetchlog":{"ttl":"40m"}}
    ]}
    """#

    @Test func oneWakeUpPerDueTimeAndOneConditionalRequestPerLifetime() async throws {
        let rig = try await ClockedRig.start("sync-loop", manifest: Self.manifest)
        let (upstream, clock, fetcher, store) = (rig.upstream, rig.clock, rig.fetcher, rig.store)

        let passes = Mutex<[SyncPass]>([])
        var runner = SyncRunner(store: store, policy: FreshnessPolicy(sources: .seed), clock: clock)
        runner.onEvent = { event in
            if case .passed(let pass) = event { passes.withLock { $0.append(pass) } }
        }
        let sleeper = ClockSleeper(clock: clock, stopAfter: 5)
        await #expect(throws: CancellationError.self) { try await runner.run(sleeper: sleeper) }

        let t0 = fixedTime.milliseconds
        let minute: Int64 = 60_000
        // Wake-ups exactly when something falls due: items every 15 minutes, notes at 40.
        #expect(sleeper.asked.withLock { $0 } == [15, 30, 40, 45, 60].map { Timestamp(milliseconds: t0 + $0 * minute) })
        let done = passes.withLock { $0 }
        #expect(done.map(\.at) == [0, 15, 30, 40, 45].map { Timestamp(milliseconds: t0 + $0 * minute) })
        #expect(done.map { $0.rows.map { "\($0.target) \($0.outcome.name)" } } == [
            ["catalog/items refreshed", "catalog/notes refreshed"],
            ["catalog/items not-modified", "catalog/notes fresh"],
            ["catalog/items not-modified", "catalog/notes fresh"],
            ["catalog/items fresh", "catalog/notes not-modified"],
            ["catalog/items not-modified", "catalog/notes fresh"],
        ])
        // At the server: the first pass's 200s, then one conditional request per page per lifetime.
        let log = await upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }.map { "\($0.status) \($0.path)" }
        let items = ["/catalog/pages?page=1", "/catalog/pages?page=2", "/catalog/pages?page=3"]
        // (The first pass asks both resources side by side: their requests interleave.)
        #expect(log.prefix(4).sorted() == (items.map { "200 " + $0 } + ["200 /catalog/notes"]).sorted())
        let revalidated: [String] = items.map { "304 " + $0 }
        var later: [String] = revalidated + revalidated
        later.append("304 /catalog/notes")
        later += revalidated
        #expect(Array(log.dropFirst(4)) == later)
        await store.close()
        await fetcher.shutdown()
        await upstream.stop()
    }
}
