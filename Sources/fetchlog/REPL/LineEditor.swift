import CEditLine
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The REPL's line editor: libedit's native API (histedit.h) in emacs mode, with history
/// kept in a file, tab completion of the word at the cursor, and messages printed above
/// the line being typed.
///
/// Design
/// - Native `el_*` / `history` API rather than the readline layer: it keeps all state per
///   instance (the readline layer is one set of globals), lets a completion command be
///   bound to TAB with `EL_ADDFN` + `EL_BIND`, and lets us replace the character reader
///   (`EL_GETCFN`), which is what makes asynchronous printing safe (below).
/// - C callbacks (prompt, reader, completion) find this object through `EL_CLIENTDATA`,
///   an unretained pointer to `self` (the editor never outlives `self`: `el_end` is in deinit).
/// - `printAbove` from another thread never touches libedit. While `readLine` is blocked it
///   queues the message and writes a byte to a self-pipe; the reader (running inside
///   `el_gets` on the reading thread) polls stdin and that pipe, and on a wake-up clears the
///   input line(s) (`\r`, cursor up, `ESC[J`), prints the messages, and has libedit redraw
///   prompt, buffer and cursor from scratch (`EL_REFRESH`). So all terminal output happens
///   on the reading thread, between keystrokes, and libedit's idea of the screen stays right.
///   When no line is being read the message is printed directly.
/// - The ambiguous-completion list is printed the same way, followed by `EL_REFRESH`.
///
/// Limitations: widths are counted in Unicode scalars (double-width characters in a line
/// that wraps make the clear-above-the-line step miss a row); a message that arrives in the
/// middle of a multi-byte character or escape sequence waits for the next key boundary the
/// reader sees; `~/.editrc` is not read; a window resize is picked up at the next line.
/// When stdin or stdout is not a terminal, libedit reads plain lines (no prompt, no
/// editing) and `printAbove` prints directly.
///
/// Signals: libedit's own handling (`EL_SIGNAL`) is off — on SIGINT it puts the terminal
/// back in cooked mode and re-sends the signal to the whole process group. The shell
/// observes Ctrl-C itself (Interrupts.swift) and, while a line is being typed, calls
/// `cancelLine()`: like a queued message it wakes the reader through the self-pipe, the
/// reader hands libedit a ^C character, which is bound to `fetchlog-cancel-line`: that
/// prints "^C" after the text typed, and ends `el_gets` with nothing read, so `readLine`
/// answers "" and the shell shows a fresh prompt (as bash and psql do). After Ctrl-Z and
/// `fg` (SIGCONT), `resumed()` has the reader put the terminal back in raw mode and redraw.
///
/// `@unchecked Sendable`: libedit's state, `lineCancelled` and `lastAmbiguousTab` are
/// touched only by the reading thread; what other threads ask for (queued messages, a
/// cancel, a resume) is in the `Mutex` `shared`, and the self-pipe wakes the reader.
final class LineEditor: @unchecked Sendable {
    private let editLine: OpaquePointer
    private let historyHandle: OpaquePointer
    /// The prompt, and the one that asks for the next line of an SQL statement.
    private let promptCStrings: (first: UnsafeMutablePointer<CChar>, continuation: UnsafeMutablePointer<CChar>)
    private let promptWidths: (first: Int, continuation: Int)
    /// Whether the line being read continues a statement (reading thread only).
    private var continuing = false
    private var promptCString: UnsafeMutablePointer<CChar> { continuing ? promptCStrings.continuation : promptCStrings.first }
    private var promptWidth: Int { continuing ? promptWidths.continuation : promptWidths.first }
    /// Whether the last `readLine` ended by Ctrl-C (it answered ""), not by an empty line.
    /// Read by the shell loop after `readLine` returns.
    private(set) var lastLineCancelled = false
    private let historyPath: String?
    private let completer: (String) -> [String]
    /// Whether libedit edits (both ends are terminals); otherwise it only reads lines.
    private let editing: Bool
    /// Self-pipe that wakes the reader when a message is queued.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    private struct Shared {
        var reading = false
        var pending: [String] = []
        /// Ctrl-C came while the line was being typed.
        var cancelRequested = false
        /// The process was continued (SIGCONT) while the line was being typed.
        var resumeRequested = false
    }

    private let shared = Mutex(Shared())
    /// Set on the reading thread when the line being typed was cancelled (`el_gets` then
    /// returns nothing, as at end of input).
    private var lineCancelled = false
    /// The line (up to the cursor, and all of it) at the last TAB that could not make
    /// progress: a second TAB on the same line lists the candidates, as in bash.
    private var lastAmbiguousTab: String?

    /// historyPath: file to load at start and save to (mode 0600, parent dirs created); nil = no history file.
    /// completer: given the whole line up to the cursor, returns the candidate completions of the word at the cursor
    /// (full words; the editor inserts the unique one or their common prefix and lists them when ambiguous, like bash).
    /// continuationPrompt: the prompt of `readLine(continuing: true)` (sqlite3's `   ...> `).
    init(prompt: String, continuationPrompt: String = "", historyPath: String?, completer: @escaping (String) -> [String]) {
        _ = fl_ensure_utf8_ctype()
        self.historyPath = historyPath
        self.completer = completer
        promptCStrings = (strdup(prompt)!, strdup(continuationPrompt)!)
        promptWidths = (prompt.unicodeScalars.count, continuationPrompt.unicodeScalars.count)
        editing = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1

        historyHandle = history_init()
        fl_history_setsize(historyHandle, 1000)
        fl_history_setunique(historyHandle, 1)
        if let historyPath, FileManager.default.fileExists(atPath: historyPath) {
            _ = fl_history_load(historyHandle, historyPath)
        }

        var fds: [Int32] = [-1, -1]
        if fl_nonblocking_pipe(&fds) != 0 { fds = [-1, -1] }
        wakeRead = fds[0]
        wakeWrite = fds[1]

        editLine = fl_el_init_stdio(CommandLine.arguments.first ?? "fetchlog")
        fl_el_set_clientdata(editLine, Unmanaged.passUnretained(self).toOpaque())
        fl_el_set_editor(editLine, "emacs")
        fl_el_set_signal(editLine, 0)
        fl_el_set_hist(editLine, historyHandle)
        fl_el_set_prompt(editLine) { el in
            guard let el, let editor = LineEditor.instance(el) else { return LineEditor.emptyPrompt }
            return editor.promptCString
        }
        fl_el_set_getcfn(editLine) { el, out in
            guard let el, let out, let editor = LineEditor.instance(el) else { return -1 }
            return editor.readCharacter(into: out)
        }
        fl_el_addfn(editLine, "fetchlog-complete", "Complete the word at the cursor") { el, _ in
            guard let el, let editor = LineEditor.instance(el) else { return UInt8(CC_ERROR) }
            return editor.complete()
        }
        fl_el_bind(editLine, "^I", "fetchlog-complete")
        fl_el_addfn(editLine, "fetchlog-cancel-line", "Discard the line being typed (Ctrl-C)") { el, _ in
            guard let el, let editor = LineEditor.instance(el) else { return UInt8(CC_ERROR) }
            return editor.cancelTypedLine()
        }
        fl_el_bind(editLine, "^C", "fetchlog-cancel-line")
    }

    deinit {
        saveHistory()
        el_end(editLine)
        history_end(historyHandle)
        free(promptCStrings.first)
        free(promptCStrings.continuation)
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// What the prompt callback answers if it cannot find the editor (libedit never takes NULL).
    nonisolated(unsafe) private static let emptyPrompt: UnsafeMutablePointer<CChar> = strdup("")!

    private static func instance(_ el: OpaquePointer) -> LineEditor? {
        guard let data = fl_el_get_clientdata(el) else { return nil }
        return Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue()
    }

    // MARK: Reading

    /// Reads one line (without its newline); nil at end of input (Ctrl-D on an empty line). Non-empty lines are added to history.
    /// `continuing`: the line continues a statement, under the continuation prompt.
    func readLine(continuing: Bool = false) -> String? {
        self.continuing = continuing
        lastLineCancelled = false
        let early = shared.withLock { shared in
            shared.reading = true
            defer { shared.pending.removeAll() }
            return shared.pending
        }
        if !early.isEmpty { fl_stdout_write(Self.format(early, terminal: editing)) }

        // libedit prints the prompt in cooked mode and makes the terminal raw only at the
        // first key it reads: a key typed in between (as soon as the prompt shows) would be
        // cooked by the kernel (echoed; Ctrl-D turned into a NUL). Raw mode first, then prompt.
        if editing {
            fl_el_prep_term(editLine, 1)
            // Entering raw mode may re-bind the terminal's special characters (VINTR is ^C)
            // to libedit's defaults: ^C must stay the cancel-line command.
            fl_el_bind(editLine, "^C", "fetchlog-cancel-line")
        }
        lineCancelled = false
        var count: Int32 = 0
        let raw = el_gets(editLine, &count)

        let late = shared.withLock { shared in
            shared.reading = false
            shared.cancelRequested = false
            shared.resumeRequested = false
            defer { shared.pending.removeAll() }
            return shared.pending
        }
        defer { if !late.isEmpty { fl_stdout_write(Self.format(late, terminal: false)) } }

        if lineCancelled {
            lineCancelled = false
            lastLineCancelled = true
            return ""
        }
        guard let raw, count > 0 else {
            // Ctrl-D leaves the cursor after the prompt: end that line.
            if editing { fl_stdout_write("\n") }
            return nil
        }
        var bytes = Array(UnsafeRawBufferPointer(start: raw, count: strlen(raw)))
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        let line = String(decoding: bytes, as: UTF8.self)
        lastLineEntered = false
        if !line.allSatisfy(\.isWhitespace) {
            // A line equal to the newest entry is not entered again (unique history).
            let newest = fl_history_newest(historyHandle).map { String(cString: $0) }
            fl_history_enter(historyHandle, line)
            lastLineEntered = newest != line
            // Saved after every line, so history survives a REPL that ends with exit().
            saveHistory()
        }
        return line
    }

    /// Whether the last line read became a history entry (not blank, not the newest again).
    private(set) var lastLineEntered = false

    /// Replaces the newest `count` history entries by `entry`: a statement typed over several
    /// lines is recalled whole, as one entry, by the up arrow.
    func replaceNewestHistory(_ count: Int, with entry: String) {
        guard count > 0 else { return }
        for _ in 0 ..< count { _ = fl_history_delete_newest(historyHandle) }
        fl_history_enter(historyHandle, entry)
        saveHistory()
    }

    /// The `EL_GETCFN` reader: one character from stdin (UTF-8 decoded), meanwhile
    /// printing queued messages whenever the self-pipe says there are some.
    /// Returns 1 (a character), 0 (end of input) or -1 (error), as libedit expects.
    private func readCharacter(into out: UnsafeMutablePointer<wchar_t>) -> Int32 {
        var bytes: [UInt8] = []
        var needed = 1
        while true {
            if bytes.isEmpty { deliverPending() }
            switch takeRequests() {
            case (true, _):
                if editing {
                    // ^C never arrives as a key (the terminal turns it into SIGINT): this
                    // one stands for it, and runs the command bound to it.
                    out.pointee = 0x03
                    return 1
                }
                // Plain line reading: the terminal already dropped the half-typed line.
                lineCancelled = true
                fl_stdout_write("\n")
                return 0
            case (_, true) where editing:
                // The shell that ran while this process was stopped put the terminal in
                // its own mode: raw again (from cooked, or libedit skips it), then redraw.
                fl_el_prep_term(editLine, 0)
                fl_el_prep_term(editLine, 1)
                fl_stdout_write("\r\u{1B}[J")
                fl_el_refresh(editLine)
            default: break
            }
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, wakeRead >= 0 ? 2 : 1, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if wakeRead >= 0, fds[1].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &sink, sink.count) > 0 {}
            }
            guard fds[0].revents != 0 else { continue }
            var byte: UInt8 = 0
            let n = read(STDIN_FILENO, &byte, 1)
            if n == 0 { return 0 }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return -1
            }
            if bytes.isEmpty {
                switch byte {
                case 0x00..<0x80: needed = 1
                case 0xC0..<0xE0: needed = 2
                case 0xE0..<0xF0: needed = 3
                case 0xF0..<0xF8: needed = 4
                default:
                    out.pointee = 0xFFFD
                    return 1
                }
            } else if byte & 0xC0 != 0x80 {
                out.pointee = 0xFFFD  // a broken sequence; the byte that broke it is dropped
                return 1
            }
            bytes.append(byte)
            if bytes.count == needed {
                let scalar = String(decoding: bytes, as: UTF8.self).unicodeScalars.first ?? "\u{FFFD}"
                out.pointee = wchar_t(bitPattern: scalar.value)
                return 1
            }
        }
    }

    // MARK: Ctrl-C and SIGCONT

    /// Ctrl-C: discards the line being typed (the reader is woken to do it on its thread).
    /// Returns false when no line is being read (nothing to discard). Any thread.
    @discardableResult
    func cancelLine() -> Bool {
        wake { $0.cancelRequested = true }
    }

    /// The process was continued after a stop (Ctrl-Z, then `fg`): back to raw mode and
    /// redraw the line. Any thread.
    func resumed() {
        wake { $0.resumeRequested = true }
    }

    /// Runs `request` on the shared state under its lock and wakes the reader, if a line is being read.
    @discardableResult
    private func wake(_ request: (inout Shared) -> Void) -> Bool {
        let woken = shared.withLock { shared in
            guard shared.reading, wakeWrite >= 0 else { return false }
            request(&shared)
            return true
        }
        guard woken else { return false }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        return true
    }

    private func takeRequests() -> (cancel: Bool, resume: Bool) {
        shared.withLock { shared in
            defer { shared.cancelRequested = false; shared.resumeRequested = false }
            return (shared.cancelRequested, shared.resumeRequested)
        }
    }

    /// The `fetchlog-cancel-line` command (bound to ^C): "^C" after the whole text typed,
    /// a new line, and `el_gets` ends as at end of input, with `lineCancelled` set.
    private func cancelTypedLine() -> UInt8 {
        let (beforeCursor, whole) = lineParts()
        let columns = max(1, Int(fl_terminal_columns(STDOUT_FILENO)))
        // From the cursor to just after the last character typed (which may be rows below).
        let cursorRow = (promptWidth + beforeCursor.unicodeScalars.count) / columns
        let end = promptWidth + whole.unicodeScalars.count
        let down = end / columns - cursorRow
        var text = (down > 0 ? "\u{1B}[\(down)B" : "") + "\r"
        if end % columns > 0 { text += "\u{1B}[\(end % columns)C" }
        fl_stdout_write(text + "^C\r\n")
        lineCancelled = true
        return UInt8(CC_EOF)
    }

    // MARK: Printing above the line

    /// Prints `message` (one or more lines) above the line being typed without garbling it: clear the current line, print, then redraw prompt + typed text + cursor. Safe to call from any thread while readLine() is blocked.
    func printAbove(_ message: String) {
        let queued = shared.withLock { shared in
            guard shared.reading && editing && wakeWrite >= 0 else { return false }
            shared.pending.append(message)
            return true
        }
        if queued {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)  // a full pipe already means "wake up"
        } else {
            fl_stdout_write(Self.format([message], terminal: false))
        }
    }

    /// On the reading thread, inside `el_gets`: clear the input, print the queued
    /// messages, redraw prompt + buffer + cursor.
    private func deliverPending() {
        let messages = shared.withLock { shared in
            defer { shared.pending.removeAll() }
            return shared.pending
        }
        guard !messages.isEmpty else { return }
        fl_stdout_write(clearInput() + Self.format(messages, terminal: true))
        fl_el_refresh(editLine)
    }

    /// Escape codes that take the cursor from where libedit left it to the start of the
    /// prompt's row, clearing from there to the end of the screen.
    private func clearInput() -> String {
        let columns = max(1, Int(fl_terminal_columns(STDOUT_FILENO)))
        let beforeCursor = promptWidth + lineParts().beforeCursor.unicodeScalars.count
        let row = beforeCursor / columns
        return "\r" + (row > 0 ? "\u{1B}[\(row)A" : "") + "\u{1B}[J"
    }

    /// The messages as lines; in terminal (raw) mode each newline is "\r\n".
    private static func format(_ messages: [String], terminal: Bool) -> String {
        var text = ""
        for message in messages {
            text += message
            if !message.hasSuffix("\n") { text += "\n" }
        }
        return terminal ? text.replacingOccurrences(of: "\n", with: "\r\n") : text
    }

    // MARK: Completion

    private func lineParts() -> (beforeCursor: String, whole: String) {
        guard let info = el_line(editLine)?.pointee, let buffer = info.buffer else { return ("", "") }
        let cursor = info.cursor.map { $0 - buffer } ?? 0
        let end = info.lastchar.map { $0 - buffer } ?? 0
        let whole = Array(UnsafeRawBufferPointer(start: buffer, count: max(0, end)))
        let before = Array(whole.prefix(max(0, cursor)))
        return (String(decoding: before, as: UTF8.self), String(decoding: whole, as: UTF8.self))
    }

    /// The TAB command: inserts the unique candidate (and a space at the end of the line)
    /// or the candidates' longest common prefix; with nothing to insert it beeps, and a
    /// second TAB on the same line lists the candidates in columns.
    private func complete() -> UInt8 {
        let (beforeCursor, whole) = lineParts()
        let word = beforeCursor.lastIndex(where: { $0 == " " || $0 == "\t" })
            .map { String(beforeCursor[beforeCursor.index(after: $0)...]) } ?? beforeCursor
        var seen = Set<String>()
        let candidates = completer(beforeCursor).filter { seen.insert($0).inserted }
        let state = beforeCursor + "\u{0}" + whole
        let repeated = lastAmbiguousTab == state
        lastAmbiguousTab = nil
        guard !candidates.isEmpty else { return UInt8(CC_REFRESH_BEEP) }

        /// Replaces the word before the cursor (only its missing end when the case matches).
        func replaceWord(with text: String) {
            if text.hasPrefix(word) {
                let insertion = String(text.dropFirst(word.count))
                if !insertion.isEmpty { _ = el_insertstr(editLine, insertion) }
            } else {
                el_deletestr(editLine, Int32(word.unicodeScalars.count))
                _ = el_insertstr(editLine, text)
            }
        }
        if candidates.count == 1, candidates[0].lowercased().hasPrefix(word.lowercased()) {
            replaceWord(with: candidates[0] + (beforeCursor == whole ? " " : ""))
            return UInt8(CC_REFRESH)
        }
        let common = Self.commonPrefix(candidates)
        if common.count > word.count, common.lowercased().hasPrefix(word.lowercased()) {
            replaceWord(with: common)
            return UInt8(CC_REFRESH)
        }
        lastAmbiguousTab = state
        guard repeated, editing else { return UInt8(CC_REFRESH_BEEP) }
        let columns = max(1, Int(fl_terminal_columns(STDOUT_FILENO)))
        fl_stdout_write(belowInput(columns: columns, whole: whole, beforeCursor: beforeCursor)
                        + Self.columnsListing(candidates.sorted(), width: columns))
        fl_el_refresh(editLine)
        return UInt8(CC_REFRESH)
    }

    /// From the cursor to the start of a fresh line below the whole input.
    private func belowInput(columns: Int, whole: String, beforeCursor: String) -> String {
        let cursorRow = (promptWidth + beforeCursor.unicodeScalars.count) / columns
        let lastRow = (promptWidth + whole.unicodeScalars.count) / columns
        return (lastRow > cursorRow ? "\u{1B}[\(lastRow - cursorRow)B" : "") + "\r\n"
    }

    /// Candidates in columns, top to bottom then left to right (as bash lists them), "\r\n" lines.
    static func columnsListing(_ items: [String], width: Int) -> String {
        let cell = (items.map { $0.unicodeScalars.count }.max() ?? 0) + 2
        let perRow = max(1, width / max(1, cell))
        let rows = (items.count + perRow - 1) / perRow
        var text = ""
        for row in 0..<rows {
            var line = ""
            var column = 0
            while row + column * rows < items.count {
                let item = items[row + column * rows]
                line += item + String(repeating: " ", count: max(0, cell - item.unicodeScalars.count))
                column += 1
            }
            while line.hasSuffix(" ") { line.removeLast() }
            text += line + "\r\n"
        }
        return text
    }

    static func commonPrefix(_ words: [String]) -> String {
        guard var prefix = words.first else { return "" }
        for word in words.dropFirst() {
            while !word.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }

    // MARK: History file

    /// Saves the history file (0600). Also called on deinit.
    func saveHistory() {
        guard let historyPath else { return }
        let parent = (historyPath as NSString).deletingLastPathComponent
        if !parent.isEmpty {
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
        }
        // Written beside the file and renamed over it, so a crash never leaves half a history.
        let temporary = historyPath + ".tmp-\(getpid())"
        guard fl_history_save(historyHandle, temporary) >= 0 else {
            unlink(temporary)
            return
        }
        chmod(temporary, 0o600)
        if rename(temporary, historyPath) != 0 { unlink(temporary) }
    }
}

/// The history file: $FETCHLOG_HISTORY, else $XDG_STATE_HOME/fetchlog/history, else ~/.local/state/fetchlog/history.
func defaultHistoryPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    if let path = environment["FETCHLOG_HISTORY"], !path.isEmpty { return path }
    if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/fetchlog/history" }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    return home + "/.local/state/fetchlog/history"
}
