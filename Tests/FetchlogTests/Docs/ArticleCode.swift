import Foundation

/// The Swift of an article, and which of its statements a test file does not hold as a line
/// (an article that shows code no test runs is how snippets rot).
enum ArticleCode {
    /// The article's ```swift blocks.
    static func blocks(of article: String) throws -> [String] {
        let text = try String(contentsOfFile: Repo.root + "/" + article, encoding: .utf8)
        return text.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
    }

    /// The statements of `blocks` (comments, blank lines and imports aside) that are not a
    /// line of the file at `path`, trimmed. `replaced` are the article's set-up statements
    /// the test does its own way (a temporary directory for the reader's `data.fetchlog`, the
    /// sample upstream's address): each must still be one of the article's, or it is
    /// reported too, so the list cannot outlive the article's text.
    static func statementsNotIn(_ path: String, blocks: [String], replaced: Set<String> = []) throws -> [String] {
        let test = try String(contentsOfFile: path, encoding: .utf8)
        let lines = Set(test.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let statements = blocks.flatMap { $0.split(separator: "\n") }.map { $0.trimmingCharacters(in: .whitespaces) }
        let missing = statements.filter { statement in
            !(statement.isEmpty || statement.hasPrefix("//") || statement.hasPrefix("import ") || lines.contains(statement)
              || replaced.contains(statement))
        }
        return missing + replaced.subtracting(statements).sorted().map { "\($0) (listed as replaced, but not the article's)" }
    }
}
