/// What the shell's `.tables [PATTERN]` needs of sqlite3's: its LIKE pattern and its layout.
enum SQLLike {
    /// Whether `name` matches the LIKE `pattern` (`%` any run, `_` one character; ASCII case
    /// ignored, as SQLite's LIKE).
    static func matches(_ name: String, _ pattern: String) -> Bool {
        let n = Array(name.lowercased()), p = Array(pattern.lowercased())
        // The classic two-pointer wildcard match, with backtracking to the last `%`.
        var i = 0, j = 0, star = -1, mark = 0
        while i < n.count {
            if j < p.count, p[j] == "%" { star = j; mark = i; j += 1 } else if j < p.count, p[j] == "_" || p[j] == n[i] { i += 1; j += 1 } else if star >= 0 {
                j = star + 1
                mark += 1
                i = mark
            } else { return false }
        }
        while j < p.count, p[j] == "%" { j += 1 }
        return j == p.count
    }

    /// `names` in columns down then across, each as wide as the longest name, two spaces
    /// apart, as many as fit 80 characters: sqlite3's `.tables` (without its trailing spaces).
    static func columns(_ names: [String]) -> String {
        guard let width = names.map(\.count).max() else { return "" }
        let perRow = max(1, 80 / (width + 2))
        let rows = (names.count + perRow - 1) / perRow
        var lines: [String] = []
        for row in 0 ..< rows {
            var line = ""
            for index in stride(from: row, to: names.count, by: rows) {
                if index >= rows { line += "  " }
                line += names[index] + String(repeating: " ", count: width - names[index].count)
            }
            while line.last == " " { line.removeLast() }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
