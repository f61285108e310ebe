/// Reading SQL text as far as Fetchlog needs before SQLite compiles it: the first words (what
/// kind of statement), the names it mentions (which tables to build), and the parts of a
/// `CREATE VIEW` / `DROP VIEW`. SQLite still compiles every statement: this never decides
/// what a query means, only what to prepare for it and what to refuse outright.
package enum SQLText {
    /// One token: a word or quoted name (`text` unquoted), or punctuation.
    package struct Token: Equatable {
        package let text: String
        package let isName: Bool
        /// Byte range in the SQL (UTF-8 offsets).
        package let start: Int
        package let end: Int
    }

    /// The names and punctuation of `sql`, skipping whitespace, comments, string literals and numbers.
    package static func tokens(_ sql: String) -> [Token] {
        let bytes = Array(sql.utf8)
        var tokens: [Token] = []
        var i = 0
        func isNameByte(_ b: UInt8) -> Bool { b == 0x5F || b == 0x24 || (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b >= 0x80 }
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C { i += 1; continue }
            if b == 0x2D, i + 1 < bytes.count, bytes[i + 1] == 0x2D { // -- comment
                while i < bytes.count, bytes[i] != 0x0A { i += 1 }
                continue
            }
            if b == 0x2F, i + 1 < bytes.count, bytes[i + 1] == 0x2A { // /* comment */
                i += 2
                while i + 1 < bytes.count, !(bytes[i] == 0x2A && bytes[i + 1] == 0x2F) { i += 1 }
                i = min(bytes.count, i + 2)
                continue
            }
            if b == 0x27 { // 'string'
                i += 1
                while i < bytes.count {
                    if bytes[i] == 0x27 { if i + 1 < bytes.count, bytes[i + 1] == 0x27 { i += 2; continue }; break }
                    i += 1
                }
                i += 1
                continue
            }
            if b == 0x22 || b == 0x60 || b == 0x5B { // "name", `name`, [name]
                let close: UInt8 = b == 0x5B ? 0x5D : b
                let start = i
                var name: [UInt8] = []
                i += 1
                while i < bytes.count {
                    if bytes[i] == close {
                        if close != 0x5D, i + 1 < bytes.count, bytes[i + 1] == close { name.append(close); i += 2; continue }
                        break
                    }
                    name.append(bytes[i])
                    i += 1
                }
                i = min(bytes.count, i + 1)
                tokens.append(Token(text: String(decoding: name, as: UTF8.self), isName: true, start: start, end: i))
                continue
            }
            if b >= 0x30 && b <= 0x39 { // a number: never a name
                while i < bytes.count, isNameByte(bytes[i]) || bytes[i] == 0x2E { i += 1 }
                continue
            }
            if isNameByte(b) {
                let start = i
                while i < bytes.count, isNameByte(bytes[i]) { i += 1 }
                tokens.append(Token(text: String(decoding: bytes[start ..< i], as: UTF8.self), isName: true, start: start, end: i))
                continue
            }
            tokens.append(Token(text: String(UnicodeScalar(b)), isName: false, start: i, end: i + 1))
            i += 1
        }
        return tokens
    }

    /// The names `sql` mentions, lowercased, and each `a.b` pair (both lowercased).
    package static func mentions(_ sql: String) -> (names: Set<String>, qualified: [(String, String)]) {
        let tokens = tokens(sql)
        var names = Set<String>()
        var qualified: [(String, String)] = []
        for (i, token) in tokens.enumerated() where token.isName {
            names.insert(token.text.lowercased())
            if i + 2 < tokens.count, tokens[i + 1].text == ".", tokens[i + 2].isName {
                qualified.append((token.text.lowercased(), tokens[i + 2].text.lowercased()))
            }
        }
        return (names, qualified)
    }

    /// What a statement is, by its first words.
    package enum Statement: Equatable {
        /// SELECT, WITH, VALUES, EXPLAIN: a query.
        case query
        /// `CREATE VIEW [IF NOT EXISTS] name AS select`.
        case createView(name: String, select: String, ifNotExists: Bool)
        /// `DROP VIEW [IF EXISTS] name`.
        case dropView(name: String, ifExists: Bool)
        /// Anything else; the first word.
        case other(String)
        /// Only whitespace and comments.
        case empty
    }

    /// The statement a `WITH` clause leads to (`SELECT`, `DELETE`, …, uppercased), past its
    /// common table expressions; nil when they do not read as such (SQLite then says why).
    static func verbAfterWith(_ tokens: [Token]) -> String? {
        func upper(_ i: Int) -> String? { i < tokens.count && tokens[i].isName ? tokens[i].text.uppercased() : nil }
        /// The index after the parenthesis group opening at `i`.
        func skipGroup(_ i: Int) -> Int? {
            guard i < tokens.count, !tokens[i].isName, tokens[i].text == "(" else { return nil }
            var depth = 0, j = i
            while j < tokens.count {
                if !tokens[j].isName {
                    if tokens[j].text == "(" { depth += 1 } else if tokens[j].text == ")" { depth -= 1; if depth == 0 { return j + 1 } }
                }
                j += 1
            }
            return nil
        }
        var i = 1
        if upper(i) == "RECURSIVE" { i += 1 }
        while true {
            guard i < tokens.count, tokens[i].isName else { return nil }
            i += 1
            if i < tokens.count, !tokens[i].isName, tokens[i].text == "(" { guard let next = skipGroup(i) else { return nil }; i = next }
            guard upper(i) == "AS" else { return nil }
            i += 1
            if upper(i) == "NOT" { i += 1 }
            if upper(i) == "MATERIALIZED" { i += 1 }
            guard let next = skipGroup(i) else { return nil }
            i = next
            if i < tokens.count, !tokens[i].isName, tokens[i].text == "," { i += 1; continue }
            return upper(i)
        }
    }

    /// The kind of `sql`'s statement.
    package static func classify(_ sql: String) -> Statement {
        let tokens = tokens(sql)
        guard let first = tokens.first else { return .empty }
        let word = first.isName ? first.text.uppercased() : first.text
        switch word {
        case "SELECT", "VALUES", "EXPLAIN": return .query
        case "WITH":
            // `WITH … INSERT|UPDATE|DELETE|REPLACE` is a write however it starts: refused here
            // by its verb, as the bare statement is (SQLite's own message for some, such as a
            // view or sqlite_master written, would not say "refused").
            if let verb = verbAfterWith(tokens), verb != "SELECT", verb != "VALUES" { return .other("WITH … " + verb) }
            return .query
        case "CREATE", "DROP":
            var i = 1
            let upper = tokens.map { $0.isName ? $0.text.uppercased() : $0.text }
            if i < upper.count, upper[i] == "TEMP" || upper[i] == "TEMPORARY" { return .other(word + " " + upper[i]) }
            guard i < upper.count, upper[i] == "VIEW" else { return .other(word + (i < upper.count ? " " + upper[i] : "")) }
            i += 1
            var guarded = false
            if word == "CREATE", i + 2 < upper.count, upper[i] == "IF", upper[i + 1] == "NOT", upper[i + 2] == "EXISTS" { guarded = true; i += 3 }
            if word == "DROP", i + 1 < upper.count, upper[i] == "IF", upper[i + 1] == "EXISTS" { guarded = true; i += 2 }
            guard i < tokens.count, tokens[i].isName else { return .other(word + " VIEW") }
            let name = tokens[i].text
            // A schema-qualified name (`main.x`) is not one a saved view takes.
            if i + 1 < tokens.count, tokens[i + 1].text == "." { return .other(word + " VIEW " + name + ".") }
            if word == "DROP" {
                guard i + 1 == tokens.count || (i + 2 == tokens.count && tokens[i + 1].text == ";") else { return .other("DROP VIEW") }
                return .dropView(name: name, ifExists: guarded)
            }
            guard i + 1 < upper.count, upper[i + 1] == "AS", i + 2 < tokens.count else { return .other("CREATE VIEW") }
            let utf8 = Array(sql.utf8)
            var select = String(decoding: utf8[tokens[i + 2].start...], as: UTF8.self)
            while let last = select.last, last == ";" || last.isWhitespace { select.removeLast() }
            return .createView(name: name, select: select, ifNotExists: guarded)
        default:
            return .other(word)
        }
    }
}
