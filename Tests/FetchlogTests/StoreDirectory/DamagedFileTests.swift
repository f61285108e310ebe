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
        // Issue 28 item 4: a salvage that lost events exits 2, as README and --help say.
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr == "fetchlog: 1 event was lost: each is a `salvage.lost` intent in \(out) (its body says why)\n")
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

    /// The sample store's data file, its layout and one database's pages.
    static func layout(_ store: String) throws -> LMDBFileCheck.Report {
        let check = LMDBFileCheck.check(dataFile: store + "/data.mdb")
        #expect(check.isSound, "\(check.problems)")
        #expect(check.pageSize == 4096)
        return check
    }

    /// Issue 28 item 3: one flipped byte inside the last record. Salvage knows from the
    /// `events` tree that the store held seq 13, so it reports it lost (a `salvage.lost`
    /// intent in its place) instead of "salvaged 12 events; none lost" and exit 0.
    @Test func salvageReportsADamagedLastRecordLost() async throws {
        let dir = TemporaryDirectory("salvage-last")
        let store = try Self.sampleStore(dir)
        let pristineExport = dir.sub("pristine.ndjson")
        #expect(try await runFetchlog(["--store", store, "log", "export", "--out", pristineExport]).status == 0)
        let log = try EventLog.open(at: store)
        let record = try #require(try log.rawRecord(at: 13))
        log.close()
        let file = store + "/data.mdb"
        let at = try #require(try Data(contentsOf: URL(fileURLWithPath: file)).firstRange(of: Data(record))).lowerBound
        try Self.flip(file, at: at + record.count / 2, with: 0x40)
        let verify = try await runFetchlog(["--store", store, "log", "verify"])
        #expect(verify.status == 2)
        #expect(verify.stderr.hasPrefix("fetchlog: damaged: first bad seq 13: checksum mismatch"), "\(verify.stderr)")
        let out = dir.sub("salvaged.ndjson")
        let result = try await runFetchlog(["--store", store, "log", "salvage", "--out", out])
        #expect(result.status == 2, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout == "salvaged 12 events to \(out); lost 1: seq 13\n")
        let events = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map { try EventJSON.event(from: JSONValue.parse(String($0))) }
        #expect(events.map(\.seq) == Array(1 ... 13))
        #expect(events.filter { $0.label == "salvage.lost" }.map(\.seq) == [13])
        let reason = try JSONValue.parse(bytes: try #require(events.last { $0.label == "salvage.lost" }?.body))
        #expect(reason["lostSeq"] == .number("13"))
        #expect(reason["reason"]?.stringValue?.hasPrefix("event 13 cannot be read: checksum mismatch") == true, "\(reason)")
        // The 12 survivors are byte for byte the originals.
        let original = try String(contentsOfFile: pristineExport, encoding: .utf8).split(separator: "\n")
        let salvaged = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(Array(salvaged.prefix(12)) == Array(original.prefix(12)))
        let imported = try await runFetchlog(["--store", dir.sub("new"), "log", "import", out])
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    /// Issue 28 item 5: a flipped high byte of the page number in a `bodies` overflow page's
    /// own header. LMDB never reads that header (it finds the data from the leaf node), so
    /// every body reads with its SHA-256: verify names the header and says what is intact,
    /// salvage keeps all 13 events, and `log export` is byte-identical to the original's.
    @Test func aDamagedOverflowHeaderLosesNoBody() async throws {
        let dir = TemporaryDirectory("overflow-header")
        let store = try Self.sampleStore(dir)
        let pristineExport = dir.sub("pristine.ndjson")
        #expect(try await runFetchlog(["--store", store, "log", "export", "--out", pristineExport]).status == 0)
        let check = try Self.layout(store)
        let bodyPages = try #require(check.pages["bodies"])
        #expect(bodyPages.count == 7)  // the root leaf and the first page of each of the 6 bodies
        let overflow = bodyPages[1]
        try Self.flip(store + "/data.mdb", at: Int(overflow) * check.pageSize + 7, with: 0x01)
        let verify = try await runFetchlog(["--store", store, "log", "verify"])
        #expect(verify.status == 2)
        let lines = verify.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(verify.stderr)")
        #expect(lines.first?.hasPrefix("fetchlog: damaged: bodies database, page \(overflow): overflow page header (from page \(bodyPages[0]) node 0) is damaged: says page \(overflow | 1 << 56)") == true, "\(verify.stderr)")
        #expect(lines.last == "intact: every record and every body it refers to (13 events, seq 1…13, every checksum valid, every body's SHA-256 as referenced)")
        let out = dir.sub("salvaged.ndjson")
        let salvage = try await runFetchlog(["--store", store, "log", "salvage", "--out", out])
        #expect(salvage.status == 0, "\(salvage.stderr)")
        #expect(salvage.stdout == "salvaged 13 events to \(out); none lost\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(contentsOf: URL(fileURLWithPath: pristineExport)))
        let export = dir.sub("damaged.ndjson")
        #expect(try await runFetchlog(["--store", store, "log", "export", "--out", export]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: export)) == Data(contentsOf: URL(fileURLWithPath: pristineExport)))
    }

    /// The commands issue 28 item 6 saw die by SIGSEGV on one bad byte in the `bodies` root page.
    static let readCommands: [[String]] = [
        ["log", "stats"], ["log", "tail"], ["log", "export"], ["export", "all"], ["export", "shows"], ["query", "shows"],
        ["replay"], ["status"], ["log", "compact", "--dry-run"],
    ]

    /// Issue 28 item 6: the `bodies` root page's free-space bound (`mp_lower`) flipped so its
    /// node count underflows. Every command is refused at the open (exit 3, the page named)
    /// instead of crashing; `log verify` names the page too (exit 2).
    @Test func aDamagedBodiesRootPageIsRefusedNotACrash() async throws {
        let dir = TemporaryDirectory("bodies-root")
        let store = try Self.sampleStore(dir)
        let check = try Self.layout(store)
        let root = try #require(check.pages["bodies"]?.first)
        try Self.flip(store + "/data.mdb", at: Int(root) * check.pageSize + 12, with: 0x10)
        let reason = "bodies database, page \(root): free-space bounds lower 12, upper"
        for command in Self.readCommands {
            let result = try await runFetchlog(["--store", store] + command)
            #expect(!result.signaled && result.status == 3, "\(command): \(result.status) \(result.stderr)")
            #expect(result.stderr.hasPrefix("fetchlog: \(store)/data.mdb is damaged where LMDB would read it: \(reason)"), "\(command): \(result.stderr)")
        }
        let verify = try await runFetchlog(["--store", store, "log", "verify"])
        #expect(verify.status == 2)
        #expect(verify.stderr.hasPrefix("fetchlog: damaged: \(reason)"), "\(verify.stderr)")
    }

    /// Issue 28 item 6: one body's bytes damaged (inside its overflow pages). `log stats`
    /// still describes the store (a body's size is in the record that refers to it);
    /// `log verify` names the event whose body it is.
    @Test func statsDescribesAStoreWithOneUnreadableBody() async throws {
        let dir = TemporaryDirectory("stats-body")
        let store = try Self.sampleStore(dir)
        let check = try Self.layout(store)
        let overflow = Int(try #require(check.pages["bodies"]?[1]))
        let file = store + "/data.mdb"
        let pristine = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let head = Array(pristine[overflow * check.pageSize + 16 ..< overflow * check.pageSize + 80])
        let log = try EventLog.open(at: store)
        let owner = try #require(try log.events(from: 1).first { $0.body.map { Array($0.prefix(64)) == head } == true })
        log.close()
        let before = try await runFetchlog(["--store", store, "log", "stats"])
        #expect(before.status == 0)
        try Self.flip(file, at: overflow * check.pageSize + 16 + 1000, with: 0x01)
        let stats = try await runFetchlog(["--store", store, "log", "stats"])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout == before.stdout)
        #expect(stats.stdout.contains("events     13 (seq 1…13)\n"), "\(stats.stdout)")
        let verify = try await runFetchlog(["--store", store, "log", "verify"])
        #expect(verify.status == 2)
        #expect(verify.stderr.hasPrefix("fetchlog: damaged: first bad seq \(owner.seq): checksum mismatch in its body"), "\(verify.stderr)")
    }

    /// Issue 28 acceptance: bytes flipped in the pages of every database (main, the free
    /// list, events, meta, checkpoints, bodies, origins, outbox) and in the meta pages, each
    /// in a fresh copy of a real store, and every read command run on each copy as its own
    /// process: none dies by a signal. Trials are chosen with a fixed seed (3 per database,
    /// 2 in the meta pages) plus the bodies-root flip of item 6, which crashed nine commands.
    @Test func flipsInEveryDatabaseCrashNoCommand() async throws {
        let outcome = try await offPool(lowestPriority: true) { try Self.everyDatabaseFlips() }
        print("every-database flips: \(outcome.trials) trials, exit statuses \(outcome.counts.sorted { $0.key < $1.key })")
        #expect(outcome.problems == [], "\(outcome.problems.prefix(5))")
        #expect(outcome.trials == 27)
        #expect(outcome.counts.values.reduce(0, +) == 27 * (Self.readCommands.count + 3))
    }

    private static func everyDatabaseFlips() throws -> (trials: Int, counts: [Int32: Int], problems: [String]) {
        let dir = TemporaryDirectory("every-database")
        let store = try sampleStore(dir)
        // A checkpoint (the shell saves one on leaving) and an outbox entry, so those
        // databases have pages too.
        let shell = try runFetchlogBlocking(["--store", store, "repl"], stdin: "log stats\n")
        #expect(shell.status == 0, "\(shell.stderr)")
        let log = try EventLog.open(at: store)
        _ = try log.outboxAdd([Event(recordedAt: fixedTime, kind: .intent, source: "fetchlog", label: "outbox.test", body: Array("{}".utf8))])
        log.close()
        let check = try layout(store)
        let databases = ["bodies", "checkpoints", "events", "free", "main", "meta", "origins", "outbox"]
        #expect(check.pages.keys.sorted() == databases)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
        var random = TestPattern.Generator(seed: 20_261_125)
        // (byte, mask): the item-6 flip first, then 3 per database, then 2 in the meta pages.
        var flips = [(Int(check.pages["bodies"]![0]) * check.pageSize + 12, UInt8(0x10))]
        for database in databases {
            let pages = check.pages[database]!
            for i in 0 ..< 3 {
                let page = Int(pages[Int.random(in: 0 ..< pages.count, using: &random)])
                // Half in the page header and node offsets, half anywhere in the page.
                let offset = i % 2 == 0 ? Int.random(in: 0 ..< 48, using: &random) : Int.random(in: 0 ..< check.pageSize, using: &random)
                flips.append((page * check.pageSize + offset, UInt8.random(in: 1 ... 255, using: &random)))
            }
        }
        for _ in 0 ..< 2 {
            flips.append((Int.random(in: 0 ..< 2, using: &random) * check.pageSize + Int.random(in: 0 ..< 152, using: &random),
                          UInt8.random(in: 1 ... 255, using: &random)))
        }
        let commands = readCommands + [["log", "verify"], ["log", "show", "13"], ["log", "salvage", "--out", dir.sub("salvaged.ndjson")]]
        var counts: [Int32: Int] = [:]
        var problems: [String] = []
        for (trial, (offset, mask)) in flips.enumerated() {
            let copy = dir.sub("copy\(trial)")
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: copy) }
            var bytes = pristine
            bytes[offset] ^= mask
            try bytes.write(to: URL(fileURLWithPath: copy + "/data.mdb"))
            for command in commands {
                let result = try runFetchlogBlocking(["--store", copy] + command)
                counts[result.status, default: 0] += 1
                if result.signaled || ![0, 1, 2, 3].contains(result.status) {
                    problems.append("trial \(trial) (byte \(offset) ^ \(mask)) \(command.joined(separator: " ")): \(result.signaled ? "signal" : "exit") \(result.status): \(result.stderr.suffix(300))")
                }
                // The item-6 flip: refused at the open, every time.
                if trial == 0 && readCommands.contains(command) && result.status != 3 {
                    problems.append("bodies root flip, \(command.joined(separator: " ")): exit \(result.status), not 3")
                }
            }
        }
        return (flips.count, counts, problems)
    }
}
