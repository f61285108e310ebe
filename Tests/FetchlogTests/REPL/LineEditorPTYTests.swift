import Foundation
import Testing

/// The REPL's line editor (libedit) driven through a real pseudo-terminal by
/// Tools/pty-drive.py: completion, history file, candidate listing. Assertions are on the
/// visible text: the captured output with ANSI escape sequences, carriage returns and
/// bells removed.
@Suite struct LineEditorPTYTests {
    enum Step {
        case send(String)
        // Generous: a wait ends as soon as the text shows; the full suite on two cores was
        // seen to stall a session for over 10 s.
        case wait(String, timeout: Double = 45)
        case sleep(Double)
        /// Polls `url` until its body contains `text` (a server-side condition, e.g. a request arrived).
        case waitURL(String, contains: String, timeout: Double = 45)

        var json: [String: Any] {
            switch self {
            case .send(let text): ["send": text]
            case .wait(let text, let timeout): ["wait": text, "timeout": timeout]
            case .sleep(let seconds): ["sleep": seconds]
            case .waitURL(let url, let text, let timeout): ["wait_url": url, "contains": text, "timeout": timeout]
            }
        }
    }

    struct Run {
        let status: Int32
        let raw: String
        let stderr: String
        /// The output without escape sequences, "\r" and BEL.
        var visible: String { LineEditorPTYTests.stripANSI(raw) }
        var lines: [String] { visible.components(separatedBy: "\n") }
        var report: String { "status \(status)\n--- visible ---\n\(visible)\n--- stderr ---\n\(stderr)" }
    }

    static func stripANSI(_ text: String) -> String {
        let pattern = #"\x{1B}\[[0-9;?]*[ -/]*[@-~]|\x{1B}\][^\x{07}\x{1B}]*(?:\x{07}|\x{1B}\\)|\x{1B}[()][0-9A-Za-z]|\x{1B}[=>78MDEc]"#
        let regex = try! NSRegularExpression(pattern: pattern)
        let stripped = regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "")
        return stripped.replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\u{07}", with: "")
    }

    /// Runs `fetchlog repl --store STORE [ARGUMENTS]` in a 100x30 pty (TERM=xterm) through the script.
    func repl(store: String, environment: [String: String], arguments extra: [String] = [], steps: [Step]) async throws -> Run {
        let stepsJSON = String(decoding: try JSONSerialization.data(withJSONObject: steps.map(\.json)), as: UTF8.self)
        var arguments = [Repo.root + "/Tools/pty-drive.py"]
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["--env", "\(name)=\(value)"] }
        // The child's exit after the last step is awaited generously too (see `Step.wait`).
        arguments += ["--steps", stepsJSON, "--exit-timeout", "45", "--", Repo.executable, "repl", "--store", store] + extra
        let finalArguments = arguments
        return try await offPool {
            let result = try runProcessBlocking("/usr/bin/env", ["python3"] + finalArguments)
            return Run(status: result.status, raw: result.stdout, stderr: result.stderr)
        }
    }

    /// A history file in a directory that does not exist yet, and no user history touched.
    /// No pager: a long answer (help) would otherwise wait in `less` for a key.
    func environment(_ dir: TemporaryDirectory) -> [String: String] {
        ["FETCHLOG_HISTORY": dir.sub("state/nested/history"), "HOME": dir.sub("home"), "XDG_STATE_HOME": dir.sub("xdg"), "PAGER": ""]
    }

    /// The history entries in the file (libedit's "_HiStOrY_V2_" header line left out).
    func historyEntries(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: true)
            .map(String.init).filter { !$0.hasPrefix("_HiStOrY_") }
    }

    @Test func tabCompletesUniqueCommandAndEnterRunsIt() async throws {
        let dir = TemporaryDirectory("line-editor-complete")
        let run = try await repl(store: dir.sub("store"), environment: environment(dir), steps: [
            // "stat" names one command, `status`. (`sou` names two now: `source` and `sources`.)
            .wait("fetchlog> "), .send("stat"), .send("\t"), .wait("status"), .sleep(0.2),
            .send("\r"), .wait("no resources held yet"), .wait("fetchlog> "), .send("\u{4}"),
        ])
        #expect(run.status == 0, "\(run.report)")
        let lines = run.lines
        // The completed line as typed + TAB shows: the command and a space after it.
        let commandLine = try #require(lines.firstIndex(of: "fetchlog> status "), "\(run.report)")
        let rest = lines[(commandLine + 1)...]
        #expect(rest.first?.hasPrefix("resource ") == true, "\(run.report)")
        #expect(rest.contains("no resources held yet: fetch one (help fetch)"), "\(run.report)")
        // Then the next prompt, where Ctrl-D ends the session (libedit echoes it as "^D").
        #expect(rest.contains("fetchlog> ^D"), "\(run.report)")
    }

    /// Gnome names have spaces: they complete with escaped spaces, keeping what was typed.
    @Test func gnomeNamesCompleteWithEscapedSpaces() async throws {
        let dir = TemporaryDirectory("line-editor-gnomes")
        let store = dir.sub("store")
        #expect(try await runFetchlog(["--store", store, "log", "import", Repo.sampleLog]).status == 0)
        let run = try await repl(store: store, environment: environment(dir), steps: [
            .wait("fetchlog> "), .send("gnome tob\t"), .sleep(0.2), .send("qu\t"), .sleep(0.2), .send("w\t"), .sleep(0.2),
            .send("\r"), .wait("thumbnail"), .wait("fetchlog> "), .send("\u{4}"),
        ])
        #expect(run.status == 0, "\(run.report)")
        #expect(run.lines.contains("fetchlog> gnome tobus\\ quickwhistle "), "\(run.report)")
        #expect(run.lines.contains("name         Tobus Quickwhistle"), "\(run.report)")
    }

    @Test func historyIsSavedPrivatelyAndUpRecallsTheLastCommand() async throws {
        let dir = TemporaryDirectory("line-editor-history")
        let env = environment(dir)
        let historyPath = try #require(env["FETCHLOG_HISTORY"])
        let first = try await repl(store: dir.sub("store"), environment: env, steps: [
            .wait("fetchlog> "), .send("help\r"), .wait("status"), .wait("fetchlog> "),
            .send("status\r"), .wait("resource"), .wait("fetchlog> "), .send("\u{4}"),
        ])
        #expect(first.status == 0, "\(first.report)")
        let attributes = try FileManager.default.attributesOfItem(atPath: historyPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try historyEntries(historyPath) == ["help", "status"])

        let second = try await repl(store: dir.sub("store"), environment: env, steps: [
            .wait("fetchlog> "), .send("\u{1B}[A"), .wait("status"), .sleep(0.2),
            .send("\r"), .wait("resource"), .wait("fetchlog> "), .send("\u{4}"),
        ])
        #expect(second.status == 0, "\(second.report)")
        let recalled = try #require(second.lines.firstIndex(of: "fetchlog> status"), "\(second.report)")
        #expect(second.lines[recalled + 1].hasPrefix("resource "), "\(second.report)")
        // Recalling and running "status" again adds no consecutive duplicate.
        #expect(try historyEntries(historyPath) == ["help", "status"])
    }

    @Test func secondTabListsAmbiguousCandidates() async throws {
        let dir = TemporaryDirectory("line-editor-list")
        let run = try await repl(store: dir.sub("store"), environment: environment(dir), steps: [
            .wait("fetchlog> "), .send("s"), .send("\t"), .sleep(0.3), .send("\t"), .wait("status"),
            .wait("fetchlog> s"), .send("\u{7F}"), .send("\u{4}"),
        ])
        #expect(run.status == 0, "\(run.report)")
        let lines = run.lines
        // The first TAB (no common prefix longer than "s") changes nothing; the second lists
        // the candidates on a line of their own, then prompt and "s" come back.
        let listing = try #require(lines.firstIndex { $0.hasPrefix("s") && $0.contains("sources") }, "\(run.report)")
        let words = Set(lines[listing].split(separator: " ").map(String.init))
        #expect(words.isSuperset(of: ["sources", "sections", "shows", "status"]), "\(run.report)")
        #expect(words.allSatisfy { $0.hasPrefix("s") }, "\(run.report)")
        #expect(lines[listing - 1] == "fetchlog> s", "\(run.report)")
        #expect(lines[listing + 1].hasPrefix("fetchlog> s"), "\(run.report)")
    }
}
