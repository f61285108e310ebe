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
    /// line of the file at `path`, trimmed.
    static func statementsNotIn(_ path: String, blocks: [String]) throws -> [String] {
        let test = try String(contentsOfFile: path, encoding: .utf8)
        let lines = Set(test.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        return blocks.flatMap { $0.split(separator: "\n") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { statement in
            !(statement.isEmpty || statement.hasPrefix("//") || statement.hasPrefix("import ") || lines.contains(statement))
        }
    }
}
