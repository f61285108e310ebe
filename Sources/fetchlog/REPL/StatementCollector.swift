import FetchlogSQLite
import FetchlogShell
import Synchronization

/// Gathers the lines of one SQL statement as sqlite3 does: a line that starts SQL and is not
/// complete (no `;` ending it outside quotes and comments) waits for more lines, shown with
/// the continuation prompt, until one completes it. Shell commands are one line each.
struct StatementCollector {
    /// The statement's lines so far (empty when no statement is open).
    private(set) var pending = ""

    /// sqlite3's continuation prompt.
    static let continuationPrompt = "   ...> "

    var isCollecting: Bool { !pending.isEmpty }

    /// Takes one line as typed or read; returns the text to run when it ends a command (a
    /// shell command, or a complete SQL statement with its earlier lines), else nil.
    mutating func add(_ line: String) -> String? {
        if isCollecting {
            pending += "\n" + line
            guard SQLiteConnection.isComplete(pending) else { return nil }
            return take()
        }
        guard ShellSQL.statement(in: line) != nil, !SQLiteConnection.isComplete(line) else { return line }
        pending = line
        return nil
    }

    /// What was gathered, and the collector emptied: at end of input sqlite3 runs what it
    /// holds, complete or not (so a script's last statement needs no `;`).
    mutating func take() -> String? {
        defer { pending = "" }
        return pending.allSatisfy(\.isWhitespace) ? nil : pending
    }

    /// Ctrl-C at the continuation prompt: the statement is dropped, as in sqlite3.
    mutating func discard() { pending = "" }
}

/// The interactive shell's collector, shared with the completer (which runs on the line
/// editor's thread and reads the statement's earlier lines).
final class SharedStatementCollector: Sendable {
    private let collector = Mutex(StatementCollector())

    var pending: String { collector.withLock { $0.pending } }
    var isCollecting: Bool { collector.withLock { $0.isCollecting } }
    func add(_ line: String) -> String? { collector.withLock { $0.add(line) } }
    func take() -> String? { collector.withLock { $0.take() } }
    func discard() { collector.withLock { $0.discard() } }
}
