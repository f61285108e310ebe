/// Which shell lines are SQL (issue 35): a statement that starts with SELECT, WITH, VALUES,
/// EXPLAIN, CREATE VIEW or DROP VIEW, in any case, alone or after `at SEQ`. Such a line is
/// never split into words by the shell's tokenizer (its quotes are SQL's, not the shell's):
/// the whole text goes to the SQL engine as written.
package enum ShellSQL {
    /// The words that start a query (or a saved view) at the shell's prompt.
    package static let queryWords: Set<String> = ["SELECT", "WITH", "VALUES", "EXPLAIN"]

    /// The SQL statement `line` holds, and the seq of its `at SEQ` prefix if any; nil when
    /// the line is a shell command.
    package static func statement(in line: String) -> (seq: UInt64?, text: String)? {
        let text = line.drop { $0.isWhitespace }
        if startsStatement(text) { return (nil, String(text)) }
        // `at SEQ SELECT …`: the shell's time travel, with SQL after it.
        let words = text.split(maxSplits: 2, whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count == 3, words[0] == "at", let seq = UInt64(words[1]) else { return nil }
        let rest = words[2].drop { $0.isWhitespace }
        return startsStatement(rest) ? (seq, String(rest)) : nil
    }

    /// Whether `text` (without leading whitespace) begins a statement the shell hands to SQL.
    package static func startsStatement(_ text: Substring) -> Bool {
        let words = text.split(maxSplits: 2, whereSeparator: { $0.isWhitespace || $0 == "(" || $0 == ";" }).prefix(2).map { $0.uppercased() }
        guard let first = words.first else { return false }
        // A word that only begins with one (`selection`) is not SQL; `SELECT*` is.
        if queryWords.contains(first) { return true }
        if let word = queryWords.first(where: { first.hasPrefix($0) }), let next = first.dropFirst(word.count).first, !(next.isLetter || next.isNumber || next == "_") {
            return true
        }
        guard first == "CREATE" || first == "DROP", words.count == 2 else { return false }
        // CREATE TEMP VIEW too, so the engine says why it is refused.
        return words[1] == "VIEW" || (first == "CREATE" && (words[1] == "TEMP" || words[1] == "TEMPORARY"))
    }
}
