import Foundation
import Testing
@testable import Fetchlog

/// `log import` is one transaction whose "is the log empty" check is inside it (issue 13,
/// item 1): two racing imports never both land, a killed import leaves nothing behind.
@Suite(.serialized) struct ImportAtomicityTests {
    @Test func twoConcurrentImportsIntoOneEmptyStoreLandOnce() async throws {
        let dir = TemporaryDirectory("import-race")
        var outcomes: [String: Int] = [:]
        for trial in 0 ..< 50 {
            let store = dir.sub("store-\(trial)")
            let results = try await withThrowingTaskGroup(of: CommandResult.self) { group in
                for _ in 0 ..< 2 { group.addTask { try await runFetchlog(["--store", store, "log", "import", Repo.sampleLog]) } }
                var all: [CommandResult] = []
                for try await result in group { all.append(result) }
                return all
            }
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
        #expect(outcomes == ["[0, 1]": 50])
    }

    @Test func aKilledImportLeavesTheStoreEmptyAndAReimportWorks() async throws {
        let dir = TemporaryDirectory("import-kill")
        // 5,000 events of 12 KiB: about 60 MB, long enough to be killed in the middle.
        let source = try EventLog.open(at: dir.sub("source"))
        let body = [UInt8](repeating: UInt8(ascii: "y"), count: 12 << 10)
        for batch in 0 ..< 50 {
            let events = (0 ..< 100).map { i in
                Event(recordedAt: fixedTime, kind: .fetched, source: "tvmaze", label: "/shows/\(batch * 100 + i)",
                      request: Event.Request(url: "http://127.0.0.1:1/tvmaze/shows/\(i)"), response: Event.Response(status: 200, headers: []), body: body)
            }
            _ = try source.appendBlocking(contentsOf: events)
        }
        let file = dir.sub("big.ndjson")
        try FileManager.default.createFile(atPath: file, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try source.exportNDJSON { try handle.write(contentsOf: Data($0.utf8)) }
        try handle.close()
        source.close()

        let store = dir.sub("store")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Repo.executable)
        process.arguments = ["--store", store, "log", "import", file]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Killed once the import's transaction has spilled pages into data.mdb (the file
        // grows past its first megabytes), well before it could have committed.
        let data = store + "/data.mdb"
        let deadline = Date().addingTimeInterval(60)
        var size = 0
        while Date() < deadline && process.isRunning {
            size = ((try? FileManager.default.attributesOfItem(atPath: data))?[.size] as? Int) ?? 0
            if size > 8 << 20 { break }
            usleep(2_000)
        }
        #expect(process.isRunning, "the import ended before it could be killed (data.mdb \(size) bytes)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let verify = try await runFetchlog(["--store", store, "log", "verify"])
        #expect(verify.status == 0)
        #expect(verify.stdout == "ok: the log is empty\n")
        let again = try await runFetchlog(["--store", store, "log", "import", file])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == "imported 5000 events into \(store)\n")
        #expect(try await runFetchlog(["--store", store, "log", "verify"]).stdout == "ok: 5000 events, seq 1…5000, every checksum valid\n")
    }
}
