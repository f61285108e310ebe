import Foundation
import SampleUpstream
import Synchronization
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// A sleeping sync wakes for a write recorded while it sleeps — made in its own process, or
/// in another — and sends it then, not when the next resource's lifetime ends (a day here).
/// The clock stands still at a fixed time, so only the write can end the sleep: the tests
/// wait for what the sync does, never for a time.
@Suite struct SyncWakeTests {
    /// `TaskSleeper`, noting what ended each sleep.
    final class NotingSleeper: SyncSleeper {
        let sleeper: TaskSleeper
        let wakes = Mutex<[TaskSleeper.Wake]>([])

        init(_ sleeper: TaskSleeper) { self.sleeper = sleeper }

        func sleep(until: Timestamp?, planned: Set<SyncWriteMark>, clock: any WallClock) async throws {
            let wake = try await sleeper.wake(until: until, planned: planned, clock: clock)
            wakes.withLock { $0.append(wake) }
        }
    }

    @Test func aWriteMadeWhileTheLoopSleepsIsSentAtOnce() async throws {
        let rig = try await ClockedRig.start("sync-wake", manifest: SyncAcceptanceTests.manifest)
        let (upstream, clock, store) = (rig.upstream, rig.clock, rig.store)

        let (passes, passed) = AsyncStream<SyncPass>.makeStream()
        let sleeps = Mutex<[Timestamp?]>([])
        var runner = SyncRunner(store: store, policy: FreshnessPolicy(sources: .seed), clock: clock)
        runner.onEvent = { event in
            switch event {
            case .passed(let pass): passed.yield(pass)
            case .sleeping(let until): sleeps.withLock { $0.append(until) }
            default: break
            }
        }
        let sleeper = NotingSleeper(TaskSleeper(store: store))
        let loop = Task { [runner] in try await runner.run(sleeper: sleeper) }
        var next = passes.makeAsyncIterator()
        let first = try #require(await next.next())
        #expect(first.rows.map { "\($0.target) \($0.outcome.name)" } == ["catalog/items refreshed", "catalog/notes refreshed"])
        #expect(first.nextDue == Timestamp(milliseconds: fixedTime.milliseconds + 10 * 60_000))

        // The loop sleeps for ten minutes of a clock that does not move; a write ends it.
        let made = try await store.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("done", .bool(true))])
        let second = try #require(await next.next())
        #expect(second.at == fixedTime)
        #expect(second.rows.map { "\($0.target) \($0.outcome.name)" } == ["catalog/items fresh", "catalog/notes pushed", "catalog/notes refreshed"])
        let key = "\(store.log.metadata.storeID):\(made.seq)"
        #expect(await upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.key ?? "-") \($0.status)" } == ["PATCH /catalog/notes/1 \(key) 200"])
        #expect(store.pendingMutations.isEmpty)
        // The write ended the sleep (ten minutes of a clock that stands still would have, too,
        // in ten real ones: that would be `.due`).
        #expect(sleeper.wakes.withLock { $0 } == [.write])
        // Two passes, two sleeps: the write's wake-up ran one pass, and nothing else woke it.
        #expect(sleeps.withLock { $0 } == [Timestamp(milliseconds: fixedTime.milliseconds + 10 * 60_000), Timestamp(milliseconds: fixedTime.milliseconds + 10 * 60_000)])

        loop.cancel()
        await #expect(throws: CancellationError.self) { _ = try await loop.value }
        passed.finish()
        await rig.stop()
    }

    @Test func anItemSetInAnotherProcessWakesARunningSync() async throws {
        let rig = try await ManifestCLIRig.start("sync-wake-cli", manifest: SyncCommandTests.notes)
        let now = ["FETCHLOG_NOW": "2026-11-22T08:00:00Z"]
        let running = try SyncSignalTests.Running(
            ["--store", rig.store, "--upstream", rig.upstream.base, "--retries", "0", "--format", "ndjson", "sync"], environment: now)
        // The first pass fetches the notes (a day's freshness) and the loop sleeps.
        await running.waitFor(#""type":"sleep""#)
        let set = try await runFetchlog(["--store", rig.store, "--offline", "item", "set", "catalog", "notes", "1", "done=true"], environment: now)
        #expect(set.status == 0, "\(set.stderr)")
        // Caught up with as it was committed: sent, and the notes read back. (Were the write
        // not seen, the sync would sleep a day: the guard ends it after five minutes, so the
        // test fails on what it printed instead of hanging. Not a bound on speed.)
        let guardian = Task { [process = running.process] in
            try await Task.sleep(for: .seconds(300))
            process.terminate()
        }
        await running.waitFor(#"1 pushed, 1 refreshed; 2 requests; next due 2026-11-23T08:00:00.000Z","type":"summary"}"# + "\n" + #"{"type":"sleep""#)
        guardian.cancel()
        running.process.terminate()
        #expect(try await running.end() == 0)
        let lines = running.stdout.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
        #expect(lines.map { $0["type"]?.stringValue ?? "?" } == ["pass", "attempt", "resource", "summary", "sleep",
                                                                  "pass", "resource", "attempt", "resource", "summary", "sleep"])
        #expect(lines.filter { $0["type"] == .string("resource") }.map { $0["outcome"]?.stringValue ?? "?" } == ["refreshed", "pushed", "refreshed"])
        #expect(await SyncCommandTests.answered(rig) == ["GET 200 /catalog/notes", "PATCH 200 /catalog/notes/1", "GET 200 /catalog/notes"])
        #expect(await rig.upstream.server.appliedPerNote == [1: 1])
        await rig.stop()
    }
}
