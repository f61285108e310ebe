import ArgumentParser
import CEditLine
import FetchlogCore
import FetchlogSources
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C cancels the running command (a fetch, a replay, an export) or the line being
/// typed, never the shell — as in psql and sqlite3.
///
/// The process never dies of SIGINT: a handler (CEditLine's `fl_signal_to_pipe`) writes the
/// signal's number to a pipe, and a thread of its own reads the pipe and calls whoever
/// handles interrupts at the moment (`route(to:)`). Doing the work on that thread, not in
/// the handler, is what lets it take locks, cancel tasks and wake the line editor.
///
/// - One-shot commands (`fetchlog fetch …`, `fetchlog query "…"`, every subcommand) run in
///   a task that the first Ctrl-C cancels: the work stops at its next cancellation point
///   (a fetch abandons its request and records nothing for it, a replay or an export stops
///   between events), the command says what was recorded on stderr, and the process exits
///   130 (128 + SIGINT, what a shell reports for a command ended by Ctrl-C). A second
///   Ctrl-C, for work that does not stop, exits 130 at once: every LMDB commit is atomic,
///   so the log is consistent whenever the process ends.
/// - The shell (`ShellInterrupts`) takes Ctrl-C over while it runs.
enum Interrupts {
    typealias Handler = @Sendable (Int32) -> Void

    private struct Routing {
        var handler: Handler?
        var installed = false
    }

    private static let routing = Mutex(Routing())

    /// Makes `handler` receive SIGINT and SIGCONT from now on (installing the signal
    /// handling the first time); returns the handler it replaces, to be put back later.
    @discardableResult
    static func route(to handler: Handler?) -> Handler? {
        routing.withLock { routing in
            if !routing.installed {
                routing.installed = install()
            }
            let previous = routing.handler
            routing.handler = handler
            return previous
        }
    }

    private static func install() -> Bool {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return false }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // A burst of signals must never block the handler: a full pipe already says "signal".
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n < 0 && errno == EINTR { continue }
                guard n == 1 else { return }
                let signal = Int32(byte)
                if let current = Interrupts.routing.withLock({ $0.handler }) {
                    current(signal)
                } else if signal == SIGINT {
                    // Nobody handles it: what SIGINT would have done, with the shell's status.
                    fflush(nil)
                    _exit(ExitStatus.interrupted)
                }
            }
        }
        thread.name = "fetchlog.signals"
        thread.start()
        return fl_signal_to_pipe_install(SIGINT, writeEnd) == 0 && fl_signal_to_pipe_install(SIGCONT, writeEnd) == 0
    }
}

extension FetchlogCommand {
    /// ArgumentParser's `main(_:)` — parse, run, exit with the error's status — with the
    /// command run in a task that Ctrl-C cancels (see `Interrupts`). After a Ctrl-C the
    /// exit status is 130, however the command reported its cancellation.
    static func mainCancellingOnInterrupt(_ arguments: [String]) async {
        do {
            let command = UncheckedBox(try await asyncParseAsRoot(arguments))
            // Routed before the command starts: a command that takes Ctrl-C over (the shell's
            // `ShellInterrupts`) routes it to itself when it starts, and routing after the
            // task was made could undo that — then Ctrl-C cancelled only this outer task, which
            // the shell's own command task does not inherit, and the shell went on (seen under
            // load: a script's fetch ran to its read timeout after Ctrl-C).
            let interrupt = OneShotInterrupt()
            Interrupts.route(to: { interrupt.handle($0) })
            let task = Task {
                // Every fetch that finishes is noted, so a cancelled one lists them all.
                try await FetchLedger.collecting {
                    var parsed = command.value
                    if var asyncCommand = parsed as? AsyncParsableCommand {
                        try await asyncCommand.run()
                    } else {
                        try parsed.run()
                    }
                }
            }
            interrupt.setCancel { task.cancel() }
            let result = await task.result
            if interrupt.happened {
                // A command that left its cancellation error to the caller (ReplayCancelled,
                // ExportCancelled, FetchCancelled) still says what happened.
                if case .failure(let error) = result, !(error is ExitCode) { printError("\(error)") }
                exit(withError: ExitCode(ExitStatus.interrupted))
            }
            try result.get()
        } catch {
            // Help and version go to stdout as ArgumentParser prints them; an error quotes
            // what was typed, so its control characters are shown, not sent to the terminal.
            let code = exitCode(for: error)
            guard code != .success else { exit(withError: error) }
            let message = fullMessage(for: error)
            if !message.isEmpty { writeErr(Data((visibleControls(message) + "\n").utf8)) }
            Foundation.exit(code.rawValue)
        }
    }
}

/// Ctrl-C for a one-shot command: the first cancels its task, the second ends the process.
final class OneShotInterrupt: Sendable {
    private struct State {
        var count = 0
        /// Set once the command's task exists.
        var cancel: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    init() {}

    var happened: Bool { state.withLock { $0.count > 0 } }

    /// What the first Ctrl-C does; a Ctrl-C that came before it is applied now.
    func setCancel(_ cancel: @escaping @Sendable () -> Void) {
        let early = state.withLock { state -> Bool in
            state.cancel = cancel
            return state.count > 0
        }
        if early { cancel() }
    }

    func handle(_ signal: Int32) {
        guard signal == SIGINT else { return }
        let (count, cancel) = state.withLock { state -> (Int, (@Sendable () -> Void)?) in
            state.count += 1
            return (state.count, state.cancel)
        }
        if count == 1 {
            // The terminal echoed "^C" where the cursor was: the cancellation's report
            // starts on a line of its own.
            if isatty(STDERR_FILENO) == 1 { writeErr(Data("\n".utf8)) }
            cancel?()
        } else {
            fflush(nil)
            _exit(ExitStatus.interrupted)
        }
    }
}

/// Ctrl-C in the shell. While a command runs (in a child task, see `run`), it cancels that
/// task: the command stops at its next cancellation point and prints what happened, then
/// the prompt comes back; more Ctrl-Cs meanwhile change nothing. While a line is typed, it
/// discards the line (`LineEditor.cancelLine`). In a script (no editor), Ctrl-C ends the
/// script: the running command is cancelled and `interrupted` tells the loop to stop with
/// status 130; between commands the process exits 130 at once.
///
/// Takes Ctrl-C over from the one-shot handling when made, gives it back when released.
final class ShellInterrupts: Sendable {
    private struct Running {
        /// Cancels the command running now.
        var cancelCommand: (@Sendable () -> Void)?
        var cancelled = false
    }

    private let editor: LineEditor?
    private let running = Mutex(Running())
    /// The handler before this one, set once `init` has routed Ctrl-C here.
    private let previous = Mutex<Interrupts.Handler?>(nil)

    init(editor: LineEditor?) {
        self.editor = editor
        let before = Interrupts.route(to: { [weak self] in self?.handle($0) })
        previous.withLock { $0 = before }
    }

    deinit { Interrupts.route(to: previous.withLock { $0 }) }

    /// Whether Ctrl-C came while the last command ran.
    var interrupted: Bool { running.withLock { $0.cancelled } }

    /// Runs one command in a child task that Ctrl-C cancels; returns what it returns.
    @discardableResult
    func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T {
        let task = Task { await FetchLedger.collecting { await body() } }
        running.withLock { running in
            running.cancelled = false
            running.cancelCommand = { task.cancel() }
        }
        let result = await task.value
        running.withLock { $0.cancelCommand = nil }
        return result
    }

    private func handle(_ signal: Int32) {
        if signal == SIGCONT {
            editor?.resumed()
            return
        }
        guard signal == SIGINT else { return }
        // (whether a command runs, its cancel when this is the first Ctrl-C while it does)
        let (commandRuns, cancel) = running.withLock { running -> (Bool, (@Sendable () -> Void)?) in
            guard let cancel = running.cancelCommand else { return (false, nil) }
            let first = !running.cancelled
            running.cancelled = true
            return (true, first ? cancel : nil)
        }
        if commandRuns {
            guard let cancel else { return }
            // In cooked mode the terminal echoed "^C" after the command's output: what the
            // command says next starts on a line of its own.
            if editor != nil { fl_stdout_write("\n") }
            cancel()
            return
        }
        if let editor {
            // At the prompt: discard the line. (Between two commands there is nothing to do.)
            editor.cancelLine()
        } else {
            // A script waiting for its next line: it ends here, as a script does on Ctrl-C.
            fflush(nil)
            _exit(ExitStatus.interrupted)
        }
    }
}
