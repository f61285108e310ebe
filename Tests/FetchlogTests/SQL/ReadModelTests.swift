import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSQL
import FetchlogSQLite
@testable import FetchlogSources
import SampleUpstream

/// The SQL read model (issue 35): derived files under the store's `sql/`, stamped with what
/// they cover. A one-shot `fetchlog sql` answers from them when current, rebuilds them when
/// absent, behind or damaged, and its answer never depends on which.
@Suite struct ReadModelTests {
    static let query = "SELECT hairColor, count(*) AS n FROM gnomes GROUP BY 1 ORDER BY n DESC, hairColor"
    static let expected = #"[{"hairColor":"Pink","n":285},{"hairColor":"Red","n":272},{"hairColor":"Green","n":267},{"hairColor":"Gray","n":258},{"hairColor":"Black","n":255}]"#

    func sql(_ store: String, _ query: String = ReadModelTests.query) async throws -> String {
        let result = try await runFetchlog(["--store", store, "--format", "json", "sql", query])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .newlines)
    }

    @Test func aOneShotWritesItReadsItAndRebuildsItWhenBehindOrDamaged() async throws {
        let dir = TemporaryDirectory("readmodel")
        let store = try DamagedFileTests.sampleStore(dir)
        let catalog = store + "/sql/catalog.sqlite"
        #expect(!FileManager.default.fileExists(atPath: catalog))
        // Absent: written by the first one-shot.
        #expect(try await sql(store) == Self.expected)
        #expect(try SQLiteConnectionProbe.stampSeq(catalog) == 13)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: store + "/sql")) == ["catalog.sqlite", "main.sqlite", "items.sqlite", "copies.sqlite", "digests"])
        // Current: read as it is (its file untouched).
        let written = try FileManager.default.attributesOfItem(atPath: catalog)[.modificationDate] as? Date
        #expect(try await sql(store) == Self.expected)
        #expect(try FileManager.default.attributesOfItem(atPath: catalog)[.modificationDate] as? Date == written)
        // A saved view is an event (seq 14): the process that appended it keeps the read
        // model current (tables maintained as events fold), so the next one-shot reads it.
        #expect(try await runFetchlog(["--store", store, "sql", "CREATE VIEW reds AS SELECT name FROM gnomes WHERE hairColor = 'Red'"]).status == 0)
        #expect(try SQLiteConnectionProbe.stampSeq(catalog) == 14)
        #expect(try await sql(store, "SELECT count(*) AS n FROM reds") == #"[{"n":272}]"#)
        // Behind: an event appended by a library caller (seq 15), which keeps no read model;
        // the next one-shot rebuilds it.
        do {
            let log = try EventLog.open(at: store)
            let library = try Store(log: log, sources: .seed)
            try await library.resetGnomeFilter()
            await library.close()
            log.close()
        }
        #expect(try SQLiteConnectionProbe.stampSeq(catalog) == 14)
        #expect(try await sql(store, "SELECT count(*) AS n FROM reds") == #"[{"n":272}]"#)
        #expect(try SQLiteConnectionProbe.stampSeq(catalog) == 15)
        // Damaged: garbage in its catalog; rebuilt, the answer the same.
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: catalog))
        #expect(try await sql(store) == Self.expected)
        #expect(try SQLiteConnectionProbe.stampSeq(catalog) == 15)
        // Deleted: nothing lost.
        try FileManager.default.removeItem(atPath: store + "/sql")
        #expect(try await sql(store, "SELECT count(*) AS n FROM reds") == #"[{"n":272}]"#)
        // The store still opens and verifies with it beside the log.
        #expect(try await runFetchlog(["--store", store, "replay", "--verify"]).status == 0)
        #expect(try await runFetchlog(["--store", store, "log", "verify"]).status == 0)
    }

    /// The sample upstream (stopped by the caller), a copy of the sample store, and the
    /// global options that fetch from one into the other with margins no load reaches.
    static func storeBesideUpstream(_ name: String) async throws -> (upstream: SampleUpstream, dir: TemporaryDirectory, store: String, global: [String]) {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start()
        let dir = TemporaryDirectory(name)
        let store = try DamagedFileTests.sampleStore(dir)
        return (upstream, dir, store, ["--store", store, "--upstream", base.absoluteString, "--retries", "0", "--connect-timeout", "300", "--read-timeout", "300"])
    }

    /// A fetch into a store that has a read model brings it up to the log (the census's
    /// parts written, the rest copied); a store without one is not given one by a fetch.
    @Test func aFetchKeepsAReadModelCurrentAndMakesNone() async throws {
        let (upstream, dir, store, global) = try await Self.storeBesideUpstream("readmodel-upkeep")
        defer { Task { await upstream.stop() }; _ = dir }
        let fetch = global + ["fetch", "brastlewark", "census"]
        let plain = try await runFetchlog(fetch)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store + "/sql"))
        #expect(try await sql(store) == Self.expected)
        #expect(try SQLiteConnectionProbe.stampSeq(store + "/sql/catalog.sqlite") == 14)
        let again = try await runFetchlog(fetch)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try SQLiteConnectionProbe.stampSeq(store + "/sql/catalog.sqlite") == 15)
        #expect(try await sql(store) == Self.expected)
    }

    /// A revalidation (304) of a manifest resource changes none of its pages: the read
    /// model the fetch keeps current copies the source's file (a marker written into it
    /// stays), as its key, made of the seqs of the pages held, did not move.
    @Test func aRevalidationCopiesTheResourcesTables() async throws {
        let (upstream, dir, store, global) = try await Self.storeBesideUpstream("readmodel-304")
        defer { Task { await upstream.stop() }; _ = dir }
        #expect(try await runFetchlog(global + ["source", "add", Repo.root + "/docs/manifests/census.json"]).status == 0)
        let fetched = try await runFetchlog(global + ["fetch", "census", "gnomes"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try await sql(store, "SELECT count(*) AS n FROM census.gnomes") == #"[{"n":1337}]"#)
        let before = try ColdStartTests.keys(store + "/sql")
        let file = try FetchlogSQLite.SQLiteConnection(path: store + "/sql/source-census.sqlite")
        try file.execute("UPDATE gnomes SET name = 'Marker' WHERE id = 0")
        // Digests written anew for the marker: a change not so sealed is damage (issue 44).
        try ReadModel.resealDigests(storePath: store)
        let again = try await runFetchlog(global + ["fetch", "census", "gnomes"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("304"), "\(again.stdout)")
        let after = try ColdStartTests.keys(store + "/sql")
        #expect(after["source:census"] == before["source:census"])
        #expect(try SQLiteConnectionProbe.stampSeq(store + "/sql/catalog.sqlite") == 16)
        #expect(try await sql(store, "SELECT name FROM census.gnomes WHERE id = 0") == #"[{"name":"Marker"}]"#)
    }

    /// The read model answers as the store does, table by table (views, events), byte for
    /// byte in canonical JSON.
    @Test func itAnswersAsTheStoreDoes() async throws {
        let dir = TemporaryDirectory("readmodel-same")
        let path = try DamagedFileTests.sampleStore(dir)
        _ = try await sql(path)
        let log = try EventLog.open(at: path)
        defer { log.close() }
        let store = try Store(log: log, sources: .seed)
        let subject = try #require(ReadModel.open(storePath: path, stamp: try ReadModel.stamp(of: store.maintenance)))
        let files = try SQLEngine(readModel: ReadModel.directory(of: path))
        for table in subject.tableNames {
            let query = "SELECT * FROM \(SQLEngine.quote(table))"
            let fromFiles = try files.answer(query, subject: subject, bounds: SQLEngine.Bounds())
            let fromStore = try await store.sql(query)
            #expect(fromFiles == fromStore, "\(table)")
        }
        #expect(subject.tableNames == ["artists", "artworks", "assets", "filters", "friends", "gnomes", "pages", "search", "sections", "shows", "status", "events"])
    }
}

/// Reads a read model's stamp directly (what the tests check the files by).
enum SQLiteConnectionProbe {
    static func stampSeq(_ catalog: String) throws -> Int64? {
        let connection = try FetchlogSQLite.SQLiteConnection(path: catalog, readOnly: true)
        let statement = try connection.prepare("SELECT seq FROM stamp")
        guard try statement.step(), case .integer(let seq) = statement.value(at: 0) else { return nil }
        return seq
    }
}
