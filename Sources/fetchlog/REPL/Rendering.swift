import FetchlogCore
import FetchlogShell
import FetchlogSQL
import FetchlogSources
import Foundation

/// What a command answers (FetchlogShell's `ShellOutput`: a source's commands return it too).
typealias Output = ShellOutput

enum OutputMode: String, CaseIterable, Sendable {
    case table, json, ndjson, line, csv

    static let choices = "table, json, ndjson, line or csv"

    /// Modes whose stdout is for programs: only data goes there; notes go to stderr.
    var isMachine: Bool { self == .json || self == .ndjson || self == .csv }
}

/// Turns an `Output` into text for a mode and a width.
struct Renderer {
    var mode: OutputMode = .table
    var width: Int = 100
    /// Cut cells to fit `width` (with `…`). Only for a terminal: piped or redirected
    /// output is always complete.
    var fitsWidth = false

    func render(_ output: Output) -> String {
        switch output {
        case .json(let json):
            return json.canonicalText() + "\n"
        case .message(let text, let json):
            switch mode {
            case .json, .ndjson: return json.canonicalText() + "\n"
            case .csv: return CSVWriter.object(json)
            case .table, .line: return text.hasSuffix("\n") || text.isEmpty ? text : text + "\n"
            }
        case .record(let pairs, let json):
            switch mode {
            case .json, .ndjson: return json.canonicalText() + "\n"
            case .csv: return CSVWriter.table(pairs.map(\.0), [pairs.map(\.1)])
            case .table, .line:
                let labelWidth = pairs.map { $0.0.count }.max() ?? 0
                return pairs.map { Format.padRight($0.0, labelWidth) + "  " + $0.1 }.joined(separator: "\n") + "\n"
            }
        case .rows(let columns, let values, let footer):
            // SQL rows are written one way (`SQLRowPrinter`, which `sql` streams through): gathered here.
            var text = ""
            let printer = SQLRowPrinter(renderer: self, write: { text += $0 })
            printer.begin(columns)
            for row in values { printer.row(row) }
            printer.finish(footer: footer)
            return text
        case .table(let columns, let rows, let records, let footer):
            switch mode {
            case .json: return JSONValue.array(records).canonicalText() + "\n"
            case .ndjson: return records.map { $0.canonicalText() + "\n" }.joined()
            case .csv: return CSVWriter.table(columns, rows)
            case .line:
                let labelWidth = columns.map(\.count).max() ?? 0
                let body = rows.map { row in
                    zip(columns, row).map { Format.padRight($0, labelWidth) + " = " + $1 }.joined(separator: "\n") + "\n"
                }.joined(separator: "\n")
                return body + (footer.map { "\n" + $0 + "\n" } ?? "")
            case .table:
                return table(columns, rows) + (footer.map { $0 + "\n" } ?? "")
            }
        }
    }

    /// An SQL value as a cell: text as it is, numbers as written, NULL empty in csv and
    /// `NULL` for people is sqlite3's choice too (`.nullvalue`): here the empty string, as csv.
    static func cell(_ value: JSONValue) -> String {
        switch value {
        case .null: ""
        case .string(let s): s
        case .number(let n): n
        case .bool(let b): b ? "1" : "0"
        default: value.orderedText()
        }
    }

    /// Columns as wide as their widest cell. On a terminal they are shrunk from the widest
    /// until the table fits `width` and cut cells end with `…`; elsewhere nothing is cut.
    func table(_ columns: [String], _ rows: [[String]]) -> String {
        let widths = tableWidths(columns, rows)
        var out = tableHeader(columns, widths: widths)
        for row in rows { out += tableLine(row, widths: widths) + "\n" }
        return out
    }

    /// The widths `table` gives `columns` over `rows`.
    func tableWidths(_ columns: [String], _ rows: [[String]]) -> [Int] {
        var widths = columns.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        let gaps = 2 * max(0, columns.count - 1)
        while fitsWidth, widths.reduce(0, +) + gaps > width, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > 4 {
            widths[widest] -= 1
        }
        return widths
    }

    /// The column names and the rule under them, each line ended.
    func tableHeader(_ columns: [String], widths: [Int]) -> String {
        tableLine(columns, widths: widths) + "\n" + tableLine(widths.map { String(repeating: "─", count: $0) }, widths: widths) + "\n"
    }

    /// One line of a table with columns `widths` wide (not ended): a longer cell is cut with
    /// `…` on a terminal and left whole elsewhere.
    func tableLine(_ cells: [String], widths: [Int]) -> String {
        var parts: [String] = []
        for (i, w) in widths.enumerated() {
            let cell = i < cells.count ? cells[i] : ""
            let cut = fitsWidth && cell.count > w ? (w > 0 ? String(cell.prefix(w - 1)) + "…" : "") : cell
            parts.append(i == widths.count - 1 ? cut : Format.padRight(cut, w))
        }
        var text = parts.joined(separator: "  ")
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// The terminal's width: the window when stdout is a terminal, else $COLUMNS, else 100.
func terminalWidth() -> Int {
    var size = winsize()
    if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 20 { return columns }
    return 100
}

/// The terminal's height in rows, when stdout is a terminal.
func terminalHeight() -> Int? {
    var size = winsize()
    if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 { return Int(size.ws_row) }
    return nil
}
