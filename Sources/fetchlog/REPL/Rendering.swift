import Fetchlog
import Foundation

/// What a command produced, independent of the output mode.
enum Output {
    /// Rows with named columns; `records` carry the same rows as JSON for json/ndjson/line.
    case table(columns: [String], rows: [[String]], records: [JSONValue])
    /// One record: label/value pairs for people, JSON for machines.
    case record(pairs: [(String, String)], json: JSONValue)
    /// Plain text, printed as it is in every mode.
    case text(String)
    /// A JSON document (exports), printed canonically in every mode.
    case json(JSONValue)
}

enum OutputMode: String, CaseIterable {
    case table, json, ndjson, line
}

/// Turns an `Output` into text for a mode and a width.
struct Renderer {
    var mode: OutputMode = .table
    var width: Int = 100

    func render(_ output: Output) -> String {
        switch output {
        case .text(let text):
            return text.hasSuffix("\n") || text.isEmpty ? text : text + "\n"
        case .json(let json):
            return json.canonicalText() + "\n"
        case .record(let pairs, let json):
            switch mode {
            case .json, .ndjson: return json.canonicalText() + "\n"
            case .table, .line:
                let labelWidth = pairs.map { $0.0.count }.max() ?? 0
                return pairs.map { Format.padRight($0.0, labelWidth) + "  " + $0.1 }.joined(separator: "\n") + "\n"
            }
        case .table(let columns, let rows, let records):
            switch mode {
            case .json: return JSONValue.array(records).canonicalText() + "\n"
            case .ndjson: return records.map { $0.canonicalText() + "\n" }.joined()
            case .line:
                return rows.map { row in
                    let labelWidth = columns.map(\.count).max() ?? 0
                    return zip(columns, row).map { Format.padRight($0, labelWidth) + " = " + $1 }.joined(separator: "\n") + "\n"
                }.joined(separator: "\n")
            case .table:
                return table(columns, rows)
            }
        }
    }

    /// Columns as wide as their widest cell, shrunk from the widest until the table fits
    /// `width`; cut cells end with `…`.
    func table(_ columns: [String], _ rows: [[String]]) -> String {
        var widths = columns.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        let gaps = 2 * max(0, columns.count - 1)
        while widths.reduce(0, +) + gaps > width, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > 4 {
            widths[widest] -= 1
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (i, w) in widths.enumerated() {
                let cell = i < cells.count ? cells[i] : ""
                let cut = cell.count > w ? String(cell.prefix(w - 1)) + "…" : cell
                parts.append(i == widths.count - 1 ? cut : Format.padRight(cut, w))
            }
            return parts.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var out = line(columns) + "\n"
        out += line(widths.map { String(repeating: "─", count: $0) }) + "\n"
        for row in rows { out += line(row) + "\n" }
        return out
    }
}

/// The terminal's width: the window when stdout is a terminal, else $COLUMNS, else 100.
func terminalWidth() -> Int {
    var size = winsize()
    if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 20 { return columns }
    return 100
}
