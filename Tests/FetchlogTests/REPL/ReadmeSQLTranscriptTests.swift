import Foundation
import Testing
@testable import fetchlog

/// The README's "Ask anything" transcripts are real: the shell block (```fetchlog-repl-sql:
/// `fetchlog> ` and `   ...> ` lines typed, `error:` lines on stderr, the rest on stdout) runs
/// on a demo store, then each `$ fetchlog …` line of the ```fetchlog-sql-cli block runs on
/// that store, printing what follows it (a `fetchlog:` line on stderr).
@Suite struct ReadmeSQLTranscriptTests {
    @Test func theAskAnythingTranscriptsAreWhatFetchlogPrints() async throws {
        let readme = try String(contentsOfFile: Repo.root + "/README.md", encoding: .utf8)
        var typed: [String] = []
        var stdout = "", stderr = ""
        for line in try Self.block("fetchlog-repl-sql", in: readme) {
            if line.hasPrefix("fetchlog> ") { typed.append(String(line.dropFirst(10))) } else if line.hasPrefix("   ...> ") {
                typed.append(String(line.dropFirst(8)))
            } else if line.hasPrefix("error: ") { stderr += line + "\n" } else { stdout += line + "\n" }
        }
        #expect(typed.count == 10)
        let dir = TemporaryDirectory("readme-sql")
        let store = dir.sub("demo")
        let shell = try await runDemoScript(typed, store: store, extraArguments: ["--keep-going"])
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout == stdout)
        #expect(shell.stderr.hasSuffix(stderr), "\(shell.stderr)")

        // The command line, each `$ fetchlog …` with what follows it up to the next.
        var runs: [(arguments: [String], stdout: String, stderr: String)] = []
        for line in try Self.block("fetchlog-sql-cli", in: readme) {
            if line.hasPrefix("$ fetchlog ") {
                runs.append((try Tokenizer.words(String(line.dropFirst(11))), "", ""))
            } else if line.hasPrefix("fetchlog: ") {
                runs[runs.count - 1].stderr += line + "\n"
            } else {
                runs[runs.count - 1].stdout += line + "\n"
            }
        }
        #expect(runs.count == 4)
        for run in runs {
            let result = try await runFetchlog(run.arguments, environment: demoEnvironment.merging(["FETCHLOG_STORE": store]) { $1 })
            // csv's records end with CR LF; the README shows lines.
            #expect(result.stdout.replacingOccurrences(of: "\r\n", with: "\n") == run.stdout, "\(run.arguments)")
            #expect(result.stderr == run.stderr, "\(run.arguments)")
            #expect(result.status == (run.stderr.contains("refused:") ? 64 : 0), "\(run.arguments)")
        }
    }

    /// The lines of the README's ```FENCE block.
    static func block(_ fence: String, in readme: String) throws -> [Substring] {
        let start = try #require(readme.range(of: "```\(fence)\n"))
        let end = try #require(readme.range(of: "\n```", range: start.upperBound ..< readme.endIndex))
        return readme[start.upperBound ..< end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
    }
}
