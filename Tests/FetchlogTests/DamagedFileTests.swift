import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Issue 13 item 7: damaged data files. Every store here is made by the real binary
/// (`log import` of the sample log) and damaged by flipping bytes of its data.mdb.
@Suite(.serialized) struct DamagedFileTests {
    /// A store made from the sample log (13 events), in its own temp directory.
    static func sampleStore(_ dir: TemporaryDirectory) throws -> String {
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let store = dir.sub("store")
        let result = try runFetchlogBlocking(["--store", store, "log", "import", Repo.sampleLog])
        #expect(result.status == 0, "\(result.stderr)")
        return store
    }

    static func flip(_ file: String, at offset: Int, with mask: UInt8) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[offset] ^= mask
        try bytes.write(to: URL(fileURLWithPath: file))
    }

    /// 200 single-byte flips (fixed seed) in meta pages and page headers / node offset
    /// arrays, each in a fresh copy: `log verify` never dies by a signal, and says
    /// ok (0) or names the damage (2, or 3 from the store open).
    @Test func twoHundredFlipsNeverCrashVerify() async throws {
        let outcome = try await offPool { try Self.flips() }
        print("200 flips: \(outcome.counts)")
        #expect(outcome.problems == [], "\(outcome.problems.prefix(5))")
        #expect(outcome.counts.values.reduce(0, +) == 200)
    }

    private static func flips() throws -> (counts: [Int32: Int], problems: [String]) {
        let dir = TemporaryDirectory("flips")
        let store = try sampleStore(dir)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
        let pageSize = LMDBFileCheck.check(dataFile: store + "/data.mdb").pageSize
        #expect(pageSize == 4096)
        let pages = pristine.count / pageSize
        var random = TestPattern.Generator(seed: 20_261_123)
        var counts: [Int32: Int] = [:]
        var problems: [String] = []
        for trial in 0..<200 {
            let copy = dir.sub("copy\(trial)")
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: copy) }
            var bytes = pristine
            // A third of the flips hit the meta pages (their first 152 bytes hold all
            // of MDB_meta), the rest a page header or the node offsets after it.
            let page = trial % 3 == 0 ? Int.random(in: 0..<2, using: &random) : Int.random(in: 2..<pages, using: &random)
            let offset = page * pageSize + (page < 2 ? Int.random(in: 0..<152, using: &random) : Int.random(in: 0..<48, using: &random))
            bytes[offset] ^= UInt8.random(in: 1...255, using: &random)
            try bytes.write(to: URL(fileURLWithPath: copy + "/data.mdb"))
            let result = try runFetchlogBlocking(["--store", copy, "log", "verify"])
            counts[result.status, default: 0] += 1
            switch result.status {
            case 0: break
            case 2, 3:
                if !result.stderr.contains("page") && !result.stderr.contains("seq") {  // a flip inside an overflow page is record data: reported by seq (CRC)
                     problems.append("trial \(trial) (byte \(offset)): no page named: \(result.stderr)") }
            default:
                problems.append("trial \(trial) (byte \(offset)): exit \(result.status): \(result.stderr)")
            }
        }
        return (counts, problems)
    }

    /// One record's bytes damaged (CRC mismatch): salvage writes the 12 others, and
    /// `log import` takes the file.
    @Test func salvageSkipsOneDamagedRecord() async throws {
        let dir = TemporaryDirectory("salvage")
        let store = try Self.sampleStore(dir)
        let log = try EventLog.open(at: store)
        let record = try #require(try log.rawRecord(at: 5))
        log.close()
        let file = store + "/data.mdb"
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let at = try #require(data.firstRange(of: Data(record))).lowerBound
        try Self.flip(file, at: at + record.count / 2, with: 0x40)
        let out = dir.sub("salvaged.ndjson")
        let result = try await runFetchlog(["--store", store, "log", "salvage", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("salvaged 12 events"), "\(result.stdout)")
        #expect(result.stdout.contains("lost 1: seq 5"), "\(result.stdout)")
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        let events = try lines.map { try EventJSON.event(from: JSONValue.parse(String($0))) }
        // Gap-free from 1: seq 5 is a `salvage.lost` intent standing in for the lost event.
        #expect(events.map(\.seq) == Array(1 ... 13))
        #expect(events.filter { $0.label == "salvage.lost" }.map(\.seq) == [5])
        #expect(events[4].kind == .intent && events[4].source == "fetchlog")
        let imported = try await runFetchlog(["--store", dir.sub("new"), "log", "import", out])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try await runFetchlog(["--store", dir.sub("new"), "log", "verify"]).stdout == "ok: 13 events, seq 1…13, every checksum valid\n")
    }

    /// The main database's root page header broken: the tree cannot be walked, so
    /// salvage scans every page and still finds all 13 events.
    @Test func salvageScansPagesWhenTheTreeIsBroken() async throws {
        let dir = TemporaryDirectory("broken")
        let store = try Self.sampleStore(dir)
        let file = store + "/data.mdb"
        let check = LMDBFileCheck.check(dataFile: file)
        #expect(check.isSound)
        let fileHandle = try #require(LMDBFileCheck.File(path: file))
        let meta = try #require(LMDBFileCheck.readMeta(fileHandle, index: check.meta, pageSize: check.meta == 0 ? nil : check.pageSize).0)
        try Self.flip(file, at: Int(meta.main.root) * check.pageSize + 10, with: 0x10 | 0x08)
        let verify = try await runFetchlog(["--store", store, "log", "verify"])
        #expect(verify.status == 2 || verify.status == 3, "\(verify.stderr)")
        #expect(verify.stderr.contains("page \(meta.main.root)"), "\(verify.stderr)")
        let out = dir.sub("salvaged.ndjson")
        let result = try await runFetchlog(["--store", store, "log", "salvage", "--out", out])
        #expect(result.stdout.contains("salvaged 13 events"), "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("every page of the file was scanned"), "\(result.stdout)")
    }
}
