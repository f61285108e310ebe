import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSQL

/// Issue 44, item 6: a saved view's name reads as one thing only. Each hostile name is
/// refused at every door (`fetchlog sql`, the shell, `POST /api/sql`, `Store.sql`) with the
/// rule it breaks and the name it collides with, exit 64 / HTTP 400, nothing appended; the
/// real tables still answer by their names; `GET /api/views/NAME` answers only a saved view;
/// `IF NOT EXISTS` and `IF EXISTS` say truthfully that nothing happened; a view an older log
/// holds under a name now refused is left out of SQL (the table wins), deterministically.
@Suite(.serialized) struct SavedViewNameTests {
    static let invisible = "so it does not read as it is: a saved view's name holds no whitespace, control, zero-width, bidirectional or other invisible character"
    static let folded = "(compared with Unicode NFKC and case folded, invisible characters dropped)"

    /// Each hostile name as the statement writes it, and the refusal's exact message.
    static func hostile(hairCountsSeq: Int) -> [(sql: String, message: String)] {
        [
            (#""census.gnomes""#, #"refused: "census.gnomes" cannot name a saved view: a '.' reads as SOURCE.RESOURCE: a saved view's name holds none; it is the name of the table of resource gnomes of source census"#),
            ("main", #"refused: "main" cannot name a saved view: it is the name of SQLite's schema main"#),
            ("temp", #"refused: "temp" cannot name a saved view: it is the name of SQLite's schema temp"#),
            (#""events ""#, #"refused: "events " cannot name a saved view: it holds whitespace (U+0020), "# + invisible + "; it reads as events \(folded), the name of the log's table events"),
            ("ｅｖｅｎｔｓ", #"refused: "ｅｖｅｎｔｓ" cannot name a saved view: it reads as events "# + folded + ", the name of the log's table events"),
            ("gnomes\u{200B}", #"refused: "gnomes\u{200B}" cannot name a saved view: it holds a zero-width character (U+200B), "# + invisible + "; it reads as gnomes \(folded), the name of the table of view gnomes"),
            ("\u{202E}gnomes", #"refused: "\u{202E}gnomes" cannot name a saved view: it holds a bidirectional control (U+202E), "# + invisible + "; it reads as gnomes \(folded), the name of the table of view gnomes"),
            (#""hair\u{2066}counts""#.replacingOccurrences(of: #"\u{2066}"#, with: "\u{2066}"),
             #"refused: "hair\u{2066}counts" cannot name a saved view: it holds a bidirectional control (U+2066), "# + invisible),
            ("Events", #"refused: "Events" cannot name a saved view: it is the name of the log's table events"#),
            ("sqlite_shadow", #"refused: "sqlite_shadow" cannot name a saved view: names that start with sqlite_ are SQLite's own"#),
            ("census", #"refused: "census" cannot name a saved view: it is the name of the schema of source census (its tables are census.RESOURCE)"#),
            ("reviews", #"refused: "reviews" cannot name a saved view: it is the name of resource reviews of source catalog (the table catalog.reviews)"#),
            ("gnomes", #"refused: "gnomes" cannot name a saved view: it is the name of the table of view gnomes"#),
            ("all", #"refused: "all" cannot name a saved view: it is the name of the export of every view (export all)"#),
            (#""items/catalog/items""#, #"refused: "items/catalog/items" cannot name a saved view: a '/' reads as a view's path (items/SOURCE/RESOURCE): a saved view's name holds none"#),
            ("ｈａｉｒ_ｃｏｕｎｔｓ", #"refused: "ｈａｉｒ_ｃｏｕｎｔｓ" cannot name a saved view: it reads as hair_counts "# + folded + ", the name of the saved view hair_counts (seq \(hairCountsSeq))"),
            (#""""#, #"refused: "" cannot name a saved view: a name cannot be empty"#),
        ]
    }

    /// The seq of the log's last event, as `sql` reads it.
    static func lastSeq(_ store: SQLTestStore) async throws -> String {
        let result = try await store.run(["--format", "csv", "sql", "SELECT max(seq) AS last FROM events"])
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test func everyHostileNameIsRefusedOnTheCommandLineAndOverHTTPAndNothingIsAppended() async throws {
        let store = try await SQLTestStore.make("saved-view-names")
        let hairCounts = try #require(store.seq(source: "fetchlog", label: "view.saved"))
        let last = try await Self.lastSeq(store)
        #expect(last == "last\r\n\(hairCounts)\r\n")
        let names = Self.hostile(hairCountsSeq: Int(hairCounts))

        // The command line: exit 64, the rule and the collision, nothing appended.
        for (name, message) in names {
            let result = try await store.run(["sql", "CREATE VIEW \(name) AS SELECT 1 AS shadow"])
            #expect(result.status == 64, "\(name): \(result.stderr)")
            #expect(result.stderr == "fetchlog: \(message)\n", "\(name)")
            #expect(result.stdout.isEmpty, "\(name): \(result.stdout)")
            let guarded = try await store.run(["sql", "CREATE VIEW IF NOT EXISTS \(name) AS SELECT 1 AS shadow"])
            #expect(guarded.status == 64 && guarded.stderr == "fetchlog: \(message)\n", "\(name): \(guarded.stderr)")
        }
        #expect(try await Self.lastSeq(store) == last)

        // The census's real table still answers by its name; the quoted one-word name is no table.
        let census = try await store.run(["--format", "csv", "sql", "SELECT count(*) AS n FROM census.gnomes"])
        #expect(census.stdout == "n\r\n1337\r\n", "\(census.stderr)")
        let quoted = try await store.run(["sql", #"SELECT * FROM "census.gnomes""#])
        #expect(quoted.status == 1 && quoted.stderr.hasPrefix("fetchlog: no such table: census.gnomes"), "\(quoted.stderr)")

        // IF NOT EXISTS over a view that exists, IF EXISTS of none: exactly what happened, nothing appended.
        let exists = try await store.run(["sql", "CREATE VIEW IF NOT EXISTS hair_counts AS SELECT 1"])
        #expect(exists.status == 0 && exists.stdout == "view hair_counts exists (seq \(hairCounts)): nothing saved\n", "\(exists.stdout)\(exists.stderr)")
        let existsUpper = try await store.run(["--format", "json", "sql", "CREATE VIEW IF NOT EXISTS HAIR_COUNTS AS SELECT 1"])
        #expect(existsUpper.stdout == #"{"exists":"hair_counts","saved":false,"seq":\#(hairCounts)}"# + "\n", "\(existsUpper.stdout)\(existsUpper.stderr)")
        let absent = try await store.run(["sql", "DROP VIEW IF EXISTS nosuch"])
        #expect(absent.status == 0 && absent.stdout == "no view nosuch: nothing dropped\n", "\(absent.stdout)\(absent.stderr)")
        let absentJSON = try await store.run(["--format", "json", "sql", "DROP VIEW IF EXISTS nosuch"])
        #expect(absentJSON.stdout == #"{"absent":"nosuch","dropped":false}"# + "\n", "\(absentJSON.stdout)")
        // Without the guard, the same two are errors (exit 1), as before.
        let twice = try await store.run(["sql", "CREATE VIEW hair_counts AS SELECT 1"])
        #expect(twice.status == 1 && twice.stderr == "fetchlog: a saved view named 'hair_counts' exists (seq \(hairCounts)): DROP VIEW hair_counts first, or CREATE VIEW IF NOT EXISTS\n", "\(twice.stderr)")
        #expect(try await store.run(["sql", "DROP VIEW nosuch"]).status == 1)
        #expect(try await Self.lastSeq(store) == last)

        // The shell says the same.
        let shell = try await store.run(["repl", "--keep-going"], stdin: "CREATE VIEW IF NOT EXISTS hair_counts AS SELECT 1;\nDROP VIEW IF EXISTS nosuch;\nCREATE VIEW main AS SELECT 1;\n")
        let lines = shell.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("view hair_counts exists (seq \(hairCounts)): nothing saved"), "\(shell.stdout)")
        #expect(lines.contains("no view nosuch: nothing dropped"), "\(shell.stdout)")
        #expect(shell.stderr.contains(#"refused: "main" cannot name a saved view: it is the name of SQLite's schema main"#), "\(shell.stderr)")
        #expect(try await Self.lastSeq(store) == last)

        // POST /api/sql: 400 with the same message and exit 64; nothing appended.
        let server = try await ServeProcess(store: store.store, environment: demoEnvironment, readsActionToken: true)
        let headers = [("Content-Type", "application/json"), ("Authorization", "Bearer \(server.actionToken)")]
        func post(_ sql: String) async throws -> ServeProcess.Answer {
            try await server.get("/api/sql", method: .POST, headers: headers, body: JSONValue.object([("sql", .string(sql))]).canonicalText())
        }
        for (name, message) in names {
            let answer = try await post("CREATE VIEW \(name) AS SELECT 1 AS shadow")
            #expect(answer.status == 400, "\(name): \(answer.body)")
            #expect(try JSONValue.parse(answer.body) == .object([("error", .string(message)), ("exit", .number(64))]), "\(name): \(answer.body)")
        }
        let postedExists = try await post("CREATE VIEW IF NOT EXISTS hair_counts AS SELECT 1")
        #expect(postedExists.status == 200 && postedExists.body == #"{"exists":"hair_counts","saved":false,"seq":\#(hairCounts)}"# + "\n", "\(postedExists.body)")
        let postedAbsent = try await post("DROP VIEW IF EXISTS nosuch")
        #expect(postedAbsent.status == 200 && postedAbsent.body == #"{"absent":"nosuch","dropped":false}"# + "\n", "\(postedAbsent.body)")
        #expect(try JSONValue.parse(try await server.get("/api/log?from=\(hairCounts + 1)").body) == .array([]))

        // GET /api/views/NAME answers a saved view only: not SOURCE.RESOURCE, not `events`.
        #expect(try await server.get("/api/views/census.gnomes").status == 404)
        #expect(try await server.get("/api/views/events").status == 404)
        let saved = try await server.get("/api/views/hair_counts")
        #expect(saved.status == 200, "\(saved.body)")
        #expect(try JSONValue.parse(saved.body)["view"] == .string("hair_counts"), "\(saved.body)")
        try await server.stop()
        #expect(try await Self.lastSeq(store) == last)
    }

    /// A log written before the rule, a manifest defined after a view of its name, or two
    /// replicas' logs merged may hold views the rule refuses: the log keeps them, replay folds
    /// them as it did, but SQL takes none as a table — the table wins — and DROP VIEW by the
    /// exact name removes one.
    @Test func viewsAnOlderLogSavedUnderNamesNowRefusedAreLeftOutOfSQLAndTheTablesWin() async throws {
        let (_, log, store) = try StoreSQLTests.sampleStore("saved-view-old-names")
        defer { log.close() }
        // As an older build wrote them, past today's rule: straight to the log.
        func save(_ name: String, _ sql: String) async throws {
            try await store.sendIntent(source: Source(SavedViews.source), label: SavedViews.savedLabel, body: SavedViews.savedBody(name: name, sql: sql))
        }
        try await save("events", "SELECT 1 AS shadow")
        try await save("gnomes\u{200B}", "SELECT 2 AS shadow")
        try await save("pink", "SELECT 'first' AS which")
        try await save("PINK", "SELECT 'second' AS which") // a merged replica's
        try await save("ｐｉｎｋ", "SELECT 'third' AS which")
        #expect(try log.lastSeq() == 18)
        let state = store.snapshot.state
        #expect(state.savedViews.count == 5)

        // The real tables answer; the first-saved of the look-alikes is the one view.
        #expect(try await store.sql("SELECT count(*) FROM events").rows == [[.number("18")]])
        #expect(try await store.sql("SELECT which FROM pink").rows == [[.string("first")]])
        #expect(try await store.sql("SELECT which FROM Pink").rows == [[.string("first")]])
        let tables = SQLEngine.tableNames(in: state)
        #expect(tables.filter { SavedViewName.key($0) == "pink" } == ["pink"])
        #expect(!tables.contains("gnomes\u{200B}") && tables.filter { $0 == "events" }.count == 1)
        do {
            _ = try await store.sql("SELECT * FROM \"gnomes\u{200B}\"")
            Issue.record("a refused view answered")
        } catch let error as SQLError {
            #expect(error.message.hasPrefix("no such table: gnomes\u{200B}"), "\(error)")
        }
        // Why each is left out, by the rule.
        #expect(SavedViewName.refusal(of: "events", in: state)
            == #"the saved view "events" is not a table: it is the name of the log's table events (it was saved before this rule or the name it collides with; DROP VIEW "events" and save it under another name)"#)
        #expect(SavedViewName.refusal(of: "PINK", in: state)?.contains("it is the name of the saved view pink (seq 16)") == true)
        #expect(SavedViewName.refusal(of: "ｐｉｎｋ", in: state)?.contains("it reads as pink \(Self.folded), the name of the saved view pink (seq 16)") == true)
        #expect(SavedViewName.refusal(of: "pink", in: state) == nil)

        // Replay folds the same state, every time (the log is the truth; the rule reads it).
        let replayed = try Store.replay(log, sources: .seed).state
        #expect(replayed.savedViews == state.savedViews)
        #expect(SQLEngine.tableNames(in: replayed) == tables)

        // A new view may not take a look-alike name even now; DROP VIEW by the exact name removes an old one.
        await #expect(throws: SQLError.self) { try await store.sql("CREATE VIEW IF NOT EXISTS \"events\" AS SELECT 1") }
        let dropped = try await store.sqlView("DROP VIEW \"gnomes\u{200B}\"")
        #expect(dropped == SavedViewChange(.dropped, name: "gnomes\u{200B}", seq: 19, asOf: 19))
        #expect(store.snapshot.state.savedViews["gnomes\u{200B}"] == nil)
        // Dropping the first of the look-alikes: the next in seq order is the view now.
        _ = try await store.sql("DROP VIEW pink")
        #expect(try await store.sql("SELECT which FROM pink").rows == [[.string("second")]])
    }

    /// A manifest defined after a saved view of its source's name: the source's schema wins,
    /// the view is left out of SQL (and of `GET /api/views`), and the library says what each
    /// guarded statement did.
    @Test func aSourceDefinedAfterAViewOfItsNameWinsAndTheLibrarySaysWhatHappened() async throws {
        let (_, log, store) = try StoreSQLTests.sampleStore("saved-view-later-source")
        defer { log.close() }
        let saved = try await store.sqlView("CREATE VIEW catalog AS SELECT 1 AS shadow")
        #expect(saved == SavedViewChange(.saved, name: "catalog", seq: 14, asOf: 14))
        #expect(saved.description == "saved view catalog (seq 14)")
        #expect(try await store.sql("SELECT shadow FROM catalog").rows == [[.number("1")]])
        let exists = try await store.sqlView("CREATE VIEW IF NOT EXISTS Catalog AS SELECT 2")
        #expect(exists == SavedViewChange(.exists, name: "catalog", seq: 14, asOf: 14))
        #expect(exists.json.canonicalText() == #"{"exists":"catalog","saved":false,"seq":14}"#)
        #expect(try await store.sql("CREATE VIEW IF NOT EXISTS catalog AS SELECT 2").asOf == 14)
        let absent = try await store.sqlView("DROP VIEW IF EXISTS nosuch")
        #expect(absent == SavedViewChange(.absent, name: "nosuch", seq: nil, asOf: 14) && !absent.appended)
        #expect(absent.description == "no view nosuch: nothing dropped")
        #expect(try log.lastSeq() == 14)

        // The catalog manifest, defined now: `catalog` is its schema.
        let manifest = try Data(contentsOf: URL(fileURLWithPath: Repo.root + "/docs/manifests/catalog.json"))
        try await store.define(try RestManifest(json: try JSONValue.parse(bytes: Array(manifest))))
        let state = store.snapshot.state
        #expect(state.savedViews["catalog"] != nil)
        #expect(SavedViewName.refusal(of: "catalog", in: state)?.contains("it is the name of the schema of source catalog (its tables are catalog.RESOURCE)") == true)
        #expect(!SQLEngine.tableNames(in: state).contains("catalog"))
        #expect(SQLEngine.tableNames(in: state).contains("catalog.items"))
        do {
            _ = try await store.sql("SELECT shadow FROM catalog")
            Issue.record("a shadowed view answered")
        } catch let error as SQLError {
            #expect(error.message.hasPrefix("no such table: catalog"), "\(error)")
        }
    }
}
