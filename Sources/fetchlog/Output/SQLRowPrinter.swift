import FetchlogCore
import FetchlogSQL

/// An SQL answer written as SQLite yields its rows, in any `--format`, holding at most one
/// batch of them (issue 44: a 10⁹-row answer held 2.2 GB and printed nothing). Each mode
/// writes what `Renderer` writes for the whole answer at once, byte for byte, except a table
/// longer than one batch: its columns are as wide as the first batch's cells (psql's
/// `FETCH_COUNT`), and a longer cell after it is cut on a terminal, left whole elsewhere.
///
/// Rows arrive on the SQL engine's thread, one call after another, never at once.
final class SQLRowPrinter: @unchecked Sendable {
    /// Rows a table holds to size its columns from; every other mode holds none.
    static let batch = 1000

    private let renderer: Renderer
    private let write: (String) -> Void
    private var columns: [String] = []
    private var keys: [String] = []
    private(set) var count = 0
    private var held: [[String]] = []
    private var widths: [Int]?

    init(renderer: Renderer, write: @escaping (String) -> Void) {
        self.renderer = renderer
        self.write = write
    }

    func begin(_ columns: [String]) {
        self.columns = columns
        keys = SQLAnswer.keys(columns)
    }

    /// What comes before the first row, written with it (or at the end): an answer that
    /// fails before its first row prints nothing on stdout.
    private func opening() -> String {
        switch renderer.mode {
        case .json: "["
        case .csv: CSVWriter.record(columns)
        default: ""
        }
    }

    func row(_ values: [JSONValue]) {
        defer { count += 1 }
        if count == 0, renderer.mode == .json || renderer.mode == .csv { write(opening()) }
        switch renderer.mode {
        case .json:
            write((count > 0 ? "," : "") + object(values).orderedText())
        case .ndjson:
            write(object(values).orderedText() + "\n")
        case .csv:
            write(CSVWriter.record(values.map(Renderer.cell)))
        case .line:
            let labelWidth = columns.map(\.count).max() ?? 0
            let lines = zip(columns, values.map(Renderer.cell)).map { Format.padRight($0, labelWidth) + " = " + $1 }
            write((count > 0 ? "\n" : "") + lines.joined(separator: "\n") + "\n")
        case .table:
            let cells = values.map(Renderer.cell)
            if let widths {
                write(renderer.tableLine(cells, widths: widths) + "\n")
                return
            }
            held.append(cells)
            if held.count == Self.batch { flushHeld() }
        }
    }

    /// `N rows (as of seq S)`: what an answer's footer says.
    static func footer(rows: Int, asOf: UInt64) -> String { "\(rows) row\(rows == 1 ? "" : "s") (as of seq \(asOf))" }

    /// Ends the answer: what a table still holds, and `footer` where the mode has one.
    func finish(footer: String?) {
        if count == 0 { write(opening()) }
        switch renderer.mode {
        case .json: write("]\n")
        case .ndjson, .csv: break
        case .line: write(footer.map { "\n" + $0 + "\n" } ?? "")
        case .table:
            if widths == nil { flushHeld() }
            write(footer.map { $0 + "\n" } ?? "")
        }
    }

    /// Rows printed so far are left as they are when the answer fails part way; a table's
    /// rows still held (its first batch) are dropped with its header, as when the whole
    /// answer was held: a statement that fails early prints nothing but its error.
    func abandon() {
        held = []
    }

    private func flushHeld() {
        let widths = renderer.tableWidths(columns, held)
        self.widths = widths
        var text = renderer.tableHeader(columns, widths: widths)
        for cells in held { text += renderer.tableLine(cells, widths: widths) + "\n" }
        held = []
        write(text)
    }

    private func object(_ values: [JSONValue]) -> JSONValue { .object(zip(keys, values).map { ($0, $1) }) }
}

/// Text on its way out, held until `hold` bytes (then written in 64 KiB pieces), so an
/// answer shorter than that is written in one piece — the shell pages a piece that is
/// longer than the window — and a longer one does not wait for its end. `hold` 0 writes
/// each text as it comes (the command line's `OutputBuffer` gathers them itself).
final class HeldWriter: @unchecked Sendable {
    private let hold: Int
    private let emit: (String) -> Void
    private var buffer = ""
    private var started = false

    init(hold: Int, emit: @escaping (String) -> Void) {
        self.hold = hold
        self.emit = emit
    }

    func write(_ text: String) {
        guard hold > 0 else { return emit(text) }
        buffer += text
        if buffer.utf8.count >= (started ? 1 << 16 : hold) {
            started = true
            emit(buffer)
            buffer = ""
        }
    }

    /// Writes what is held.
    func finish() {
        guard !buffer.isEmpty else { return }
        emit(buffer)
        buffer = ""
    }
}
