import Foundation
import Testing

/// The README's sync transcript (the ```fetchlog-sync block): each `$ ` line run as written
/// (its `NAME=VALUE` words as the environment) on one store, against the sample upstream
/// as `FETCHLOG_UPSTREAM`; what it prints (stdout, then stderr) is the lines below it.
@Suite struct ReadmeSyncTranscriptTests {
    @Test func theReadmeSyncTranscriptIsWhatSyncPrints() async throws {
        let readme = try String(contentsOfFile: Repo.root + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "```fetchlog-sync\n"))
        let end = try #require(readme.range(of: "\n```", range: start.upperBound ..< readme.endIndex))
        var steps: [(command: String, expected: String)] = []
        for line in readme[start.upperBound ..< end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("$ ") {
                steps.append((String(line.dropFirst(2)), ""))
            } else if !steps.isEmpty {
                steps[steps.count - 1].expected += line + "\n"
            }
        }
        #expect(steps.count == 5)
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("readme-sync")
        for (command, expected) in steps {
            var words = command.split(separator: " ").map(String.init)
            var environment = ["FETCHLOG_STORE": dir.sub("store"), "FETCHLOG_UPSTREAM": upstream.base]
            while let first = words.first, let equals = first.firstIndex(of: "=") {
                environment[String(first[..<equals])] = String(first[first.index(after: equals)...])
                words.removeFirst()
            }
            #expect(words.first == "fetchlog")
            let arguments = words.dropFirst().map { $0.replacingOccurrences(of: "docs/manifests/", with: Repo.root + "/docs/manifests/") }
            let result = try await runFetchlog(arguments, environment: environment)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stdout + result.stderr == expected, "\(command)")
        }
        await upstream.stop()
    }
}
