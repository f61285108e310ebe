import Foundation
import Testing

/// SQL at a real terminal (a pty, through Tools/pty-drive.py): a statement continues under
/// sqlite3's `   ...> ` until its `;`, Ctrl-C there drops it, and Ctrl-C stops a long query,
/// not the shell; a query that runs long shows how long on the terminal meanwhile.
@Suite struct ShellSQLPTYTests {
    @Test func aStatementContinuesUntilItsSemicolonAndCtrlCStopsAQuery() async throws {
        let pty = LineEditorPTYTests()
        let dir = TemporaryDirectory("shell-sql-pty")
        let store = dir.sub("store")
        #expect(try await runFetchlog(["--store", store, "log", "import", Repo.sampleLog]).status == 0)
        let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n;"
        let run = try await pty.repl(store: store, environment: pty.environment(dir), steps: [
            .wait("fetchlog> "), .send("SELECT count(*) AS n\r"), .wait("   ...> "), .send("  FROM gnomes;\r"), .wait("1 row"), .wait("fetchlog> "),
            // Ctrl-C at the continuation prompt drops the statement: the next one runs alone.
            .send("SELECT 'dropped'\r"), .wait("   ...> "), .send("\u{3}"), .wait("fetchlog> "),
            .send("VALUES ('kept');\r"), .wait("1 row"), .wait("fetchlog> "),
            // A query that runs long says so on the terminal; the Ctrl-C comes once it does.
            .send(endless + "\r"), .wait("Ctrl-C stops it"), .send("\u{3}"), .wait("interrupted"), .wait("fetchlog> "),
            .send("VALUES ('still here');\r"), .wait("1 row"), .wait("fetchlog> "), .send("\u{4}"),
        ])
        #expect(run.status == 0, "\(run.report)")
        let lines = run.lines
        let first = try #require(lines.firstIndex(of: "fetchlog> SELECT count(*) AS n"), "\(run.report)")
        #expect(Array(lines[(first + 1) ... (first + 5)]) == ["   ...>   FROM gnomes;", "n", "────", "1337", "1 row (as of seq 13)"], "\(run.report)")
        #expect(lines.contains("   ...> ^C"), "\(run.report)")
        // The dropped statement printed no row.
        #expect(!lines.contains("dropped"), "\(run.report)")
        let kept = try #require(lines.firstIndex(of: "fetchlog> VALUES ('kept');"), "\(run.report)")
        #expect(lines[kept + 1] == "column1", "\(run.report)")
        #expect(lines.contains("error: interrupted: the query was stopped"), "\(run.report)")
        let still = try #require(lines.firstIndex(of: "fetchlog> VALUES ('still here');"), "\(run.report)")
        #expect(lines[still + 3] == "still here", "\(run.report)")
        // The statement typed over two lines is one history entry (the file writes a space as \040).
        let history = try pty.historyEntries(dir.sub("state/nested/history")).map { $0.replacingOccurrences(of: "\\040", with: " ") }
        #expect(history == ["SELECT count(*) AS n FROM gnomes;", "SELECT 'dropped'", "VALUES ('kept');", endless, "VALUES ('still here');"], "\(history)")
    }
}
