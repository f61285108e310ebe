import Foundation
import Testing

/// Issue 28, item 11: messages on stderr quote what was typed or pasted; its control
/// characters are shown escaped, never sent to the terminal (an OSC sequence ending in BEL
/// sets the window's title; a CSI one moves the cursor or hides text). Before, the shell and
/// the command line echoed the raw bytes.
@Suite struct ControlCharacterTests {
    static let pasted = "\u{1B}]0;owned\u{07}\u{9B}2J"

    @Test func anUnknownCommandIsEchoedWithItsControlCharactersEscaped() async throws {
        let dir = TemporaryDirectory("control-characters")
        let script = try await runFetchlog(["--store", dir.path], stdin: Self.pasted + " now\n")
        #expect(script.status == 64)
        #expect(script.stderr == "error: unknown command '\\u{1B}]0;owned\\u{7}\\u{9B}2J'; type help for the list\n", "\(script.stderr)")

        let query = try await runFetchlog(["--store", dir.path, "query", Self.pasted])
        #expect(query.status == 64)
        #expect(query.stderr.hasPrefix("error: unknown command '\\u{1B}]0;owned\\u{7}\\u{9B}2J'"), "\(query.stderr)")

        let command = try await runFetchlog([Self.pasted])
        #expect(command.status == 64)
        #expect(command.stderr.hasPrefix("fetchlog: unknown command '\\u{1B}]0;owned\\u{7}\\u{9B}2J'"), "\(command.stderr)")

        // ArgumentParser's own messages quote the option as typed.
        let option = try await runFetchlog(["--store", dir.path, "status", "--\u{1B}[8m"])
        #expect(option.status == 64)
        #expect(option.stderr.contains("--\\u{1B}[8m"), "\(option.stderr)")
        for result in [script, query, command, option] {
            #expect(!result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F ... 0x9F).contains($0.value) })
        }
    }
}
