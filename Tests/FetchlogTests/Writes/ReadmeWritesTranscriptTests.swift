import Foundation
import Testing

/// The README's offline-writes transcript (the ```fetchlog-repl-writes block): changes made
/// in the demo's shell, shown pending, pushed once and confirmed, every line as shown (the
/// upstream's port written PORT).
@Suite struct ReadmeWritesTranscriptTests {
    @Test func theReadmeWritesTranscriptIsWhatTheShellPrints() async throws {
        let readme = try String(contentsOfFile: Repo.root + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "```fetchlog-repl-writes\n"))
        let end = try #require(readme.range(of: "\n```", range: start.upperBound ..< readme.endIndex))
        var commands: [String] = []
        var expected = ""
        for line in readme[start.upperBound ..< end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("fetchlog> ") {
                commands.append(String(line.dropFirst(10)).replacingOccurrences(of: "docs/manifests/", with: Repo.root + "/docs/manifests/"))
            } else {
                expected += line + "\n"
            }
        }
        #expect(commands.count == 10)
        let dir = TemporaryDirectory("readme-writes")
        let result = try await runDemoScript(commands, store: dir.sub("demo"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(normalized(result.stdout) == expected)
    }
}
