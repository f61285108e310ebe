import Foundation
import Testing
@testable import FetchlogCore
import FetchlogSQL
import FetchlogSQLite
@testable import FetchlogSources
import SampleUpstream

/// Issue 44, items 4, 5 and 8: the read model (`sql/`) is a cache that never lies. A byte
/// flipped in any of its files, a file deleted or truncated, is found by its digests before
/// a one-shot reads it: the one-shot answers right, says on stderr that it rebuilt it, and
/// `log verify` names the damage (exit 2) until then. Rebuilds killed mid-write leave
/// nothing behind once the next one runs, and `sql/` takes the store's modes.
@Suite struct ReadModelDamageTests {
    static let name = "Tobus Quickwhistle"
    /// The seed source's `gnomes --limit 1`, from the read model's `copies.sqlite`.
    static let gnomesCSV = "id,name,age,hair,professions,friends\r\n0,Tobus Quickwhistle,306,Pink,\"Metalworker, Woodcarver, Stonecarver, Tinker, Tailor, Potter\",2\r\n"
    static let nameJSON = #"[{"name":"Tobus Quickwhistle"}]"# + "\n"

    /// The sample store with the census manifest's gnomes fetched (so `sql/` holds a
    /// `source-census.sqlite`), and a read model written by a first one-shot.
    static func store(_ name: String) async throws -> (dir: TemporaryDirectory, store: String) {
        let (upstream, dir, store, global) = try await ReadModelTests.storeBesideUpstream(name)
        let added = try await runFetchlog(global + ["source", "add", Repo.root + "/docs/manifests/census.json"])
        let fetched = try await runFetchlog(global + ["fetch", "census", "gnomes"])
        await upstream.stop()
        try #require(added.status == 0 && fetched.status == 0, "\(added.stderr)\(fetched.stderr)")
        let first = try await runFetchlog(["--store", store, "--format", "json", "sql", "SELECT name FROM census.gnomes WHERE id = 0"])
        try #require(first.stdout == nameJSON, "\(first.stderr)")
        return (dir, store)
    }

    /// One thing to ask and the file of the read model it reads.
    struct Ask {
        let file: String
        let arguments: [String]
    }

    static let sqlMain = ["--format", "json", "sql", "SELECT name FROM gnomes WHERE id = 0"]
    static let sqlCensus = ["--format", "json", "sql", "SELECT name FROM census.gnomes WHERE id = 0"]
    static let items = ["--format", "csv", "items", "census", "gnomes", "tobus quickwhistle"]
    static let gnomes = ["--format", "csv", "query", "gnomes --limit 1"]

    /// Flips the last byte of an occurrence of `text` in `file` ("…Quickwhistle" →
    /// "…Quickwhistlf"): the first one for which `shows` (reading the damaged file directly)
    /// is true, so the flip is one a reader trusting the file would answer.
    static func flip(_ file: String, _ text: String, shows: ((String) throws -> Bool)? = nil) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let needle = Data(text.utf8)
        var from = bytes.startIndex
        while let range = bytes.range(of: needle, in: from ..< bytes.endIndex) {
            let at = range.upperBound - 1
            bytes[at] ^= 0x03
            try bytes.write(to: URL(fileURLWithPath: file))
            if try shows?(file) ?? true { return }
            bytes[at] ^= 0x03
            try bytes.write(to: URL(fileURLWithPath: file))
            from = range.upperBound
        }
        Issue.record("no occurrence of \(text) in \(file) that a reader shows")
    }

    /// The name of gnome 0 in table `table` of the database at `file`, read directly.
    static func nameInFile(_ file: String, table: String) throws -> String? {
        let connection = try SQLiteConnection(path: file, readOnly: true)
        let statement = try connection.prepare("SELECT name FROM \(table) WHERE id = 0")
        guard try statement.step(), case .text(let name) = statement.value(at: 0) else { return nil }
        return name
    }

    @Test func aByteFlippedInAnyFileIsFoundReportedAndRebuiltNeverAnswered() async throws {
        let (dir, store) = try await Self.store("readmodel-flip")
        defer { _ = dir }
        let sql = store + "/sql"
        // What the store answers (`--confirmed` asks it): the exact reference for `items`.
        let itemsAnswer = try await runFetchlog(["--store", store] + Self.items + ["--confirmed"])
        #expect(itemsAnswer.stdout.hasPrefix("id,name,"), "\(itemsAnswer.stdout)")
        #expect(itemsAnswer.stdout.contains("\n0,Tobus Quickwhistle,"), "\(itemsAnswer.stdout)")
        let healthy = try await runFetchlog(["--store", store, "log", "verify"])
        #expect(healthy.status == 0, "\(healthy.stderr)")
        #expect(healthy.stdout == "ok: 15 events, seq 1…15, every checksum valid\nok: read model (sql/): 5 files, every one as its digests say, stamped with the log's last record\n")
        let cases: [(file: String, text: String, ask: [String], answer: String, shows: ((String) throws -> Bool)?)] = [
            ("main.sqlite", Self.name, Self.sqlMain, Self.nameJSON, { try Self.nameInFile($0, table: "gnomes") == "Tobus Quickwhistlf" }),
            ("source-census.sqlite", Self.name, Self.sqlCensus, Self.nameJSON, { try Self.nameInFile($0, table: "gnomes") == "Tobus Quickwhistlf" }),
            ("items.sqlite", Self.name, Self.items, itemsAnswer.stdout, nil),
            ("copies.sqlite", Self.name, Self.gnomes, Self.gnomesCSV, nil),
            ("catalog.sqlite", "gnomes", Self.sqlMain, Self.nameJSON, nil),
        ]
        for (file, text, ask, answer, shows) in cases {
            // Current and healthy: answered from it, nothing said.
            let before = try await runFetchlog(["--store", store] + ask)
            #expect(before.stdout == answer, "\(file): \(before.stderr)")
            #expect(before.stderr == "", "\(file)")
            try Self.flip(sql + "/" + file, text, shows: shows)
            // `log verify` names it (exit 2), the log intact.
            let verify = try await runFetchlog(["--store", store, "log", "verify"])
            #expect(verify.status == 2, "\(file): \(verify.stdout)\(verify.stderr)")
            #expect(verify.stderr == """
                fetchlog: damaged: read model sql/\(file): checksum mismatch
                intact: the log (15 events, seq 1…15, every checksum valid)
                the read model is derived from the log: the next one-shot (`sql`, `items`, `query`) rebuilds it, or delete sql/ (nothing is lost)

                """, "\(file)")
            // The one-shot: the right answer, and one line saying it rebuilt the read model.
            let damaged = try await runFetchlog(["--store", store] + ask)
            #expect(damaged.status == 0, "\(file): \(damaged.stderr)")
            #expect(damaged.stdout == answer, "\(file)")
            #expect(damaged.stderr == "sql: the read model was damaged (\(file): checksum mismatch); rebuilt from the log\n", "\(file)")
            // Rebuilt: nothing said, every file as its digests say.
            let after = try await runFetchlog(["--store", store] + ask)
            #expect(after.stdout == answer, "\(file)")
            #expect(after.stderr == "", "\(file)")
            #expect(try await runFetchlog(["--store", store, "log", "verify"]).stdout == healthy.stdout, "\(file)")
            let rebuilt = try Data(contentsOf: URL(fileURLWithPath: sql + "/" + file))
            #expect(rebuilt.range(of: Data(text.utf8)) != nil, "\(file)")
        }
        // Every other one-shot reading a flipped file is refused by it too: the census file
        // flipped, `sql` over `main.sqlite` alone still checks every file SQL may attach.
        try Self.flip(sql + "/source-census.sqlite", Self.name)
        let other = try await runFetchlog(["--store", store] + Self.sqlMain)
        #expect(other.stdout == Self.nameJSON)
        #expect(other.stderr == "sql: the read model was damaged (source-census.sqlite: checksum mismatch); rebuilt from the log\n")
    }

    @Test func aDeletedOrTruncatedFileLeavesNoPersistentError() async throws {
        let (dir, store) = try await Self.store("readmodel-missing")
        defer { _ = dir }
        let sql = store + "/sql"
        func size(_ file: String) throws -> Int { try (FileManager.default.attributesOfItem(atPath: sql + "/" + file)[.size] as? Int) ?? -1 }
        func truncate(_ file: String, to length: Int) throws {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: sql + "/" + file))
            try handle.truncate(atOffset: UInt64(length))
            try handle.close()
        }
        let census = try size("source-census.sqlite"), items = try size("items.sqlite"), copies = try size("copies.sqlite")
        let itemsAnswer = try await runFetchlog(["--store", store] + Self.items + ["--confirmed"]).stdout
        let cases: [(damage: () throws -> Void, ask: [String], answer: String, note: String)] = [
            ({ try FileManager.default.removeItem(atPath: sql + "/main.sqlite") }, Self.sqlMain, Self.nameJSON,
             "sql: the read model was damaged (main.sqlite: missing); rebuilt from the log\n"),
            ({ try truncate("source-census.sqlite", to: census / 2) }, Self.sqlCensus, Self.nameJSON,
             "sql: the read model was damaged (source-census.sqlite: \(census / 2) bytes, \(census) expected); rebuilt from the log\n"),
            ({ try truncate("items.sqlite", to: 0) }, Self.items, itemsAnswer,
             "sql: the read model was damaged (items.sqlite: 0 bytes, \(items) expected); rebuilt from the log\n"),
            ({ try truncate("copies.sqlite", to: 4096) }, Self.gnomes, Self.gnomesCSV,
             "sql: the read model was damaged (copies.sqlite: 4096 bytes, \(copies) expected); rebuilt from the log\n"),
            ({ try FileManager.default.removeItem(atPath: sql + "/catalog.sqlite") }, Self.sqlCensus, Self.nameJSON,
             "sql: the read model was damaged (catalog.sqlite: missing); rebuilt from the log\n"),
            ({ try FileManager.default.removeItem(atPath: sql + "/digests") }, Self.items, itemsAnswer,
             "sql: the read model was damaged (digests: missing); rebuilt from the log\n"),
            ({ try Data("fetchlog read model digests 1\nstamp 1 2 3 4\ncheck 0\n".utf8).write(to: URL(fileURLWithPath: sql + "/digests")) },
             Self.sqlMain, Self.nameJSON, "sql: the read model was damaged (digests: checksum mismatch); rebuilt from the log\n"),
            // Deleted whole: made again, as the first one-shot makes it (nothing to say).
            ({ try FileManager.default.removeItem(atPath: sql) }, Self.gnomes, Self.gnomesCSV, ""),
        ]
        for (number, (damage, ask, answer, note)) in cases.enumerated() {
            try damage()
            let first = try await runFetchlog(["--store", store] + ask)
            #expect(first.status == 0, "case \(number): \(first.stderr)")
            #expect(first.stdout == answer, "case \(number)")
            #expect(first.stderr == note, "case \(number)")
            // No error left behind: every one-shot answers, nothing said.
            for again in [Self.sqlMain, Self.sqlCensus, Self.items, Self.gnomes] {
                let result = try await runFetchlog(["--store", store] + again)
                #expect(result.status == 0 && result.stderr == "", "case \(number) \(again): \(result.stderr)")
            }
            #expect(try await runFetchlog(["--store", store, "log", "verify"]).status == 0, "case \(number)")
        }
    }

    /// `log verify` on a store without a read model says what it said before; one behind
    /// the log (a library caller appended) is not damage.
    @Test func logVerifySaysWhatTheReadModelIs() async throws {
        let dir = TemporaryDirectory("readmodel-verify")
        let store = try DamagedFileTests.sampleStore(dir)
        #expect(try await runFetchlog(["--store", store, "log", "verify"]).stdout == "ok: 13 events, seq 1…13, every checksum valid\n")
        #expect(try await runFetchlog(["--store", store] + Self.sqlMain).stdout == Self.nameJSON)
        #expect(try await runFetchlog(["--store", store, "log", "verify"]).stdout
            == "ok: 13 events, seq 1…13, every checksum valid\nok: read model (sql/): 4 files, every one as its digests say, stamped with the log's last record\n")
        do {
            let log = try EventLog.open(at: store)
            let library = try Store(log: log, sources: .seed)
            try await library.resetGnomeFilter()
            await library.close()
            log.close()
        }
        let behind = try await runFetchlog(["--store", store, "--format", "json", "log", "verify"])
        #expect(behind.status == 0)
        let json = try JSONValue.parse(behind.stdout)
        #expect(json["ok"] == .bool(true))
        #expect(json["readModel"]?["files"] == .number(4))
        #expect(json["readModel"]?["behind"] == .bool(true))
        #expect(json["readModel"]?["damaged"] == .array([]))
        // A file no digest lists is damage too.
        try Data("stray".utf8).write(to: URL(fileURLWithPath: store + "/sql/stray.sqlite"))
        let stray = try await runFetchlog(["--store", store, "log", "verify"])
        #expect(stray.status == 2)
        #expect(stray.stderr.hasPrefix("fetchlog: damaged: read model sql/stray.sqlite: not in digests\n"), "\(stray.stderr)")
    }

    /// Item 5: 16 one-shots killed (SIGKILL) while each writes its `sql.tmp-PID` leave at
    /// most the last one's folder at any time (each rebuild removes those of dead writers),
    /// and none once a one-shot finishes: the store is then the size of a clean one. Item 8:
    /// the folder being written already has the store's modes.
    @Test func killedRebuildsLeaveNothing() async throws {
        // The census 20 times over (26,740 gnomes): a rebuild takes long enough to be caught.
        var configuration = SampleUpstreamConfiguration()
        configuration.censusCopies = 20
        let upstream = try SampleUpstream(configuration: configuration)
        let base = try await upstream.start()
        let dir = TemporaryDirectory("readmodel-kill")
        let store = try DamagedFileTests.sampleStore(dir)
        let fetched = try await runFetchlog(["--store", store, "--upstream", base.absoluteString, "--retries", "0", "fetch", "brastlewark", "census"])
        await upstream.stop()
        try #require(fetched.status == 0, "\(fetched.stderr)")
        let count = #"[{"n":26740}]"# + "\n"
        let ask = ["--store", store, "--format", "json", "sql", "SELECT count(*) AS n FROM gnomes"]
        // The clean size: the store with its read model written once.
        let clean = try await runFetchlog(ask)
        #expect(clean.stdout == count, "\(clean.stderr)")
        let cleanSize = try Self.size(of: store)
        let cleanNames = try Set(FileManager.default.contentsOfDirectory(atPath: store))
        #expect(cleanNames == ["data.mdb", "lock.mdb", "sql"])
        var kills = 0, attempts = 0
        while kills < 16, attempts < 64 {
            attempts += 1
            try? FileManager.default.removeItem(atPath: store + "/sql")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Repo.executable)
            process.arguments = ask
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let temporary = store + "/sql.tmp-\(process.processIdentifier)"
            // Killed once its folder exists and holds a file with bytes in it (not at a time).
            var caught = false
            while process.isRunning {
                if let names = try? FileManager.default.contentsOfDirectory(atPath: temporary),
                   names.contains(where: { ((try? FileManager.default.attributesOfItem(atPath: temporary + "/" + $0)[.size] as? Int) ?? 0) > 0 }) {
                    kill(process.processIdentifier, SIGKILL)
                    caught = true
                    break
                }
                try await Task.sleep(for: .milliseconds(2))
            }
            process.waitUntilExit()
            guard caught, process.terminationReason == .uncaughtSignal else { continue }
            kills += 1
            // While written: the store's modes.
            #expect(Self.mode(temporary) == 0o700)
            for name in try FileManager.default.contentsOfDirectory(atPath: temporary) {
                #expect(Self.mode(temporary + "/" + name) == 0o600, "\(name)")
            }
            // The killed one's folder alone: every earlier one was removed by the rebuild after it.
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: store).filter { $0.hasPrefix("sql.tmp-") }
            #expect(leftovers == ["sql.tmp-\(process.processIdentifier)"], "\(leftovers)")
        }
        #expect(kills == 16, "\(kills) kills in \(attempts) attempts")
        let answer = try await runFetchlog(ask)
        #expect(answer.stdout == count, "\(answer.stderr)")
        #expect(answer.stderr == "")
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: store)) == cleanNames)
        let size = try Self.size(of: store)
        #expect(size * 10 <= cleanSize * 11 && size * 10 >= cleanSize * 9, "\(size) bytes against \(cleanSize) clean")
    }

    /// A leftover is removed only when its writer is gone: one named by a live pid (this
    /// test's), or one whose lock is held, stays; a dead pid's folder and `.old` go.
    @Test func leftoversOfLiveWritersStay() async throws {
        let dir = TemporaryDirectory("readmodel-leftovers")
        let store = try DamagedFileTests.sampleStore(dir)
        #expect(try await runFetchlog(["--store", store] + Self.sqlMain).stdout == Self.nameJSON)
        // A pid that was and is no more: a child run to its end.
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let dead = ended.processIdentifier
        let live = ProcessInfo.processInfo.processIdentifier
        let fm = FileManager.default
        for name in ["sql.tmp-\(dead)", "sql.tmp-\(dead).old", "sql.tmp-\(live)", "sql.tmp-\(live).old"] {
            try fm.createDirectory(atPath: store + "/" + name, withIntermediateDirectories: false)
            try Data(count: 4096).write(to: URL(fileURLWithPath: store + "/" + name + "/main.sqlite"))
        }
        // Dead, but its lock held (a writer this pid namespace cannot see): stays.
        let locked = "sql.tmp-\(dead + 1_000_000)"
        try fm.createDirectory(atPath: store + "/" + locked, withIntermediateDirectories: false)
        let descriptor = open(store + "/" + locked, O_RDONLY | O_DIRECTORY)
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        defer { close(descriptor) }
        // A current read model: the one-shot only reads, and clears what dead writers left.
        let answer = try await runFetchlog(["--store", store] + Self.sqlMain)
        #expect(answer.stdout == Self.nameJSON)
        #expect(answer.stderr == "")
        #expect(try Set(fm.contentsOfDirectory(atPath: store)) == ["data.mdb", "lock.mdb", "sql", "sql.tmp-\(live)", "sql.tmp-\(live).old", locked])
    }

    /// Item 8: `sql/` and every file in it take the store's modes (0700: 0600).
    @Test func theReadModelTakesTheStoresModes() async throws {
        let (dir, store) = try await Self.store("readmodel-modes")
        defer { _ = dir }
        #expect(Self.mode(store) == 0o700)
        #expect(Self.mode(store + "/sql") == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: store + "/sql").sorted()
        #expect(names == ["catalog.sqlite", "copies.sqlite", "digests", "items.sqlite", "main.sqlite", "source-census.sqlite"])
        for name in names { #expect(Self.mode(store + "/sql/" + name) == 0o600, "\(name)") }
        // Written again behind the log (a part copied from the one there): the same.
        do {
            let log = try EventLog.open(at: store)
            let library = try Store(log: log, sources: .seed)
            try await library.resetGnomeFilter()
            await library.close()
            log.close()
        }
        #expect(try await runFetchlog(["--store", store] + Self.sqlCensus).stdout == Self.nameJSON)
        #expect(Self.mode(store + "/sql") == 0o700)
        for name in names { #expect(Self.mode(store + "/sql/" + name) == 0o600, "\(name)") }
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return info.st_mode & 0o7777
    }

    /// The bytes of every file under `path`.
    static func size(of path: String) throws -> Int {
        var total = 0
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let name = enumerator?.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + name)
            if attributes[.type] as? FileAttributeType == .typeRegular { total += (attributes[.size] as? Int) ?? 0 }
        }
        return total
    }
}
