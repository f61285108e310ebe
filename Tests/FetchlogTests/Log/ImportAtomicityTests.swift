import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// `log import` is one transaction whose "is the log empty" check is inside it (issue 13,
/// item 1): two racing imports never both land, a killed import leaves nothing behind.
@Suite(.serialized) struct ImportAtomicityTests {
    /// An export from before origins restores only into an empty store: of two racing
    /// imports one lands and the other finds the log not empty.
    @Test func twoConcurrentImportsOfAnExportWithoutOriginsLandOnce() async throws {
        let dir = TemporaryDirectory("import-race")
        let legacy = dir.sub("legacy.ndjson")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let lines = try String(contentsOfFile: Repo.sampleLog, encoding: .utf8).split(separator: "\n").map { line -> String in
            var event = try EventJSON.event(from: try JSONValue.parse(bytes: Array(line.utf8)))
            event.origin = nil
            return EventJSON.line(for: event)
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: legacy, atomically: true, encoding: .utf8)
        var outcomes: [String: Int] = [:]
        for trial in 0 ..< 25 {
            let store = dir.sub("store-\(trial)")
            let results = try await race(["--store", store, "log", "import", legacy])
            let statuses = results.map(\.status).sorted()
            outcomes["\(statuses)", default: 0] += 1
            #expect(statuses == [0, 1], "trial \(trial): \(results.map(\.stderr))")
            let refused = try #require(results.first { $0.status == 1 })
            #expect(refused.stderr.contains("already holds events 1…13; import only into an empty store"), "\(refused.stderr)")
            let log = try EventLog.open(at: store)
            #expect(try log.lastSeq() == 13)
            #expect(try log.verify().isHealthy)
            log.close()
        }
        #expect(outcomes == ["[0, 1]": 25])
    }

    /// An export with origins merges: of two racing imports one adds the 13 events and the
    /// other, in the transaction after it, finds every one of them held and adds none.
    @Test func twoConcurrentMergesOfOneExportAddItOnce() async throws {
        let dir = TemporaryDirectory("merge-race")
        for trial in 0 ..< 25 {
            let store = dir.sub("store-\(trial)")
            let results = try await race(["--store", store, "log", "import", Repo.sampleLog])
            #expect(results.map(\.status) == [0, 0], "trial \(trial): \(results.map(\.stderr))")
            #expect(Set(results.map(\.stdout)) == ["imported 13 events into \(store), seq 1…13\n", "imported 0 events into \(store) (13 already held)\n"],
                    "trial \(trial): \(results.map(\.stdout))")
            let log = try EventLog.open(at: store)
            #expect(try log.lastSeq() == 13)
            #expect(try log.verify().isHealthy)
            log.close()
        }
    }

    private func race(_ arguments: [String]) async throws -> [CommandResult] {
        try await withThrowingTaskGroup(of: CommandResult.self) { group in
            for _ in 0 ..< 2 { group.addTask { try await runFetchlog(arguments) } }
            var all: [CommandResult] = []
            for try await result in group { all.append(result) }
            return all
        }
    }

    @Test func aKilledImportLeavesTheStoreEmptyAndAReimportWorks() async throws {
        let dir = TemporaryDirectory("import-kill")
        // 2,000 events of 12 KiB: about 24 MB, long enough to be killed in the middle.
        let file = dir.sub("big.ndjson")
        // Blocking writes on a thread of their own, not on the cooperative pool.
        try await offPool {
            let source = try EventLog.open(at: dir.sub("source"))
            let body = [UInt8](repeating: UInt8(ascii: "y"), count: 12 << 10)
            for batch in 0 ..< 20 {
                let events = (0 ..< 100).map { i in
                    Event(recordedAt: fixedTime, kind: .fetched, source: "tvmaze", label: "/shows/\(batch * 100 + i)",
                          request: Event.Request(url: "http://127.0.0.1:1/tvmaze/shows/\(i)"), response: Event.Response(status: 200, headers: []), body: body)
                }
                _ = try source.appendBlocking(contentsOf: events)
            }
            FileManager.default.createFile(atPath: file, contents: nil)
            guard let handle = FileHandle(forWritingAtPath: file) else { throw CocoaError(.fileWriteUnknown) }
            try source.exportNDJSON { try handle.write(contentsOf: Data($0.utf8)) }
            try handle.close()
            source.close()
        }

        // One whole import, timed; then imports killed at points spread across that time.
        let timed = ContinuousClock.now
        let whole = try await runFetchlog(["--store", dir.sub("whole"), "log", "import", file])
        let duration = ContinuousClock.now - timed
        #expect(whole.stdout == "imported 2000 events into \(dir.sub("whole")), seq 1…2000\n", "\(whole.stderr)")
        var outcomes: [UInt64] = []
        for (trial, fraction) in [0.1, 0.3, 0.5, 0.7, 0.85, 0.95].enumerated() {
            let store = dir.sub("store-\(trial)")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Repo.executable)
            process.arguments = ["--store", store, "log", "import", file]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: duration * fraction)
            kill(process.processIdentifier, SIGKILL)
            try await offPool { process.waitUntilExit() }
            // All or nothing, wherever the kill fell: an empty log or every event, verified.
            let verify = try await runFetchlog(["--store", store, "log", "verify"])
            #expect(verify.status == 0, "trial \(trial): \(verify.stderr)")
            let log = try EventLog.open(at: store)
            let last = try log.lastSeq()
            log.close()
            #expect(last == 0 || last == 2000, "trial \(trial) at \(fraction): a partial import of \(last) events")
            outcomes.append(last)
            if last == 0 && !outcomes.dropLast().contains(0) {
                // An import killed half-way blocks nothing: the same file imports whole.
                let again = try await runFetchlog(["--store", store, "log", "import", file])
                #expect(again.stdout == "imported 2000 events into \(store), seq 1…2000\n", "\(again.stderr)")
            }
        }
        // The early kills fell inside the import (the file is still being checked at 10 %).
        #expect(outcomes.first == 0, "\(outcomes)")
    }
}
