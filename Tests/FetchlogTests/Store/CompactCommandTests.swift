import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// `fetchlog log compact` end to end: what it says, what `--at` says after it, and a
/// rewrite killed at any moment leaves a store that opens and verifies.
@Suite(.serialized) struct CompactCommandTests {
    @Test func compactSaysWhatGoesAndTheHeadStaysByteIdentical() async throws {
        let dir = TemporaryDirectory("compact-cli")
        let store = dir.sub("store")
        try await offPool {
            let log = try EventLog.open(at: store)
            try log.appendBlocking(contentsOf: try CompactionTests.revalidatedLog())
            log.close()
        }
        let census = try CompactionTests.body("brastlewark/census.json").count
        let page2019 = try CompactionTests.body("tvmaze/shows-page-0-2019.json").count
        let page2024 = try CompactionTests.body("tvmaze/shows-page-0-2024.json").count
        let viaplay2022 = try CompactionTests.body("viaplay/ios-se-root-2022.json").count
        let dropped = ByteText.describe(20 * census + page2019 + page2024 + viaplay2022)

        let headBefore = try await runFetchlog(["--store", store, "export", "all"])
        #expect(headBefore.status == 0)
        #expect(try await runFetchlog(["--store", store, "export", "shows", "--at", "10"]).status == 0)

        let dry = try await runFetchlog(["--store", store, "log", "compact", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout == """
            would drop 23 superseded bodies of 3 resources (\(dropped) as received); every event keeps its header; views at the head stay as they are
              brastlewark /data.json: 20 (seq 2…24), the body held is seq 25
              tvmaze /shows?page=0: 2 (seq 1…5), the body held is seq 28
              viaplay /ios-se: 1 (seq 3…3), the body held is seq 26

            """)

        let run = try await runFetchlog(["--store", store, "log", "compact"])
        #expect(run.status == 0, "\(run.stderr)")
        let freed = ByteText.describe(viaplay2022 - 36 + page2019)
        #expect(run.stdout == """
            dropped 23 superseded bodies of 3 resources (\(dropped) as received); freed \(freed) inside data.mdb (1 body stored apart removed)
            views at the head are unchanged; --at answers with every body from seq 28 on
            LMDB reuses the freed pages for later writes; `log compact --rewrite` returns them to the file system

            """)
        let headAfter = try await runFetchlog(["--store", store, "export", "all"])
        #expect(headAfter.stdout == headBefore.stdout)
        #expect(try await runFetchlog(["--store", store, "replay", "--verify"]).status == 0)
        #expect(try await runFetchlog(["--store", store, "log", "verify"]).stdout == "ok: 29 events, seq 1…29, every checksum valid\n")

        // Before the horizon: the resources whose body is gone, named; exit 1.
        let past = try await runFetchlog(["--store", store, "export", "shows", "--at", "10"])
        #expect(past.status == 1)
        #expect(past.stderr.contains("at seq 10, the body of 1 resource that shows reads was compacted away (`log compact` dropped bodies a later one superseded): tvmaze /shows?page=0 (its body at seq 5). --at answers with every body from seq 28 on"), "\(past.stderr)")
        // A view that reads nothing compacted still answers; so does the horizon itself.
        #expect(try await runFetchlog(["--store", store, "export", "sections", "--at", "10"]).status == 0)
        #expect(try await runFetchlog(["--store", store, "export", "shows", "--at", "28"]).status == 0)
        // The header of a compacted event stays readable.
        let show = try await runFetchlog(["--store", store, "--format", "json", "log", "show", "1"])
        #expect(show.stdout.contains(#""encoding":"compacted""#), "\(show.stdout.prefix(300))")
        let page2019Bytes = try CompactionTests.body("tvmaze/shows-page-0-2019.json")
        let crc = page2019Bytes.withUnsafeBytes { EnvelopeCodec.checksum(of: $0) }
        #expect(try await runFetchlog(["--store", store, "log", "show", "1"]).stdout.hasSuffix(
            "body         435940 bytes, compacted away (a later body superseded it): sha256 \(SHA256.hex(page2019Bytes)), crc32c \(String(crc, radix: 16))\n"))

        // --rewrite gives the space back: the file shrinks by at least the removed body.
        let size = { () -> Int in
            let attributes = try FileManager.default.attributesOfItem(atPath: store + "/data.mdb")
            return (attributes[.size] as? Int) ?? 0
        }
        let before = try size()
        let rewrite = try await runFetchlog(["--store", store, "--format", "json", "log", "compact", "--rewrite"])
        #expect(rewrite.status == 0, "\(rewrite.stderr)")
        #expect(rewrite.stdout.contains(#""compacted":0"#))
        // The copy swapped in is as private as the store was; nothing needed tightening.
        #expect(rewrite.stderr == "")
        let mode = try FileManager.default.attributesOfItem(atPath: store + "/data.mdb")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try size() <= before - page2019)
        #expect(try await runFetchlog(["--store", store, "export", "all"]).stdout == headBefore.stdout)
    }

    /// `fetch --retain 1d`: after the fetch (whose census supersedes the 21 held before),
    /// what `log compact --older-than 1d` would drop goes.
    @Test func fetchWithRetainCompactsWhatIsOlder() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let dir = TemporaryDirectory("retain")
        try await offPool {
            let log = try EventLog.open(at: dir.path)
            try log.appendBlocking(contentsOf: try CompactionTests.revalidatedLog())
            log.close()
        }
        let result = try await runFetchlog(["--store", dir.path, "--upstream", base, "fetch", "brastlewark", "census", "--retain", "1d"],
                                           environment: ["FETCHLOG_NOW": "2026-12-01T00:00:00Z"])
        #expect(result.status == 0, "\(result.stderr)")
        let census = try CompactionTests.body("brastlewark/census.json").count
        let others = try ["tvmaze/shows-page-0-2019.json", "tvmaze/shows-page-0-2024.json", "viaplay/ios-se-root-2022.json"]
            .reduce(0) { $0 + (try CompactionTests.body($1)).count }
        #expect(result.stderr == "fetchlog: retain 1d: dropped 24 superseded bodies recorded before 2026-11-30T00:00:00.000Z (\(ByteText.describe(21 * census + others)) as received)\n")
        let stats = try await runFetchlog(["--store", dir.path, "--format", "json", "log", "stats"])
        #expect(stats.stdout.contains(#""compactedEvents":24"#), "\(stats.stdout)")
        #expect(stats.stdout.contains(#""compactionHorizon":30"#), "\(stats.stdout)")
        let bad = try await runFetchlog(["--store", dir.path, "fetch", "brastlewark", "census", "--retain", "a month"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--retain takes a duration from 0s to 36500d, a number and a unit, s m h d or w (30d, 12h), not 'a month'"), "\(bad.stderr)")
        await upstream.stop()
    }

    @Test func aRewriteIsRefusedWhileAnotherProcessHasTheStoreOpen() async throws {
        let dir = TemporaryDirectory("compact-busy")
        let log = try EventLog.open(at: dir.path)
        _ = try await offPool { try log.appendBlocking(contentsOf: try CompactionTests.revalidatedLog()) }
        let refused = try await runFetchlog(["--store", dir.path, "log", "compact", "--rewrite"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("another process has \(dir.path) open (a shell, a fetch, a follower): close it and run `log compact --rewrite` again; nothing was changed"), "\(refused.stderr)")
        #expect(try await offPool { try log.verify().isHealthy })
        log.close()
        #expect(try await runFetchlog(["--store", dir.path, "log", "compact", "--rewrite"]).status == 0)
    }

    /// 100 runs of `log compact --rewrite` killed with SIGKILL at moments spread across
    /// one run's length: the store opens, verifies and holds the same events every time.
    @Test func aRewriteKilledAtAnyMomentLeavesAValidStore() async throws {
        let dir = TemporaryDirectory("compact-kill")
        let store = dir.sub("store")
        // About 3 MB (1 KiB bodies, every tenth 20 KiB, stored apart): each trial's copy and
        // fsync stay small, so the suite's timing-bound tests running beside it keep their disk.
        let baseline: (UInt64, Event?) = try await offPool {
            let log = try EventLog.open(at: store)
            for batch in 0 ..< 10 {
                let events = (0 ..< 100).map { i -> Event in
                    let n = batch * 100 + i
                    return Event(recordedAt: Timestamp(milliseconds: 1_795_000_000_000 + Int64(n)), kind: .fetched, source: "crash-test",
                                 label: "/item/\(n % 50)", request: Event.Request(url: "http://127.0.0.1:1/crash-test/item/\(n % 50)"),
                                 response: Event.Response(status: 200),
                                 body: TestPattern.bytes(count: n % 10 == 0 ? 20_000 : 1_000, seed: UInt64(n)))
                }
                try log.appendBlocking(contentsOf: events)
            }
            let last = (try log.lastSeq(), try log.event(at: 500))
            log.close()
            return last
        }
        let timed = ContinuousClock.now
        let whole = try await runFetchlog(["--store", store, "log", "compact", "--rewrite"])
        let duration = ContinuousClock.now - timed
        #expect(whole.status == 0, "\(whole.stderr)")
        var leftovers = 0
        for trial in 0 ..< 100 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Repo.executable)
            process.arguments = ["--store", store, "log", "compact", "--rewrite"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: duration * (1.2 * Double(trial) / 100))
            kill(process.processIdentifier, SIGKILL)
            try await offPool { process.waitUntilExit() }
            if FileManager.default.fileExists(atPath: store + "/rewrite.tmp") { leftovers += 1 }
            // A pause between trials spreads the copies' fsyncs, which share the disk with
            // the rest of the suite.
            try await Task.sleep(for: .milliseconds(250))
            let (report, count, sample, notes) = try await offPool { () -> (VerifyReport, Int, Event?, [String]) in
                let log = try EventLog.open(at: store)
                defer { log.close() }
                return (try log.verify(), try log.count(), try log.event(at: 500), log.notes)
            }
            // Every record and every body it refers to read and checked (CRC, SHA-256).
            #expect(report.isHealthy && report.checked == 1000 && report.lastSeq == baseline.0, "trial \(trial): \(report.problems)")
            #expect(count == 1000, "trial \(trial)")
            #expect(sample == baseline.1, "trial \(trial)")
            #expect(!FileManager.default.fileExists(atPath: store + "/rewrite.tmp"), "trial \(trial): \(notes)")
        }
        // Some kills fell inside the copy (the open after them removed what it left).
        #expect(leftovers > 0, "no kill fell inside the copy")
    }
}
