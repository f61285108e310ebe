import Foundation
import Testing
@testable import FetchlogCore
import FetchlogSQL
import FetchlogSQLite
import SampleUpstream
@testable import FetchlogSources

/// Issue 35, cold start: a one-shot command that reads no item decodes no body (a
/// checkpoint restores held bodies undecoded, and large bodies make one due), and a one-shot
/// `items SOURCE RESOURCE [TEXT]` answers from the read model's copy of the items, exactly
/// as the store does.
@Suite struct ColdStartTests {
    /// The census body (1,337 gnomes) is about 200 KiB: a threshold below it makes its fetch
    /// bring a checkpoint due, as a 4 MiB one does at scale.
    static func configuration(_ upstream: URL) -> Store.Configuration {
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: upstream)
        // A failed fetch would hold no body to count.
        configuration.fetching.bearTheSuitesLoad()
        configuration.checkpointBodyBytes = 64 << 10
        return configuration
    }

    /// The sample upstream (stopped when the test ends) and a new store directory.
    static func upstreamAndDirectory(_ name: String) async throws -> (upstream: SampleUpstream, base: URL, temporary: TemporaryDirectory) {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        return (upstream, try await upstream.start(), TemporaryDirectory(name))
    }

    @Test func aFetchOfALargeBodySavesACheckpointAndOpeningDecodesNoBodyUntilAViewReadsIt() async throws {
        let (upstream, base, temporary) = try await Self.upstreamAndDirectory("cold-start")
        defer { Task { await upstream.stop() } }
        let directory = URL(filePath: temporary.path)
        do {
            let store = try await SeedSources.openStore(at: directory, configuration: Self.configuration(base))
            let report = try await store.fetch(.brastlewarkCensus)
            try #require(report.holdsBody, "\(report)")
            // Seq 1, one event: the interval (500) is far, the body's bytes are not.
            #expect(try Checkpoint.decode(try #require(try store.log.loadCheckpoint()), log: store.log, sources: store.sources)?.seq == 1)
            await store.close()
        }
        var configuration = Self.configuration(base)
        configuration.fetches = false
        let store = try await SeedSources.openStore(at: directory, configuration: configuration)
        #expect(store.origin == .checkpoint(seq: 1, tail: 0))
        let state = store.snapshot.state
        let held = try #require(state.documents[ResourceKey(.brastlewarkCensus)])
        #expect(held.seq == 1)
        #expect(!held.isDecoded)
        // What `status` reads: the freshness of every resource, no body.
        let report = FreshnessReport(state: state, policy: FreshnessPolicy(sources: state.sources), now: state.status.values.first!.lastAttempt!)
        #expect(report.rows.map(\.key) == [ResourceKey(.brastlewarkCensus)])
        #expect(!held.isDecoded)
        // A view reads the census: decoded once, for every copy of the state.
        #expect(GnomesView(state: state).count == 1337)
        #expect(held.isDecoded)
        #expect(store.snapshot.state.documents[ResourceKey(.brastlewarkCensus)]?.isDecoded == true)
        await store.close()
    }

    @Test func aStoreWithoutSuchACheckpointSavesOneWhenItsOpeningDecodedLargeBodies() async throws {
        let (upstream, base, temporary) = try await Self.upstreamAndDirectory("cold-start-open")
        defer { Task { await upstream.stop() } }
        let directory = URL(filePath: temporary.path)
        do {
            // Written with the threshold out of reach: no checkpoint.
            var configuration = Self.configuration(base)
            configuration.checkpointBodyBytes = .max
            let store = try await SeedSources.openStore(at: directory, configuration: configuration)
            for resource in [Resource.brastlewarkCensus, .tvmazeShowsPage(0)] {
                let report = try await store.fetch(resource)
                try #require(report.holdsBody, "\(report)")
            }
            #expect(try store.log.loadCheckpoint() == nil)
            await store.close()
        }
        let first = try await SeedSources.openStore(at: directory, configuration: Self.configuration(base))
        #expect(first.origin == .replay(events: 2))
        await first.close()
        let second = try await SeedSources.openStore(at: directory, configuration: Self.configuration(base))
        #expect(second.origin == .checkpoint(seq: 2, tail: 0))
        #expect(second.snapshot.state.documents.values.allSatisfy { !$0.isDecoded })
        #expect(second.snapshot.state.documents.count == 2)
        await second.close()
    }

    /// `items census gnomes TEXT` and `items catalog items TEXT` from the read model equal
    /// the store's answer (`--confirmed` always asks the store; nothing is pending here) in
    /// every format, page and search; the copy is what answers (a marker written into it
    /// shows), and one behind the log is written anew.
    @Test func oneShotItemsAnswerFromTheReadModelAsTheStoreDoes() async throws {
        let fixture = try await SQLTestStore.make("cold-items")
        let asks: [[String]] = [
            ["items", "census", "gnomes", "tob"], ["items", "census", "gnomes"], ["items", "census", "gnomes", "TOB", "--page", "2", "--limit", "3"],
            ["items", "census", "gnomes", "pink", "--all"], ["items", "census", "gnomes", "zzzz"], ["items", "catalog", "items", "ca"],
            ["items", "catalog", "reviews"], ["items", "census", "gnomes", "é"],
        ]
        for ask in asks {
            for format in ["table", "json", "csv"] {
                let store = try await fixture.run(["--format", format] + ask + ["--confirmed"])
                let copy = try await fixture.run(["--format", format] + ask)
                #expect(copy.status == store.status, "\(ask) \(format): \(copy.stderr)")
                #expect(copy.stdout == store.stdout, "\(ask) \(format)")
                #expect(copy.stderr == store.stderr, "\(ask) \(format)")
            }
        }
        let first = try await fixture.run(["--format", "csv", "items", "census", "gnomes", "--limit", "1"])
        #expect(first.stdout.hasPrefix("id,name,"), "\(first.stdout)")
        #expect(first.stdout.contains("\n0,Tobus Quickwhistle,"), "\(first.stdout)")
        // The copy answers: its first record, changed, shows.
        let items = fixture.store + "/sql/items.sqlite"
        let connection = try FetchlogSQLite.SQLiteConnection(path: items)
        let table = try Self.recordsTable(connection, source: "census", resource: "gnomes")
        try connection.execute("UPDATE \(table) SET record = replace(record, 'Tobus Quickwhistle', 'Marker Copy') WHERE rowid = 1")
        // Digests written anew for the marker: a change not so sealed is damage (issue 44).
        try ReadModel.resealDigests(storePath: fixture.store)
        let marked = try await fixture.run(["--format", "csv", "items", "census", "gnomes", "--limit", "1"])
        #expect(marked.stdout.contains("\n0,Marker Copy,"), "\(marked.stdout)")
        // A record that is not JSON (sealed: what a digest cannot tell): the store answers,
        // and the copy is written anew.
        try connection.execute("UPDATE \(table) SET record = 'not json' WHERE rowid = 1")
        try ReadModel.resealDigests(storePath: fixture.store)
        let repaired = try await fixture.run(["--format", "csv", "items", "census", "gnomes", "--limit", "1"])
        #expect(repaired.stdout == first.stdout, "\(repaired.stderr)")
        // One line says so (then the page's warning: csv prints no footer).
        let note = repaired.stderr.split(separator: "\n").map(String.init)
        #expect(note.first?.hasPrefix("sql: the read model was damaged (items.sqlite: records_") == true, "\(repaired.stderr)")
        #expect(note.first?.hasSuffix("); rebuilt from the log") == true, "\(repaired.stderr)")
        #expect(note.dropFirst() == ["fetchlog: warning: items 1–1 of 1337; --all for every item, --page 2 for the next"], "\(repaired.stderr)")
        let again = try FetchlogSQLite.SQLiteConnection(path: items)
        try again.execute("UPDATE \(try Self.recordsTable(again, source: "census", resource: "gnomes")) SET record = replace(record, 'Tobus Quickwhistle', 'Marker Copy') WHERE rowid = 1")
        try ReadModel.resealDigests(storePath: fixture.store)
        #expect(try await fixture.run(["--format", "csv", "items", "census", "gnomes", "--limit", "1"]).stdout == marked.stdout)
        // An event of another source (a saved view): the process that appended it writes the
        // read model anew with census's items copied, marker and all, and the next one-shot
        // answers from it.
        let stamp = try SQLiteConnectionProbe.stampSeq(fixture.store + "/sql/catalog.sqlite")
        #expect(try await fixture.run(["sql", "CREATE VIEW olds AS SELECT name FROM gnomes WHERE age > 300"]).status == 0)
        #expect(try SQLiteConnectionProbe.stampSeq(fixture.store + "/sql/catalog.sqlite") == stamp.map { $0 + 1 })
        #expect(try await fixture.run(["--format", "csv", "items", "census", "gnomes", "--limit", "1"]).stdout == marked.stdout)
        // Deleted: written from nothing, the marker gone.
        try FileManager.default.removeItem(atPath: fixture.store + "/sql")
        #expect(try await fixture.run(["--format", "csv", "items", "census", "gnomes", "--limit", "1"]).stdout == first.stdout)
        let rewritten = try FetchlogSQLite.SQLiteConnection(path: items, readOnly: true)
        let record = try rewritten.prepare("SELECT record FROM \(try Self.recordsTable(rewritten, source: "census", resource: "gnomes")) WHERE rowid = 1")
        #expect(try record.step())
        guard case .text(let text) = record.value(at: 0) else { Issue.record("no record"); return }
        #expect(text.contains("Tobus Quickwhistle"))
        // An unknown source or resource still gets the store's error.
        let unknown = try await fixture.run(["items", "census", "gnomez"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("census has no resource 'gnomez' (did you mean 'gnomes'?)"), "\(unknown.stderr)")
    }

    /// The seed source's `gnomes [TEXT]` run one-shot (`fetchlog query "gnomes tob"`)
    /// answers from the read model's copy of the census (`copies.sqlite`), exactly as a shell
    /// over the store does: every format, page, search, error and footer, with and without
    /// an active filter. (`--format` inside the line is the shell's to handle: that run asks
    /// the store, and is the reference here.) The copy is what answers (a marker shows), a
    /// damaged one is written anew, and a filter set since moves the read model on.
    @Test func oneShotGnomesAnswerFromTheReadModelAsTheStoreDoes() async throws {
        let fixture = try await SQLTestStore.make("cold-gnomes")
        let asks = ["gnomes tob", "gnomes", "gnomes TOB --page 2 --limit 3", "gnomes --limit 500 pink", "gnomes zzzz", "gnomes é",
                    "gnomes \"  tinker  \"", "gnomes --page 99", "gnomes --limit 0", "gnomes --colour pink", "gnomes Tobus Quickwhistle"]
        func compare(_ label: String) async throws {
            for ask in asks {
                for format in ["table", "json", "csv"] {
                    let store = try await fixture.run(["query", ask + " --format " + format])
                    let copy = try await fixture.run(["--format", format, "query", ask])
                    #expect(copy.status == store.status, "\(label) \(ask) \(format): \(copy.stderr)")
                    #expect(copy.stdout == store.stdout, "\(label) \(ask) \(format)")
                    #expect(copy.stderr == store.stderr, "\(label) \(ask) \(format)")
                }
            }
        }
        // The first one-shot finds no read model: the store answers and writes it.
        let first = try await fixture.run(["--format", "csv", "query", "gnomes --limit 1"])
        #expect(first.stdout == "id,name,age,hair,professions,friends\r\n0,Tobus Quickwhistle,306,Pink,\"Metalworker, Woodcarver, Stonecarver, Tinker, Tailor, Potter\",2\r\n",
                "\(first.stdout)")
        #expect(FileManager.default.fileExists(atPath: fixture.store + "/sql/copies.sqlite"))
        try await compare("no filter")
        let copies = try FetchlogSQLite.SQLiteConnection(path: fixture.store + "/sql/copies.sqlite")
        let table = try Self.copyTable(copies, view: "gnomes")
        try copies.execute("UPDATE \(table) SET record = replace(record, 'Tobus Quickwhistle', 'Marker Copy') WHERE rowid = 1")
        // Digests written anew for the marker: a change not so sealed is damage (issue 44).
        try ReadModel.resealDigests(storePath: fixture.store)
        let marked = try await fixture.run(["--format", "csv", "query", "gnomes --limit 1"])
        #expect(marked.stdout.contains("\n0,Marker Copy,306,"), "\(marked.stdout)")
        // Damaged: the store answers, and the read model is written anew (the marker gone).
        try copies.execute("UPDATE \(table) SET record = 'not json' WHERE rowid = 1")
        try ReadModel.resealDigests(storePath: fixture.store)
        #expect(try await fixture.run(["--format", "csv", "query", "gnomes --limit 1"]).stdout == first.stdout)
        let rewritten = try FetchlogSQLite.SQLiteConnection(path: fixture.store + "/sql/copies.sqlite")
        try rewritten.execute("UPDATE \(try Self.copyTable(rewritten, view: "gnomes")) SET record = replace(record, 'Tobus Quickwhistle', 'Marker Copy') WHERE rowid = 1")
        try ReadModel.resealDigests(storePath: fixture.store)
        #expect(try await fixture.run(["--format", "csv", "query", "gnomes --limit 1"]).stdout == marked.stdout)
        // A filter set: the log moved, so the next one-shot asks the store and writes the
        // copy anew (the census's view rebuilt: brastlewark's events moved), filter and all.
        #expect(try await fixture.run(["query", "filter set hair_color=pink age=100-300"]).status == 0)
        let filtered = try await fixture.run(["query", "gnomes --limit 2"])
        #expect(filtered.stdout.contains("(filter: hair_color=pink age=100-300)"), "\(filtered.stdout)")
        #expect(!filtered.stdout.contains("Marker Copy"))
        try await compare("filtered")
    }

    /// A read model behind the log is written anew, copying every part whose sources' events
    /// did not move (a marker written into such a part survives), building the rest (a marker
    /// there is gone), and answering as the store does.
    @Test func aReadModelBehindCopiesThePartsWhoseSourcesDidNotMove() async throws {
        let fixture = try await SQLTestStore.make("cold-reuse")
        let directory = fixture.store + "/sql"
        #expect(try await fixture.run(["sql", "SELECT 1"]).status == 0) // writes it (with keys)
        let keys = try Self.keys(directory)
        #expect(keys["view:gnomes"]?.contains("brastlewark=") == true)
        #expect(keys["source:census"]?.hasPrefix("defined=") == true)
        #expect(keys["view:status"] == nil)
        // Markers in a brastlewark table, a tvmaze table, the census file and the census items.
        let main = try FetchlogSQLite.SQLiteConnection(path: directory + "/main.sqlite")
        try main.execute("UPDATE gnomes SET name = 'Marker Gnome' WHERE id = 0; UPDATE shows SET name = 'Marker Show' WHERE id = 1")
        let census = try FetchlogSQLite.SQLiteConnection(path: directory + "/source-census.sqlite")
        try census.execute("UPDATE gnomes SET name = 'Marker Census' WHERE id = 0")
        // Digests written anew for the markers: a change not so sealed is damage (issue 44).
        try ReadModel.resealDigests(storePath: fixture.store)
        // A brastlewark intent (seq past the stamp): its views are built again, the rest copied.
        #expect(try await fixture.run(["query", "filter set hair_color=pink"]).status == 0)
        let answer = try await fixture.run(["--format", "csv", "sql", "SELECT (SELECT name FROM gnomes WHERE id = 0), (SELECT name FROM shows WHERE id = 1), (SELECT name FROM census.gnomes WHERE id = 0)"])
        #expect(answer.status == 0, "\(answer.stderr)")
        let row = answer.stdout.split(separator: "\r\n").map(String.init).last ?? ""
        #expect(row == "Tobus Quickwhistle,Marker Show,Marker Census", "\(answer.stdout)")
        #expect(try Self.keys(directory)["view:filters"] != keys["view:filters"])
        #expect(try Self.keys(directory)["view:shows"] == keys["view:shows"])
        // Copied tables keep their declared columns: the schema as a read model from nothing has it.
        let schema = try Self.definitions(directory + "/main.sqlite")
        // Without the markers (a new read model from nothing) every table answers as the store.
        try FileManager.default.removeItem(atPath: directory)
        #expect(try await fixture.run(["sql", "SELECT 1"]).status == 0)
        #expect(try Self.definitions(directory + "/main.sqlite") == schema)
        #expect(schema.count == 12, "\(schema)")
        let head = String(fixture.events.count + 1)
        for table in ["gnomes", "shows", "filters", "census.gnomes", "catalog.items", "catalog.reviews", "events"] {
            let query = "SELECT * FROM \(table)"
            let fromFiles = try await fixture.run(["--format", "json", "sql", query])
            // `--at` asks the store (a one-shot at the head asks the read model).
            let fromStore = try await fixture.run(["--format", "json", "sql", query, "--at", head])
            #expect(fromFiles.stdout == fromStore.stdout, "\(table)")
        }
    }

    /// Each table's definition in the database at `path`, by name.
    static func definitions(_ path: String) throws -> [String: String] {
        let connection = try FetchlogSQLite.SQLiteConnection(path: path, readOnly: true)
        let rows = try connection.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
        var definitions: [String: String] = [:]
        while try rows.step() {
            if case .text(let name) = rows.value(at: 0), case .text(let sql) = rows.value(at: 1) { definitions[name] = sql }
        }
        return definitions
    }

    static func keys(_ directory: String) throws -> [String: String] {
        let catalog = try FetchlogSQLite.SQLiteConnection(path: directory + "/catalog.sqlite", readOnly: true)
        let rows = try catalog.prepare("SELECT part, key FROM keys")
        var keys: [String: String] = [:]
        while try rows.step() {
            if case .text(let part) = rows.value(at: 0), case .text(let key) = rows.value(at: 1) { keys[part] = key }
        }
        return keys
    }

    static func recordsTable(_ connection: FetchlogSQLite.SQLiteConnection, source: String, resource: String) throws -> String {
        let statement = try connection.prepare("SELECT records FROM resources WHERE source = ? AND resource = ?")
        try statement.bind([.text(source), .text(resource)])
        guard try statement.step(), case .text(let table) = statement.value(at: 0) else { throw CocoaError(.fileReadCorruptFile) }
        return table
    }

    static func copyTable(_ connection: FetchlogSQLite.SQLiteConnection, view: String) throws -> String {
        let statement = try connection.prepare("SELECT records FROM copies WHERE view = ?")
        try statement.bind([.text(view)])
        guard try statement.step(), case .text(let table) = statement.value(at: 0) else { throw CocoaError(.fileReadCorruptFile) }
        return table
    }
}
