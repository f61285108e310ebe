/// Splits a command line into words: spaces separate, "double" and 'single' quotes group,
/// a backslash escapes the next character.
enum Tokenizer {
    struct Unterminated: Error, CustomStringConvertible {
        let quote: Character
        var description: String { "unterminated \(quote) quote" }
    }

    static func words(_ line: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for c in line {
            if escaped { current.append(c); escaped = false; inWord = true; continue }
            if c == "\\" && quote != "'" { escaped = true; inWord = true; continue }
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
                continue
            }
            if c == "\"" || c == "'" { quote = c; inWord = true; continue }
            if c == " " || c == "\t" {
                if inWord { words.append(current); current = ""; inWord = false }
                continue
            }
            current.append(c)
            inWord = true
        }
        if let quote { throw Unterminated(quote: quote) }
        if inWord { words.append(current) }
        return words
    }
}
