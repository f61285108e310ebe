/// One table SQL reads, as completion needs it: its name and its columns' names.
package struct SQLCompletionTable: Sendable, Equatable {
    package let name: String
    package let columns: [String]

    package init(name: String, columns: [String]) {
        self.name = name
        self.columns = columns
    }
}

extension ShellCompletion {
    /// SQL's keywords completion offers once a word is begun.
    static let sqlKeywords = ["SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "HAVING", "LIMIT", "OFFSET", "JOIN", "LEFT", "ON",
                              "USING", "AS", "AND", "OR", "NOT", "IN", "IS", "NULL", "LIKE", "GLOB", "BETWEEN", "DISTINCT", "DESC", "ASC",
                              "UNION", "ALL", "EXCEPT", "INTERSECT", "WITH", "RECURSIVE", "VALUES", "EXPLAIN", "CASE", "WHEN", "THEN",
                              "ELSE", "END", "CAST", "INTEGER", "REAL", "TEXT", "COUNT", "SUM", "AVG", "MIN", "MAX", "TOTAL", "GROUP_CONCAT",
                              "JSON_EACH", "JSON_EXTRACT", "JSON_ARRAY_LENGTH", "CREATE", "VIEW", "DROP", "IF", "EXISTS"]

    /// The keywords after which a table's name comes (`.schema` takes one too).
    static let tableKeywords: Set<String> = ["FROM", "JOIN", "VIEW", "TABLE", "EXISTS"]
    /// The keywords after which a column (or an expression) comes.
    static let columnKeywords: Set<String> = ["SELECT", "WHERE", "BY", "ON", "HAVING", "AND", "OR", "NOT", "WHEN", "THEN", "ELSE",
                                               "CASE", "USING", "DISTINCT", "SET", "LIMIT", "BETWEEN", "IN", "LIKE", "GLOB", "IS"]

    /// What may complete the SQL word at the end of `line` (`statement`: the whole statement
    /// typed so far, earlier lines included, ending with `line`): after FROM or JOIN (and in
    /// `.schema`) the tables — views, `events`, `SOURCE.RESOURCE`, saved views; elsewhere the
    /// columns of the tables the statement names (of every table when it names none yet),
    /// `TABLE.` followed by that table's columns, and, once a word is begun, keywords.
    /// Each candidate is cut to the part after the line's last space, as `candidates(for:state:)`'s.
    package func sqlCandidates(for line: String, statement: String, tables: [SQLCompletionTable]) -> [String] {
        func isNameCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" || c == "$" || c == "." }
        let current = String(line.reversed().prefix { isNameCharacter($0) }.reversed())
        let editorWord = line.split(separator: " ", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let head = statement.dropLast(current.count)
        let words = head.split { !isNameCharacter($0) }.map { $0.uppercased() }
        let wanted = current.lowercased()

        var options: [String] = []
        let isSchema = statement.hasPrefix(".schema")
        let lastKeyword = words.last { Self.tableKeywords.contains($0) || Self.columnKeywords.contains($0) }
        if isSchema || lastKeyword.map(Self.tableKeywords.contains) == true {
            options = tables.map(\.name)
        } else {
            if let dot = current.lastIndex(of: ".") {
                // `events.ki` (a table's columns), or `source.re` (a SOURCE.RESOURCE table).
                let qualifier = current[..<dot].lowercased()
                for table in tables where table.name.lowercased() == qualifier {
                    options += table.columns.map { table.name + "." + Self.quotedIfNeeded($0) }
                }
                options += tables.map(\.name)
            } else {
                let named = Set(statement.split { !isNameCharacter($0) }.map { $0.lowercased() })
                let mentioned = tables.filter { named.contains($0.name.lowercased()) }
                for table in mentioned.isEmpty ? tables : mentioned {
                    for column in table.columns where !options.contains(column) { options.append(column) }
                }
                options = options.map(Self.quotedIfNeeded)
            }
        }
        var matches = Set(options.filter { $0.lowercased().hasPrefix(wanted) }.map { current + $0.dropFirst(current.count) })
        if !isSchema, !current.isEmpty, !current.contains(".") {
            // Keywords in the case being typed.
            let lower = current.first?.isLowercase == true
            for keyword in Self.sqlKeywords where keyword.lowercased().hasPrefix(wanted) {
                matches.insert(current + (lower ? keyword.lowercased() : keyword).dropFirst(current.count))
            }
        }
        // The editor replaces the text after the line's last space: the candidate keeps what
        // comes before the SQL word in it (`count(` in `count(ha`).
        let before = editorWord.dropLast(min(current.count, editorWord.count))
        return matches.sorted().map { before + $0 }
    }

    /// A name as SQL takes it: bare when it is a plain word, else in double quotes.
    static func quotedIfNeeded(_ name: String) -> String {
        let plain = !name.isEmpty && !name.first!.isNumber && name.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" }
        return plain ? name : "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
