import Foundation
import Testing
@testable import fetchlog
@testable import FetchlogCore

/// Issue 25, item 3: the engine speaks no command-line flag. Its messages name settings
/// (`FrontEndTerm`); the command line installs its flags for them (`CommandLineTerms`), and
/// everything only a shell needs lives in FetchlogShell. A string literal in FetchlogCore
/// holding `--name` fails this.
@Suite struct NoCommandLineFlagsInCoreTests {
    /// A string literal (plain or raw, escapes skipped) on one line.
    static let literal = try! NSRegularExpression(pattern: #"#*"(?:[^"\\]|\\.)*""#)
    /// A long option: two dashes, then a letter.
    static let flag = try! NSRegularExpression(pattern: #"--[A-Za-z]"#)

    /// `line: text` of every line of Swift `text` whose code (not its comments) holds a
    /// string literal naming a flag.
    static func offendingLines(in text: String) -> [String] {
        var hits: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = String(line)
            if code.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
            let literals = literal.matches(in: code, range: NSRange(code.startIndex..., in: code)).compactMap { Range($0.range, in: code).map { String(code[$0]) } }
            if literals.contains(where: { flag.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }) {
                hits.append("\(number + 1): \(code.trimmingCharacters(in: .whitespaces))")
            }
        }
        return hits
    }

    /// `file:line: text` of every such line under `folder`.
    static func offendingLines(under folder: String) throws -> [String] {
        let root = Repo.root + "/" + folder
        guard let files = FileManager.default.enumerator(atPath: root) else { return ["\(folder): not found"] }
        var hits: [String] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            hits += offendingLines(in: try String(contentsOfFile: root + "/" + file, encoding: .utf8)).map { "\(folder)/\(file):\($0)" }
        }
        return hits.sorted()
    }

    @Test func coreHoldsNoFlagLiteral() throws {
        let hits = try Self.offendingLines(under: "Sources/FetchlogCore")
        #expect(hits.isEmpty, "\(hits.joined(separator: "\n"))")
    }

    /// The check itself can fail: the command line's own folder is full of flags, and a
    /// literal is found where a comment is not.
    @Test func theCheckFindsFlagsWhereTheyAre() throws {
        #expect(try Self.offendingLines(under: "Sources/fetchlog").count > 20)
        let sample = """
            /// `--deadline` in a doc comment is prose.
            // so is `--offline` here
            let a = "raise --deadline if the upstream is only slow"
            let b = #"a "quoted" --min-rate"#
            let c = "no flag - here -- or there"
            """
        #expect(Self.offendingLines(in: sample) == [
            #"3: let a = "raise --deadline if the upstream is only slow""#,
            ##"4: let b = #"a "quoted" --min-rate"#"##,
        ])
    }

    /// The command line's wording of what the engine's messages name is a flag for each
    /// term, so its messages read as before the move.
    @Test func theCommandLineWordsEveryTerm() {
        #expect(Set(CommandLineTerms.wording.keys) == Set(FrontEndTerm.allCases))
        #expect(CommandLineTerms.wording[.deadline] == "--deadline")
        #expect(CommandLineTerms.wording[.storeLocationOrEnvironment] == "--store (or FETCHLOG_STORE)")
    }
}
