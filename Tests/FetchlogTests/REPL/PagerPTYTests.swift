import Foundation
import Testing

/// Long results on a terminal go through $PAGER, as in psql; `.pager off` prints them
/// directly (issue 12, item 7). Driven in a real 100x30 pty.
@Suite struct PagerPTYTests {
    @Test func aLongTableGoesThroughThePagerUntilItIsTurnedOff() async throws {
        let dir = TemporaryDirectory("pager")
        let store = dir.sub("store")
        #expect(try await runFetchlog(["--store", store, "log", "import", Repo.sampleLog]).status == 0)
        let paged = dir.sub("paged.txt")
        var environment = LineEditorPTYTests().environment(dir)
        // The pager is run by sh -c: this one keeps what it was given.
        environment["PAGER"] = "cat > \(paged)"
        let footer = "page 1 of 1 · 38 gnomes (filter: hair_color=Pink profession=Tinker)"
        let run = try await LineEditorPTYTests().repl(store: store, environment: environment, steps: [
            .wait("fetchlog> "), .send("gnomes --limit 40\r"), .wait("fetchlog> "),
            .send("gnomes --limit 2\r"), .wait("page 1 of 19"), .wait("fetchlog> "),
            .send(".pager off\r"), .wait("fetchlog> "), .send("gnomes --limit 40\r"), .wait(footer), .wait("fetchlog> "),
            .send("\u{4}"),
        ])
        #expect(run.status == 0, "\(run.report)")
        // 38 rows, a header and a rule and the footer (41 lines) do not fit 30 rows: paged.
        let text = try String(contentsOfFile: paged, encoding: .utf8)
        #expect(text.hasSuffix(footer + "\n"))
        #expect(text.split(separator: "\n").count == 41)
        // A short table is printed directly, and after `.pager off` so is the long one:
        // the footer reached the terminal once (the second time), never the first.
        #expect(run.visible.components(separatedBy: footer).count == 2, "\(run.report)")
        #expect(run.visible.contains("page 1 of 19 · 38 gnomes"), "\(run.report)")
    }
}
