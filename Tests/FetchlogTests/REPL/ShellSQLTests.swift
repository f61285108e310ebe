import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogShell
@testable import FetchlogSources
@testable import fetchlog

/// SQL in the shell (issue 35): statements typed as they are, over lines until `;`, at a
/// past seq, `.tables` and `.schema`, saved views made and dropped, an error that leaves
/// the shell answering, `.timer` — on the demo store, fed on stdin.
@Suite(.serialized) struct ShellSQLTests {
    /// The script's output is Golden/sql-shell.txt exactly (FETCHLOG_RECORD_GOLDEN=1 rewrites it).
    @Test func aScriptOfSQLPrintsItsGolden() async throws {
        let dir = TemporaryDirectory("shell-sql")
        let script = [
            // One statement over four lines, quotes and all.
            "SELECT name, age, hairColor",
            "  FROM gnomes",
            " WHERE hairColor = 'Pink' AND name LIKE 'T%'",
            " ORDER BY age DESC LIMIT 3;",
            // The demo's first two events: as of seq 2 the log holds two.
            "at 2 SELECT count(*) AS events FROM events;",
            "select count(*) AS shows from shows",
            ";",
            ".tables",
            ".schema gnomes",
            "CREATE VIEW pink AS SELECT name, age FROM gnomes WHERE hairColor = 'Pink';",
            "SELECT count(*) AS pink, max(age) AS oldest FROM pink;",
            "DROP VIEW pink;",
            "SELECT nmae FROM gnomes;",
            // Still answering after the error.
            "VALUES (1, 'still here');",
            ".timer on",
            "SELECT count(*) AS gnomes FROM gnomes;",
        ]
        let result = try await runDemoScript(script, store: dir.sub("demo"), extraArguments: ["--keep-going"])
        #expect(result.status == 0, "\(result.stderr)")
        // The error, once, with its did-you-mean; nothing else failed.
        #expect(result.stderr.components(separatedBy: "error:").count == 2, "\(result.stderr)")
        #expect(result.stderr.contains("error: no such column: nmae (did you mean 'name'?)"), "\(result.stderr)")
        let output = normalized(result.stdout)
        // `.timer on`: one line under the last statement, its duration made N by `normalized`.
        #expect(output.hasSuffix("1 row (as of seq 10)\ntime: N s\n"), "\(output)")
        #expect(result.stdout.range(of: #"\ntime: [0-9]+\.[0-9]{3} s\n$"#, options: .regularExpression) != nil)
        let golden = Repo.root + "/Tests/FetchlogTests/REPL/Golden/sql-shell.txt"
        if ProcessInfo.processInfo.environment["FETCHLOG_RECORD_GOLDEN"] == "1" {
            try output.write(toFile: golden, atomically: true, encoding: .utf8)
        }
        #expect(output == (try String(contentsOfFile: golden, encoding: .utf8)))
        // The golden's numbers are the fixture's: 285 pink gnomes, the oldest 379; 240 shows.
        let pink = try CensusFixture.gnomes().filter { $0["hair_color"] == .string("Pink") }
        #expect(output.contains("pink  oldest\n────  ──────\n\(pink.count)   \(pink.map { $0["age"]!.intValue! }.max()!)\n"))
        #expect(pink.count == 285)
        #expect(output.contains("shows\n─────\n240\n"))
    }

    /// A script stops at a failing statement with its status, as at a failing command.
    @Test func aFailingStatementStopsAScript() async throws {
        let dir = TemporaryDirectory("shell-sql-stop")
        let result = try await runDemoScript(["SELECT nmae FROM gnomes;", "VALUES (1);"], store: dir.sub("demo"))
        #expect(result.status == 1)
        #expect(result.stdout == "")
    }

    /// At end of input, a statement without `;` runs as it is (as sqlite3 runs it);
    /// `fetchlog query` takes one statement without it.
    @Test func aLastStatementNeedsNoSemicolon() async throws {
        let dir = TemporaryDirectory("shell-sql-eof")
        let result = try await runDemoScript(["SELECT count(*) AS n", "FROM gnomes WHERE age > 300"], store: dir.sub("demo"))
        #expect(result.status == 0, "\(result.stderr)")
        let old = try CensusFixture.gnomes().filter { $0["age"]!.intValue! > 300 }.count
        #expect(old == 281)
        #expect(result.stdout == "n\n───\n\(old)\n1 row (as of seq 8)\n")
        let query = try await runFetchlog(["--store", dir.sub("demo"), "--format", "csv", "query", "SELECT count(*) AS n FROM gnomes WHERE age > 300"],
                                          environment: demoEnvironment)
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stdout == "n\r\n\(old)\r\n")
    }
}

/// Tab completion of SQL: table names after FROM and JOIN (views, events, SOURCE.RESOURCE,
/// saved views) and the columns of the tables a statement names.
@Suite struct ShellSQLCompletionTests {
    @Test func tablesAndColumnsComplete() async throws {
        let dir = TemporaryDirectory("shell-sql-completion")
        let made = try await runDemoScript(["CREATE VIEW pink AS SELECT name, age FROM gnomes WHERE hairColor = 'Pink';"], store: dir.sub("demo"))
        #expect(made.status == 0, "\(made.stderr)")
        let maintenance = try StoreMaintenance.open(path: dir.sub("demo"), sources: Engine.sources)
        let session = Session(store: try await openStore(maintenance, clock: FixedClock(fixedTime)), clock: FixedClock(fixedTime))
        // Described once for the snapshot, then kept: the completer never waits again.
        _ = await SQLCompletionTables.prepare(session.store, state: session.store.snapshot.state)

        #expect(Completion.candidates(for: "SELECT * FROM gn", session: session) == ["gnomes"])
        #expect(Completion.candidates(for: "SELECT * FROM ev", session: session) == ["events"])
        #expect(Completion.candidates(for: "select * from pi", session: session) == ["pink"])
        // Tables and, once a word is begun, keywords in the case typed.
        #expect(Completion.candidates(for: "SELECT * FROM gnomes JOIN s", session: session) == ["search", "sections", "select", "shows", "status", "sum"])
        // Columns of the table the statement names (of every table while it names none).
        #expect(Completion.candidates(for: "SELECT ha", session: session) == ["hairColor", "having"])
        #expect(Completion.candidates(for: "SELECT name, prof", session: session) == ["professions"])
        #expect(Completion.candidates(for: "SELECT count(na", session: session) == ["count(name"])
        #expect(Completion.candidates(for: "SELECT name FROM pi", session: session) == ["pink"])
        #expect(Completion.candidates(for: "SELECT a FROM pink WHERE a", session: session) == ["age", "all", "and", "as", "asc", "avg"])
        #expect(Completion.candidates(for: "SELECT A FROM pink WHERE A", session: session) == ["ALL", "AND", "AS", "ASC", "AVG", "Age"])
        // An earlier line of the statement names the table.
        #expect(Completion.candidates(for: "  WHERE wei", before: "SELECT name FROM gnomes", session: session) == ["weight"])
        #expect(Completion.candidates(for: "SELECT gnomes.th", session: session) == ["gnomes.thumbnail"])
        #expect(Completion.candidates(for: "at 2 SELECT * FROM st", session: session) == ["status"])
        #expect(Completion.candidates(for: ".schema gno", session: session) == ["gnomes"])
        // Not SQL: the shell's own completion.
        #expect(Completion.candidates(for: "gnom", session: session) == ["gnome", "gnomes"])
        await session.store.close()
    }
}

/// The census fixture the sample upstream serves, as JSON objects.
enum CensusFixture {
    static func gnomes() throws -> [[String: JSONValue]] {
        let path = Repo.root + "/Tools/SampleUpstream/Sources/SampleUpstream/Fixtures/brastlewark/census.json"
        let json = try JSONValue.parse(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        guard case .array(let list)? = json["Brastlewark"] else { return [] }
        return list.compactMap { if case .object(let members) = $0 { Dictionary(members, uniquingKeysWith: { a, _ in a }) } else { nil } }
    }
}
