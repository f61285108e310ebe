import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources
@testable import FetchlogSQL
@testable import fetchlog

/// The library's SQL (issue 35): `store.sql(_:)` over the sample log's store (13 events: two
/// TVmaze pages, the census, Viaplay, Thmanyah, an ARTIC artwork, failures, a filter intent),
/// answers checked against the views' own exports; saved views as events; time travel; the
/// read-only and time bounds; observation.
@Suite struct StoreSQLTests {
    /// The sample log in a new store directory, and a store over it.
    static func sampleStore(_ name: String) throws -> (TemporaryDirectory, EventLog, Store) {
        let dir = TemporaryDirectory(name)
        let path = try DamagedFileTests.sampleStore(dir)
        let log = try EventLog.open(at: path)
        return (dir, log, try Store(log: log, sources: .seed))
    }

    @Test func aGroupByEqualsTheCountsOfTheGnomesExport() async throws {
        let (_, log, store) = try Self.sampleStore("sql-groupby")
        defer { log.close() }
        let answer = try await store.sql("SELECT hairColor, count(*) AS n FROM gnomes GROUP BY hairColor ORDER BY n DESC, hairColor")
        let gnomes = try #require(ViewCatalog.export("gnomes", state: store.snapshot.state)["gnomes"]?.arrayValue)
        var counts: [String: Int] = [:]
        for gnome in gnomes { counts[gnome["hairColor"]!.stringValue!, default: 0] += 1 }
        let expected = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        #expect(answer.columns == ["hairColor", "n"])
        #expect(answer.rows == expected.map { [.string($0.key), .number(String($0.value))] })
        #expect(answer.rows.first == [.string("Pink"), .number("285")])
        #expect(answer.asOf == 13)
        // Lists are JSON text: json_each reaches inside (professions of the census).
        let tinkers = try await store.sql("SELECT count(*) FROM gnomes, json_each(gnomes.professions) WHERE json_each.value = 'Tinker'")
        let expectedTinkers = gnomes.filter { $0["professions"]!.arrayValue!.contains(.string("Tinker")) }.count
        #expect(tinkers.rows == [[.number(String(expectedTinkers))]])
        #expect(expectedTinkers > 0)
    }

    struct Show: Decodable, Equatable {
        let name: String
        let rating: Double?
    }

    @Test func rowsDecodeIntoTheCallersType() async throws {
        let (_, log, store) = try Self.sampleStore("sql-decode")
        defer { log.close() }
        let top = try await store.sql("SELECT name, rating FROM shows WHERE rating IS NOT NULL ORDER BY rating DESC, name LIMIT 3", as: Show.self)
        let shows = try #require(ViewCatalog.export("shows", state: store.snapshot.state)["shows"]?.arrayValue)
        let expected = shows.compactMap { show -> Show? in
            guard let rating = show["rating"]?.doubleValue else { return nil }
            return Show(name: show["name"]!.stringValue!, rating: rating)
        }.sorted { ($0.rating!, $1.name) > ($1.rating!, $0.name) }.prefix(3)
        #expect(top == Array(expected))
        #expect(top.count == 3)
    }

    struct GnomeAndFriends: Decodable, Equatable {
        let id: Int
        let name: String
        let otherID: Int
        let friends: String
        let otherFriends: String
        enum CodingKeys: String, CodingKey {
            case id, name, friends
            case otherID = "id:1"
            case otherFriends = "friends:1"
        }
    }

    /// A column name the answer repeats (`SELECT *` over a join) is a key of its own in a row
    /// object, as SQLite names a saved view's columns: no column is lost to a JSON reader.
    @Test func aRepeatedColumnNameIsAKeyOfItsOwn() async throws {
        let (_, log, store) = try Self.sampleStore("sql-repeated")
        defer { log.close() }
        #expect(SQLAnswer.keys(["a", "a", "a", "b", "b", "a:1", "c:x", "c:x"]) == ["a", "a:1", "a:2", "b", "b:1", "a:3", "c:x", "c:x:1"])
        let answer = try await store.sql("SELECT 1 AS a, 2 AS a, 3 AS a, 4 AS b, 5 AS b, 6 AS \"a:1\"")
        #expect(answer.columns == ["a", "a", "a", "b", "b", "a:1"])
        #expect(answer.json.orderedText() == #"[{"a":1,"a:1":2,"a:2":3,"b":4,"b:1":5,"a:3":6}]"#)
        // The names SQLite gives the columns of a view over the same select.
        #expect(try await store.sql("CREATE VIEW repeated AS SELECT 1 AS a, 2 AS a, 3 AS a, 4 AS b, 5 AS b, 6 AS \"a:1\"").rows.isEmpty)
        #expect(try await store.sql("SELECT * FROM repeated").columns == SQLAnswer.keys(answer.columns))
        let joined = try await store.sql("SELECT g.id, g.name, f.id, g.friends, f.friends FROM gnomes g JOIN friends f ON f.id = g.id WHERE g.id = 1",
                                         as: GnomeAndFriends.self)
        let gnome = try #require(ViewCatalog.export("gnomes", state: store.snapshot.state)["gnomes"]?.arrayValue?[1])
        let friends = try #require(ViewCatalog.export("friends", state: store.snapshot.state)["gnomes"]?.arrayValue?[1])
        #expect(joined == [GnomeAndFriends(id: 1, name: gnome["name"]!.stringValue!, otherID: 1, friends: gnome["friends"]!.canonicalText(),
                                           otherFriends: friends["friends"]!.canonicalText())])
    }

    /// What a saved view reads (`/api/stream` asks it again only when that moved): the
    /// inputs of the views it names, through the saved views it names; nil over `events`.
    @Test func aSavedViewsInputsAreThoseOfWhatItNames() async throws {
        let (_, log, store) = try Self.sampleStore("sql-inputs")
        defer { log.close() }
        _ = try await store.sql("CREATE VIEW pinks AS SELECT name FROM gnomes WHERE hairColor = 'Pink'")
        _ = try await store.sql("CREATE VIEW pinkshows AS SELECT (SELECT count(*) FROM pinks) AS p, (SELECT count(*) FROM shows) AS s")
        _ = try await store.sql("CREATE VIEW fetches AS SELECT count(*) FROM events")
        _ = try await store.sql("CREATE VIEW fetchesToo AS SELECT * FROM fetches")
        let state = store.snapshot.state
        let always: Set<String> = [SavedViews.source, Source.assets.rawValue]
        #expect(SavedViewInputs.of("pinks", in: state) == always.union(["brastlewark"]))
        #expect(SavedViewInputs.of("PinkShows", in: state) == always.union(["brastlewark", "tvmaze"]))
        #expect(SavedViewInputs.of("fetches", in: state) == nil)
        #expect(SavedViewInputs.of("fetchesToo", in: state) == nil)
        #expect(SavedViewInputs.of("nosuch", in: state) == nil)
    }

    @Test func aSavedViewIsAnEventThatReplayAndANewStoreKnow() async throws {
        let (_, log, store) = try Self.sampleStore("sql-saved")
        defer { log.close() }
        let saved = try await store.sql("CREATE VIEW pink AS SELECT name, age FROM gnomes WHERE hairColor = 'Pink'")
        #expect(saved.asOf == 14)
        let event = try #require(try log.event(at: 14))
        #expect(event.kind == .intent && event.source == "fetchlog" && event.label == "view.saved")
        #expect(store.snapshot.state.savedViews["pink"]?.sql == "SELECT name, age FROM gnomes WHERE hairColor = 'Pink'")
        let count = try await store.sql("SELECT count(*) FROM pink")
        #expect(count.rows == [[.number("285")]])
        // Saving it twice is refused; IF NOT EXISTS is not.
        await #expect(throws: SQLError.self) { try await store.sql("CREATE VIEW pink AS SELECT 1") }
        _ = try await store.sql("CREATE VIEW IF NOT EXISTS pink AS SELECT 1")
        #expect(try log.lastSeq() == 14)
        // A store opened anew over the log (replayed from seq 1) knows it.
        let again = try Store(log: log, sources: .seed)
        #expect(try await again.sql("SELECT count(*) FROM pink").rows == [[.number("285")]])
        #expect(try Store.replay(log, sources: .seed).state.savedViews == store.snapshot.state.savedViews)
        // Before its event, it was not there.
        await #expect(throws: SQLError.self) { try await store.sql("SELECT count(*) FROM pink", at: 13) }
        // Dropped: an event too, and gone.
        _ = try await store.sql("DROP VIEW pink")
        #expect(try log.event(at: 15)?.label == "view.dropped")
        do {
            _ = try await store.sql("SELECT * FROM pink")
            Issue.record("a dropped view answered")
        } catch let error as SQLError {
            #expect(error.kind == .invalid)
            #expect(error.message.hasPrefix("no such table: pink"))
        }
        #expect(try await store.sql("SELECT count(*) FROM pink", at: 14).rows == [[.number("285")]])
    }

    @Test func aSavedViewThatNoLongerCompilesSaysSoByName() async throws {
        let (_, log, store) = try Self.sampleStore("sql-broken")
        defer { log.close() }
        _ = try await store.sql("CREATE VIEW names AS SELECT name FROM gnomes")
        _ = try await store.sql("CREATE VIEW first AS SELECT name FROM names LIMIT 1")
        _ = try await store.sql("DROP VIEW names")
        do {
            _ = try await store.sql("SELECT * FROM first")
            Issue.record("a view over a dropped view answered")
        } catch let error as SQLError {
            #expect(error.message.contains("no such table: main.names") || error.message.contains("no such table: names"), "\(error)")
        }
        // Everything else still answers.
        #expect(try await store.sql("SELECT count(*) FROM gnomes").rows == [[.number("1337")]])
    }

    /// `--at SEQ` over the whole store equals the answer over a store holding only the
    /// events up to SEQ, at every seq of the sample log.
    @Test func anAnswerAtASeqEqualsTheAnswerOfAStoreCutThere() async throws {
        let (dir, log, store) = try Self.sampleStore("sql-at")
        defer { log.close() }
        let queries = ["SELECT count(*) AS n, sum(age) FROM gnomes", "SELECT kind, outcome, count(*) FROM events GROUP BY 1, 2 ORDER BY 1, 2",
                       "SELECT count(*), max(rating) FROM shows", "SELECT source, path, failuresSince FROM status ORDER BY 1, 2"]
        for seq in UInt64(1) ... 13 {
            let cut = try EventLog.open(at: dir.sub("cut-\(seq)"))
            defer { cut.close() }
            for at in 1 ... seq {
                var event = try #require(try log.event(at: at))
                event.seq = 0
                _ = try await cut.append(event)
            }
            let short = try Store(log: cut, sources: .seed)
            for query in queries {
                let travelled = try await store.sql(query, at: seq)
                let truth = try await short.sql(query)
                #expect(travelled == truth, "seq \(seq): \(query)")
                #expect(travelled.json.canonicalText() == truth.json.canonicalText())
            }
        }
        #expect(try await store.sql("SELECT count(*) FROM gnomes", at: 6).rows == [[.number("0")]])
        #expect(try await store.sql("SELECT count(*) FROM gnomes", at: 7).rows == [[.number("1337")]])
    }

    @Test func writesAreRefusedAndNothingChanges() async throws {
        let (_, log, store) = try Self.sampleStore("sql-refused")
        defer { log.close() }
        let before = store.snapshot.state
        for statement in ["DELETE FROM gnomes", "INSERT INTO gnomes (id) VALUES (1)", "UPDATE gnomes SET age = 0",
                          "DROP TABLE gnomes", "ATTACH DATABASE '/tmp/x.db' AS x", "PRAGMA writable_schema = 1",
                          "WITH g AS (SELECT 1) DELETE FROM gnomes", "SELECT load_extension('/tmp/x.so')",
                          "CREATE TABLE t (x)", "BEGIN", "VACUUM INTO '/tmp/copy.db'"] {
            do {
                _ = try await store.sql(statement)
                Issue.record("ran: \(statement)")
            } catch let error as SQLError {
                #expect(error.kind == .refused, "\(statement): \(error)")
                #expect(ExitStatus.of(error).status == 64)
            }
        }
        #expect(store.snapshot.state == before)
        #expect(try log.lastSeq() == 13)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/copy.db"))
    }

    /// A query that never ends stops at its limit; one cancelled stops at once — whenever the
    /// cancel comes. Both end by what stopped them, not by a time the test waits.
    @Test func aRunawayQueryStopsAtItsLimitAndACancelledOneAtOnce() async throws {
        let (_, log, store) = try Self.sampleStore("sql-limit")
        defer { log.close() }
        let runaway = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
        do {
            _ = try await store.sql(runaway, timeLimit: .milliseconds(300))
            Issue.record("a runaway query answered")
        } catch let error as SQLError {
            #expect(error.kind == .timeLimit)
            #expect(error.message.contains("time limit of 0.3 s"), "\(error)")
        }
        let task = Task { try await store.sql(runaway, timeLimit: .seconds(3600)) }
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a cancelled query answered")
        } catch let error as SQLError {
            #expect(error.kind == .interrupted)
        }
        // The engine answers after both.
        #expect(try await store.sql("SELECT count(*) FROM shows").rows == [[.number("485")]])
    }

    @Test func anObservedQueryFiresWhenItsAnswerChanges() async throws {
        let (dir, log, _) = try Self.sampleStore("sql-observe")
        defer { log.close() }
        // A store holding the first 5 events (no census yet).
        let cut = try EventLog.open(at: dir.sub("cut"))
        defer { cut.close() }
        for at in UInt64(1) ... 5 {
            var event = try #require(try log.event(at: at))
            event.seq = 0
            _ = try await cut.append(event)
        }
        let store = try Store(log: cut, sources: .seed)
        var answers = store.observe(sql: "SELECT count(*) FROM gnomes").makeAsyncIterator()
        #expect(try await answers.next()?.rows == [[.number("0")]])
        // Events 6 (a failure, leaving the census as it was) and 7 (the census).
        for at in UInt64(6) ... 7 {
            var event = try #require(try log.event(at: at))
            event.seq = 0
            _ = try await cut.append(event)
        }
        _ = try await store.catchUp()
        // The failure left the answer as it was: the next answer is the census's.
        #expect(try await answers.next()?.rows == [[.number("1337")]])
    }

    @Test func unknownNamesAnswerWithWhatExists() async throws {
        let (_, log, store) = try Self.sampleStore("sql-names")
        defer { log.close() }
        do {
            _ = try await store.sql("SELECT * FROM gnome")
            Issue.record("an unknown table answered")
        } catch let error as SQLError {
            #expect(error.message.hasPrefix("no such table: gnome (did you mean 'gnomes'?). Tables: artists, artworks"), "\(error)")
        }
        do {
            _ = try await store.sql("SELECT hair FROM gnomes")
            Issue.record("an unknown column answered")
        } catch let error as SQLError {
            #expect(error.message.hasPrefix("no such column: hair"), "\(error)")
            #expect(error.message.contains("hairColor"), "\(error)")
        }
        // Over a saved view, its own columns are what exists.
        try await store.sql("CREATE VIEW olds AS SELECT name, age FROM gnomes WHERE age > 300")
        do {
            _ = try await store.sql("SELECT nmae FROM olds")
            Issue.record("an unknown column of a saved view answered")
        } catch let error as SQLError {
            #expect(error.message == "no such column: nmae (did you mean 'name'?). Columns of the tables named: age, name", "\(error)")
        }
    }

    /// A table is built again only when an event of a source that feeds it arrived: another
    /// source's fetch leaves the census's table as it was.
    @Test func anotherSourcesEventLeavesATableAsItWas() async throws {
        let (dir, log, _) = try Self.sampleStore("sql-tokens")
        defer { log.close() }
        // A live store over the first 7 events (the census the last), then the others arriving.
        let cut = try EventLog.open(at: dir.sub("cut"))
        defer { cut.close() }
        func append(_ seq: UInt64) async throws {
            var event = try #require(try log.event(at: seq))
            event.seq = 0
            _ = try await cut.append(event)
        }
        for seq in UInt64(1) ... 7 { try await append(seq) }
        let store = try Store(log: cut, sources: .seed)
        let engine = try SQLEngine { _ in [] }
        let query = "SELECT count(*) FROM gnomes"
        #expect(try engine.query(query, state: store.snapshot.state).rows == [[.number("1337")]])
        #expect(engine.tablesBuilt == 1)
        // Seqs 8 to 12: Viaplay, Thmanyah, ARTIC, a 304, a failure — none of the census's.
        for seq in UInt64(8) ... 12 {
            try await append(seq)
            _ = try await store.catchUp()
            #expect(store.snapshot.seq == seq)
            #expect(try engine.query(query, state: store.snapshot.state).rows == [[.number("1337")]])
        }
        #expect(engine.tablesBuilt == 1)
        // Seq 13 is the census's own intent (a filter): built again.
        try await append(13)
        _ = try await store.catchUp()
        #expect(try engine.query(query, state: store.snapshot.state).rows == [[.number("1337")]])
        #expect(engine.tablesBuilt == 2)
        // A view that reads every source (status) is built for every seq.
        _ = try engine.query("SELECT count(*) FROM status", state: store.snapshot.state)
        _ = try await store.sql("CREATE VIEW v AS SELECT 1")
        _ = try engine.query("SELECT count(*) FROM status", state: store.snapshot.state)
        #expect(engine.tablesBuilt == 4)
    }
}
