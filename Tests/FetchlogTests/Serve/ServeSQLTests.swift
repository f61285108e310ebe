import Foundation
import Testing
@testable import FetchlogCore

/// SQL over HTTP (issue 35): `GET /api/sql`, `GET /api/sql/tables`, `POST /api/sql` and saved
/// views at `/api/views/NAME`, against a real `fetchlog serve` on loopback over the sample
/// store (the sample upstream's log: 13 events, the gnomes from seq 7), every answer compared
/// with what `fetchlog sql --format json` prints on the same store; and the page's query box
/// in chromium (Tests/Browser/sql_test.py).
@Suite(.serialized) struct ServeSQLTests {
    static let hairColours = "SELECT hairColor, count(*) AS n FROM gnomes GROUP BY 1 ORDER BY 1"

    /// `fetchlog sql … --format json` on `store`, parsed.
    static func cli(_ store: String, _ arguments: [String]) async throws -> JSONValue {
        let result = try await runFetchlog(["--store", store, "--format", "json", "sql"] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONValue.parse(bytes: Array(result.stdout.utf8))
    }

    static func url(_ query: String, _ more: String = "") -> String {
        "/api/sql?q=" + query.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + more
    }

    @Test func queriesPagesRefusalsAndTheTimeLimitAnswerAsFetchlogSQL() async throws {
        let dir = try await ServeAPITests.sampleStore("serve-sql")
        let server = try await ServeProcess(store: dir.path)

        // The hair colours, as `fetchlog sql` answers them and as the gnomes export counts them.
        let answer = try await server.get(Self.url(Self.hairColours))
        #expect(answer.status == 200, "\(answer.body)")
        let json = try JSONValue.parse(answer.body)
        let cli = try await Self.cli(dir.path, [Self.hairColours])
        let gnomes = try #require(try JSONValue.parse(try await runFetchlog(["--store", dir.path, "--format", "json", "export", "gnomes"]).stdout)["gnomes"]?.arrayValue)
        #expect(gnomes.count == 1337)
        var counted: [String: Int] = [:]
        for gnome in gnomes { counted[gnome["hairColor"]!.stringValue!, default: 0] += 1 }
        let expected = JSONValue.array(counted.keys.sorted().map { .object([("hairColor", .string($0)), ("n", .number(counted[$0]!))]) })
        #expect(cli == expected)
        #expect(json["rows"] == expected)
        #expect(json["columns"] == .array([.string("hairColor"), .string("n")]))
        #expect(json["asOf"] == .number(13) && json["offset"] == .number(0) && json["limit"] == .number(100) && json["more"] == .bool(false))
        // Members in the query's order, not sorted: the body as written.
        #expect(answer.body.hasPrefix(#"{"columns":["hairColor","n"],"rows":[{"hairColor":"Black","n":255},"#), "\(answer.body.prefix(120))")

        // Pages: 1337 gnomes by id, 1000 then 337; a last page ending at the last row has no more.
        let byID = "SELECT id, name FROM gnomes ORDER BY id"
        let all = try #require(try await Self.cli(dir.path, [byID]).arrayValue)
        #expect(all.count == 1337)
        var paged: [JSONValue] = []
        for (offset, rows, more) in [(0, 1000, true), (1000, 337, false)] {
            let page = try JSONValue.parse(try await server.get(Self.url(byID, "&limit=1000&offset=\(offset)")).body)
            #expect(page["rows"]?.arrayValue?.count == rows && page["more"] == .bool(more) && page["offset"] == .number(offset), "\(offset)")
            paged += page["rows"]?.arrayValue ?? []
        }
        #expect(paged == all)
        let edge = try JSONValue.parse(try await server.get(Self.url(byID, "&limit=7&offset=1330")).body)
        #expect(edge["rows"] == .array(Array(all[1330...])) && edge["more"] == .bool(false))
        let defaulted = try JSONValue.parse(try await server.get(Self.url(byID)).body)
        #expect(defaulted["rows"] == .array(Array(all[..<100])) && defaulted["more"] == .bool(true) && defaulted["limit"] == .number(100))
        for bad in ["&limit=0", "&limit=1001", "&offset=-1", "&offset=1000001", "&confirmed=maybe", "&timeout=61", "&at=14"] {
            let refused = try await server.get(Self.url(byID, bad))
            #expect(refused.status == (bad == "&at=14" ? 404 : 400), "\(bad): \(refused.body)")
        }

        // Time travel: the log by kind as of seq 8, as `sql --at 8`.
        let kinds = "SELECT kind, count(*) AS n FROM events GROUP BY 1 ORDER BY 1"
        let past = try JSONValue.parse(try await server.get(Self.url(kinds, "&at=8")).body)
        #expect(past["rows"] == (try await Self.cli(dir.path, [kinds, "--at", "8"])))
        #expect(past["rows"] == .array([.object([("kind", .string("end-of-list")), ("n", .number(1))]),
                                        .object([("kind", .string("fetch-failed")), ("n", .number(1))]),
                                        .object([("kind", .string("fetched")), ("n", .number(6))])]))
        #expect(past["asOf"] == .number(8))

        // Read-only: a write is refused as `fetchlog sql` refuses it (exit 64); CREATE VIEW over
        // GET points at POST; invalid SQL says what exists. Nothing is appended.
        let delete = try await server.get(Self.url("DELETE FROM gnomes"))
        let deleteCLI = try await runFetchlog(["--store", dir.path, "sql", "DELETE FROM gnomes"])
        #expect(delete.status == 400 && deleteCLI.status == 64)
        #expect(try JSONValue.parse(delete.body) == .object([("error", .string(String(deleteCLI.stderr.dropFirst("fetchlog: ".count).dropLast()))), ("exit", .number(64))]),
                "\(delete.body) \(deleteCLI.stderr)")
        let create = try await server.get(Self.url("CREATE VIEW bald AS SELECT * FROM gnomes"))
        #expect(create.status == 400 && create.body.contains("POST /api/sql"), "\(create.body)")
        let invalid = try await server.get(Self.url("SELECT hairColour FROM gnomes"))
        #expect(invalid.status == 400 && invalid.body.contains("hairColor") && invalid.body.contains(#""exit":1"#), "\(invalid.body)")
        #expect(try JSONValue.parse(try await server.get("/api/log?from=14").body) == .array([]))

        // The time limit: a query that never ends is stopped at 1 s and answered 503 naming
        // it; the server goes on answering, SQL too.
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
        let stopped = try await server.get(Self.url(endless, "&timeout=1"))
        #expect(stopped.status == 503, "\(stopped.body)")
        #expect(try JSONValue.parse(stopped.body)["error"]?.stringValue?.hasPrefix("the query ran past its time limit of 1 s and was stopped") == true, "\(stopped.body)")
        #expect(try JSONValue.parse(stopped.body)["exit"] == .number(1))
        let after = try await server.get(Self.url(Self.hairColours))
        #expect(after.status == 200)
        #expect(try JSONValue.parse(after.body)["rows"] == expected)

        // The tables, as `sql --tables --format json`.
        let tables = try await server.get("/api/sql/tables")
        #expect(tables.status == 200)
        #expect(try JSONValue.parse(tables.body).canonicalText() == (try await Self.cli(dir.path, ["--tables"])).canonicalText())
        try await server.stop()
    }

    @Test func savingAViewNeedsTheTokenAndItIsThenAViewWithAnETag() async throws {
        let dir = try await ServeAPITests.sampleStore("serve-sql-views")
        let server = try await ServeProcess(store: dir.path, readsActionToken: true)
        let view = "CREATE VIEW gray AS SELECT name, age FROM gnomes WHERE hairColor = 'Gray' ORDER BY id"
        let body = JSONValue.object([("sql", .string(view))]).canonicalText()
        let json = ("Content-Type", "application/json")
        // Without the token, or with another: 401, nothing appended.
        let anonymous = try await server.get("/api/sql", method: .POST, headers: [json], body: body)
        #expect(anonymous.status == 401, "\(anonymous.body)")
        let wrong = try await server.get("/api/sql", method: .POST, headers: [json, ("Authorization", "Bearer nope")], body: body)
        #expect(wrong.status == 401 && wrong.body.contains("wrong token"), "\(wrong.body)")
        #expect(try await server.get("/api/views/gray").status == 404)
        let token = ("Authorization", "Bearer \(server.actionToken)")
        // A query is not saved: it is GET's.
        let query = try await server.get("/api/sql", method: .POST, headers: [json, token], body: #"{"sql":"SELECT 1"}"#)
        #expect(query.status == 400 && query.body.contains("GET /api/sql"), "\(query.body)")

        let saved = try await server.get("/api/sql", method: .POST, headers: [json, token], body: body)
        #expect(saved.status == 200, "\(saved.body)")
        #expect(saved.body == #"{"saved":"gray","seq":14}"# + "\n")

        // The view: its rows as `fetchlog sql` reads the saved view, with asOf and count.
        let rows = try #require(try await Self.cli(dir.path, ["SELECT * FROM gray"]).arrayValue)
        #expect(rows.count == 258)
        let answer = try await server.get("/api/views/gray")
        #expect(answer.status == 200, "\(answer.body)")
        let expected = JSONValue.object([("view", .string("gray")), ("asOf", .number(14)), ("count", .number(258)), ("rows", .array(rows))])
        #expect(answer.body == expected.orderedText() + "\n")
        let etag = "\"\(SHA256.hex(expected.orderedText()))\""
        #expect(answer.headers["ETag"] == [etag])
        let unchanged = try await server.get("/api/views/gray", headers: [("If-None-Match", etag)])
        #expect(unchanged.status == 304 && unchanged.body.isEmpty)
        let other = try await server.get("/api/views/gray", headers: [("If-None-Match", "\"other\"")])
        #expect(other.status == 200 && other.body == answer.body)
        // Before it was saved there was no such view; /api/views and the tables list it.
        #expect(try await server.get("/api/views/gray?at=13").status == 404)
        #expect(try JSONValue.parse(try await server.get("/api/views").body).arrayValue?.last == .string("gray"))
        let tables = try JSONValue.parse(try await server.get("/api/sql/tables").body)
        #expect(tables.arrayValue?.first { $0["table"] == .string("gray") }?["kind"] == .string("view"))
        #expect(tables.canonicalText() == (try await Self.cli(dir.path, ["--tables"])).canonicalText())

        // Dropped: the view is gone now, still there as of seq 14.
        let dropped = try await server.get("/api/sql", method: .POST, headers: [json, token], body: #"{"sql":"DROP VIEW gray"}"#)
        #expect(dropped.body == #"{"dropped":"gray","seq":15}"# + "\n", "\(dropped.body)")
        #expect(try await server.get("/api/views/gray").status == 404)
        let then = try await server.get("/api/views/gray?at=14")
        #expect(then.status == 200 && then.body == answer.body)
        try await server.stop()
    }

    /// A saved view answers whole at /api/views/NAME up to 100,000 rows; past that it is
    /// refused with where to page it, and the server goes on answering.
    @Test func aSavedViewPastTheRowCapIsRefusedWithWhereToPageIt() async throws {
        let dir = try await ServeAPITests.sampleStore("serve-sql-cap")
        func count(_ n: Int) -> String {
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(n)) SELECT i FROM n"
        }
        for (name, rows) in [("fits", 100_000), ("over", 100_001)] {
            let saved = try await runFetchlog(["--store", dir.path, "sql", "CREATE VIEW \(name) AS \(count(rows))"])
            #expect(saved.status == 0, "\(saved.stderr)")
        }
        let server = try await ServeProcess(store: dir.path)
        let fits = try await server.get("/api/views/fits")
        #expect(fits.status == 200)
        #expect(try JSONValue.parse(fits.body)["count"] == .number(100_000))
        let over = try await server.get("/api/views/over")
        #expect(over.status == 422, "\(over.body)")
        #expect(over.body.contains("the saved view over holds more than 100000 rows: page through them with GET /api/sql?q=SELECT * FROM over"), "\(over.body)")
        #expect(try await server.get("/api/views/fits").status == 200)
        try await server.stop()
    }

    /// The page's query box in chromium: its rows are `fetchlog sql`'s, a group-by draws one
    /// bar a group, and the views' slider moves the answer to an earlier seq.
    @Test func thePageQueryBoxAnswersAsFetchlogSQLChartsAndFollowsTheSlider() async throws {
        let dir = try await ServeAPITests.sampleStore("serve-sql-page")
        let server = try await ServeProcess(store: dir.path)
        // Each answer as the page holds it: the rows' values in column order.
        func values(_ query: String, at: Int? = nil) async throws -> JSONValue {
            let rows = try #require(try await Self.cli(dir.path, [query] + (at.map { ["--at", String($0)] } ?? [])).arrayValue)
            return .array(rows.map { row in
                guard case .object(let members) = row else { return .null }
                return .array(members.map(\.1))
            })
        }
        let kinds = "SELECT kind, count(*) AS n FROM events GROUP BY 1 ORDER BY 1"
        let hair = try await values(Self.hairColours), now = try await values(kinds), earlier = try await values(kinds, at: 8)
        #expect(hair.arrayValue?.count == 5 && now.arrayValue?.count == 5 && earlier.arrayValue?.count == 3)
        #expect(now != earlier)
        let expected: JSONValue = .object([
            ("events", .number(13)),
            ("hair", .object([("query", .string(Self.hairColours)), ("rows", hair)])),
            ("kinds", .object([("query", .string(kinds)), ("rows", now), ("earlierSeq", .number(8)), ("earlierRows", earlier)])),
        ])
        let expectedFile = dir.sub("expected.json")
        try expected.canonicalText().write(toFile: expectedFile, atomically: true, encoding: .utf8)
        let browser = try BrowserScript(script: Repo.root + "/Tests/Browser/sql_test.py", arguments: [server.base + "/", expectedFile],
                                        log: dir.sub("sql_test.stderr"))
        let result = try await browser.finish()
        #expect(result.status == 0, "sql_test.py: \(result.stderr)")
        #expect(result.stdout == "ok\n", "\(result.stdout)")
        try await server.stop()
    }
}
