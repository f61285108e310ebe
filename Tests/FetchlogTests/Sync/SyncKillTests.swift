import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore

/// Issue 37's acceptance: seeded kill -9 trials of `sync` at random moments. Whatever the
/// moment — before a request, with a write or a fetch in flight, after an answer — nothing
/// recorded is lost (the log verifies), no write is applied twice (counted at the server,
/// by Idempotency-Key), and the next `sync` carries on to the same end.
@Suite struct SyncKillTests {
    @Test func killedAtAnyMomentTheNextSyncCarriesOnAndAppliesEachWriteOnce() async throws {
        // SplitMix64 (JSONTapeTests'): the same moments on every run.
        var random = JSONTapeTests.SplitMix(state: 37)
        var killed = 0
        for trial in 0 ..< 6 {
            let rig = try await ManifestCLIRig.start("sync-kill-\(trial)", manifest: SyncCommandTests.notes)
            #expect(try await rig.fetch(["notes"], environment: SyncCommandTests.at(SyncCommandTests.t0)).status == 0)
            for key in ["1", "2"] {
                let set = try await runFetchlog(["--store", rig.store, "--offline", "item", "set", "catalog", "notes", key, "done=true"],
                                                environment: SyncCommandTests.at(SyncCommandTests.t0))
                #expect(set.status == 0, "\(set.stderr)")
            }
            await rig.upstream.server.clearRequestLog()
            // Every request to the notes waits 40 ms at the server: the moment below finds
            // requests in flight. The moment: the server has seen `moment` requests.
            await rig.upstream.server.setFaults(try FaultSpec.parse("latency=40ms@catalog/notes"))
            let moment = Int.random(in: 0 ... 3, using: &random)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Repo.executable)
            process.arguments = ["--store", rig.store, "--upstream", rig.upstream.base, "--retries", "0", "sync", "--once"]
            process.environment = ProcessInfo.processInfo.environment.merging(SyncCommandTests.at("2026-11-22T08:01:00Z")) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            while process.isRunning, await rig.upstream.server.requestLog.count < moment { try await Task.sleep(for: .milliseconds(2)) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killed += 1
            }
            try await offPool { process.waitUntilExit() }
            await rig.upstream.server.clearFaults()

            // Nothing recorded is lost: the log verifies.
            let verify = try await runFetchlog(["--store", rig.store, "log", "verify"])
            #expect(verify.status == 0, "trial \(trial), moment \(moment): \(verify.stdout)\(verify.stderr)")
            // The next sync carries on: the writes sent (again, with their keys, if in doubt).
            let next = try await SyncCommandTests.sync(rig, [], at: "2026-11-22T08:02:00Z")
            #expect(next.status == 0, "trial \(trial), moment \(moment): \(next.stderr)")
            // Each write applied once at the server, whatever the moment.
            let applied = await rig.upstream.server.appliedWrites.map { "\($0.method) \($0.path)" }
            #expect(applied == ["PATCH /catalog/notes/1", "PATCH /catalog/notes/2"], "trial \(trial), moment \(moment)")
            let pending = try await runFetchlog(["--store", rig.store, "--format", "json", "pending"])
            #expect(try JSONValue.parse(pending.stdout).arrayValue?.isEmpty == true, "trial \(trial): \(pending.stdout)")
            await rig.stop()
        }
        // The seed kills some runs mid-way (a run that ended first is not killed).
        #expect(killed >= 1)
    }
}
