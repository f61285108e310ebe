import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// The `fetchlog` binary on a store built from the shipped sample log.
@Suite struct CommandLineTests {
    private func sampleStore(_ dir: TemporaryDirectory) async throws -> String {
        let path = dir.sub("store")
        let result = try await runFetchlog(["--store", path, "log", "import", Repo.sampleLog])
        #expect(result.status == 0)
        #expect(result.stdout == "imported 13 events into \(path), seq 1…13\n")
        return path
    }

    @Test func statsCountsPerKindAndSource() async throws {
        let dir = TemporaryDirectory("cli-stats")
        let store = try await sampleStore(dir)
        let result = try await runFetchlog(["log", "stats", "--json", "--store", store])
        #expect(result.status == 0)
        let json = try JSONValue.parse(result.stdout)
        #expect(json["events"] == .number(13))
        #expect(json["firstSeq"] == .number(1))
        #expect(json["lastSeq"] == .number(13))
        #expect(json["bodyBytes"] == .number(1_620_675))
        #expect(json["firstRecordedAt"] == .string("2026-11-01T09:00:02.000Z"))
        #expect(json["lastRecordedAt"] == .string("2026-11-01T09:10:52.000Z"))
        #expect(json["byKind"]?.canonicalText() == #"{"end-of-list":1,"fetch-failed":2,"fetched":8,"intent":1,"not-modified":1}"#)
        #expect(json["bySource"]?.canonicalText() == #"{"artic":1,"brastlewark":3,"thmanyah":2,"tvmaze":5,"viaplay":2}"#)
    }

    @Test func tailShowAndVerify() async throws {
        let dir = TemporaryDirectory("cli-tail")
        let store = try await sampleStore(dir)
        let tail = try await runFetchlog(["--store", store, "log", "tail", "-n", "2"])
        #expect(tail.stdout == """
            seq  recorded at               kind          source       outcome   bytes  request
            ───  ────────────────────────  ────────────  ───────────  ────────  ─────  ───────────────────────────────────────────────────────────────
            12   2026-11-01T09:10:32.000Z  fetch-failed  thmanyah     http 503  14 B   GET https://api-v2-b2sit6oh3a-uc.a.run.app/home_sections?page=2
            13   2026-11-01T09:10:52.000Z  intent        brastlewark  -         43 B   filter.set

            """)
        let show = try await runFetchlog(["--store=\(store)", "log", "show", "13"])
        #expect(show.status == 0)
        #expect(show.stdout == """
            seq          13
            recorded at  2026-11-01T09:10:52.000Z
            kind         intent
            source       brastlewark
            label        filter.set
            attempt      1
            duration     unknown
            checksum     crc32c:\(EventJSON.checksum(of: try EventLog.open(at: store).event(at: 13)!).dropFirst(7))
            origin       fetchlog-sample seq 13 (merged by log import)
            body         43 bytes

            {
              "hair_color": "Pink",
              "profession": "Tinker"
            }

            """)
        let verify = try await runFetchlog(["--store", store, "log", "verify"])
        #expect(verify.status == 0)
        #expect(verify.stdout == "ok: 13 events, seq 1…13, every checksum valid\n")
    }

    @Test func errorsAreOneLineWithTheDocumentedStatus() async throws {
        let dir = TemporaryDirectory("cli-errors")
        let store = try await sampleStore(dir)
        let missing = try await runFetchlog(["--store", store, "log", "show", "99"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "fetchlog: no event 99: the log holds 1…13\n")

        let foreign = dir.sub("foreign")
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: foreign + "/a.txt"))
        let refused = try await runFetchlog(["--store", foreign, "log", "stats"])
        #expect(refused.status == 3)
        #expect(refused.stderr == "fetchlog: \(foreign) is not a Fetchlog store: it holds files a store never has (a.txt). Nothing was changed. Point --store (or FETCHLOG_STORE) at an empty or new directory.\n")

        let usage = try await runFetchlog(["--store", store, "log", "tail", "-n", "-1"])
        #expect(usage.status == 64)
    }

    @Test func verifyExitsTwoNamingTheFirstBadSeq() async throws {
        let dir = TemporaryDirectory("cli-verify")
        let store = try await sampleStore(dir)
        do {
            let log = try EventLog.open(at: store)
            var record = try #require(try log.rawRecord(at: 4))
            record[record.count - 10] ^= 0x20
            let env = log.lmdbEnvironment
            let events = try env.openDatabase("events", create: false)
            try env.write { txn in
                try FetchlogLMDBKey.put(&txn, events, 4, record)
            }
            log.close()
        }
        let verify = try await runFetchlog(["--store", store, "log", "verify"])
        #expect(verify.status == 2)
        #expect(verify.stderr.hasPrefix("fetchlog: damaged: first bad seq 4: checksum mismatch"))
    }

    @Test func exportImportThroughTheBinaryAndStdin() async throws {
        let dir = TemporaryDirectory("cli-export")
        let store = try await sampleStore(dir)
        let exported = try await runFetchlog(["--store", store, "log", "export"])
        #expect(exported.status == 0)
        #expect(exported.stdout == (try String(contentsOfFile: Repo.sampleLog, encoding: .utf8)))
        let copy = dir.sub("copy")
        let imported = try await runFetchlog(["--store", copy, "log", "import", "-"], stdin: exported.stdout)
        #expect(imported.status == 0)
        let again = try await runFetchlog(["--store", copy, "log", "export", "--from", "12"])
        #expect(again.stdout == exported.stdout.split(separator: "\n").suffix(2).joined(separator: "\n") + "\n")
    }

    @Test func storeComesFromTheEnvironmentWhenNotGiven() async throws {
        let dir = TemporaryDirectory("cli-env")
        let store = try await sampleStore(dir)
        let verify = try await runFetchlog(["log", "verify"], environment: ["FETCHLOG_STORE": store])
        #expect(verify.stdout == "ok: 13 events, seq 1…13, every checksum valid\n")
    }
}

import FetchlogLMDB

enum FetchlogLMDBKey {
    static func put(_ txn: inout WriteTransaction, _ db: Database, _ seq: UInt64, _ record: [UInt8]) throws {
        try SequenceKey.with(seq) { key in try record.withUnsafeBytes { try txn.put(db, key: key, value: $0) } }
    }
}
