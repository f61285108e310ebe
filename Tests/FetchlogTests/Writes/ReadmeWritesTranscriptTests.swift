import Foundation
import Testing

/// The README's offline-writes transcript (the ```fetchlog-repl-writes block): changes made
/// in the demo's shell, shown pending, pushed once and confirmed, every line as shown (the
/// upstream's port written PORT).
@Suite struct ReadmeWritesTranscriptTests {
    @Test func theReadmeWritesTranscriptIsWhatTheShellPrints() async throws {
        let (commands, expected) = try readmeTranscript("fetchlog-repl-writes")
        #expect(commands.count == 10)
        let dir = TemporaryDirectory("readme-writes")
        let result = try await runDemoScript(commands, store: dir.sub("demo"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(normalized(result.stdout) == expected)
    }
}
