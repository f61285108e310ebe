import ArgumentParser
import FetchlogCore
import FetchlogSources
import Foundation

/// Buffered standard output: commands print many lines; one write per 64 KiB.
final class OutputBuffer {
    private var buffer: [UInt8] = []
    private let handle: FileHandle
    /// Keep everything (for the REPL, which renders it itself) instead of writing it.
    private let collect: Bool

    init(handle: FileHandle = .standardOutput, collect: Bool = false) {
        self.handle = handle
        self.collect = collect
        buffer.reserveCapacity(1 << 16)
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if !collect && buffer.count >= 1 << 16 { flush() }
    }

    /// What was written, when collecting.
    var collected: String { String(decoding: buffer, as: UTF8.self) }

    func line(_ text: String = "") { write(text + "\n") }

    func flush() {
        guard !collect, !buffer.isEmpty else { return }
        writeAll(Data(buffer), to: handle)
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}

/// Runs a command body, turning engine errors into one clear message on stderr and
/// the documented exit status (`ExitStatus.of`).
func reportingErrors<R>(_ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as ExitCode {
        throw error
    } catch let error as ValidationError {
        throw error
    } catch {
        let failure = ExitStatus.of(error)
        printError(failure.message)
        throw ExitCode(failure.status)
    }
}

/// Writes to a stream. A closed pipe (`fetchlog … | head`) ends the process quietly,
/// as Unix tools do, instead of trapping.
func writeAll(_ data: Data, to handle: FileHandle) {
    do { try handle.write(contentsOf: data) } catch { exit(0) }
}

func writeOut(_ data: Data) { writeAll(data, to: .standardOutput) }
func writeErr(_ data: Data) { writeAll(data, to: .standardError) }

/// One line to standard output, unbuffered, so it interleaves correctly with
/// `OutputBuffer` writes and progress output.
func say(_ line: String) {
    writeOut(Data((line + "\n").utf8))
}

func printError(_ message: String) {
    writeErr(Data(("fetchlog: " + visibleControls(message) + "\n").utf8))
}

/// `text` with every control character but newline and tab shown escaped (`\u{1B}`):
/// messages on stderr quote what people typed or pasted, and a raw ESC or BEL in it would
/// drive the terminal (set its title, move the cursor, hide what follows).
func visibleControls(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isHiddenControl) else { return text }
    var shown = ""
    for scalar in text.unicodeScalars {
        if isHiddenControl(scalar) {
            shown += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        } else {
            shown.unicodeScalars.append(scalar)
        }
    }
    return shown
}

/// C0 controls but newline and tab, DEL, and the C1 controls (U+0080–U+009F).
private func isHiddenControl(_ scalar: Unicode.Scalar) -> Bool {
    let v = scalar.value
    return (v < 0x20 && v != 0x0A && v != 0x09) || (0x7F ... 0x9F).contains(v)
}

enum Format {
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func bytes(_ count: Int) -> String { ByteText.describe(count) }

    static func padRight(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }

    static func padLeft(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : String(repeating: " ", count: width - s.count) + s
    }

    /// `fetched`, `304`, `timeout` …: the one word that says how an attempt ended.
    static func outcome(_ event: Event) -> String { EventSummary.outcome(of: event) }
}
