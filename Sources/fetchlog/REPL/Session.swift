import ArgumentParser
import FetchlogCore
import FetchlogReplication
import FetchlogShell
import FetchlogSQL
import FetchlogSources
import Foundation

/// A command that could not run: one line for the user and the exit status it carries
/// in script mode (1: it failed, e.g. an id not held or a seq past the end; 64: the
/// command itself is malformed or unknown).
/// A command that failed (FetchlogShell's `ShellError`, which sources' commands throw too).
typealias CommandError = ShellError

/// The shell's argument grammar (FetchlogShell's, shared with sources' commands).
typealias Arguments = ShellArguments

/// One REPL (or script, or `query`) session over an open store: the command interpreter.
/// It holds no state of its own beyond presentation (mode, output file, timer); every
/// answer comes from a store snapshot.
///
/// `@unchecked Sendable`: one shell loop drives it, one command at a time; concurrent work (background fetches, a fetch's parallel downloads) reaches it only through the store and `notify`, which is set before the first command and then only read, and which writes to stderr or above the prompt, touching no other member.
final class Session: ShellContext, @unchecked Sendable {
    let store: Store
    let policy: OfflineFirst
    let clock: any WallClock
    /// The engine's commands and those of the store's sources.
    let commands: [ShellCommand]
    /// The shell's half of the registry: the sources' commands and `fetch` grammar.
    let shell: ShellRegistry
    var renderer = Renderer()
    var timer = false
    private var outputHandle: FileHandle?
    private var outputPath: String?
    /// The state commands read: the live snapshot, or a past one inside `at SEQ`.
    private var pinned: LogState?
    /// Where warnings and progress go (the line editor prints them above the prompt).
    var notify: (String) -> Void = { writeErr(Data((visibleControls($0) + "\n").utf8)) }
    /// One-shot and script runs finish each command's background revalidation before
    /// the next, and print the freshness line after it, so it says how that ended.
    var finishBackgroundWork = false
    private var pendingWarnings: [(Resource, String)] = []

    /// The shell over `store` (opened with its sources and `clock`, fetching as it will);
    /// `shell` brings those sources' commands and `fetch` grammar (the command line's by default).
    init(store: Store, clock: any WallClock, shell: ShellRegistry = Engine.shell) {
        self.store = store
        self.clock = clock
        self.shell = shell
        commands = CommandTable.table(for: shell)
        policy = OfflineFirst(store: store, clock: clock)
        renderer.width = terminalWidth()
        renderer.fitsWidth = isatty(STDOUT_FILENO) == 1
        pager = isatty(STDOUT_FILENO) == 1 && isatty(STDIN_FILENO) == 1
    }

    /// The renderer for what goes out now: cells are cut to the window only when they go
    /// to the terminal, never into a `.output` file.
    var activeRenderer: Renderer {
        var active = renderer
        active.fitsWidth = renderer.fitsWidth && outputHandle == nil
        return active
    }

    /// Long results on a terminal go through `$PAGER` (`.pager off` turns it off).
    var pager = false

    var state: LogState { pinned ?? store.snapshot.state }
    /// The store's maintenance door (`log …`, time travel's bounds).
    var maintenance: StoreMaintenance { store.maintenance }
    var isPinned: Bool { pinned != nil }
    /// The seq `at SEQ …` pins, while it runs.
    var pinnedSeq: UInt64? { pinned?.seq }


    /// Runs one command line, writing its output. Returns the error, if any, after
    /// printing it as one line.
    @discardableResult
    func execute(_ line: String) async -> CommandError? {
        // SQL goes to the engine as typed: the shell's tokenizer would read its quotes.
        if let sql = ShellSQL.statement(in: line) {
            return await perform("sql") { try await self.runSQL(sql.text, at: sql.seq) }
        }
        var words: [String]
        do { words = try Tokenizer.words(line) } catch {
            return report(.usage("\(error)"))
        }
        guard var name = words.first else { return nil }
        // `--format MODE` on any one command: that command alone prints in MODE.
        var restoreMode: OutputMode?
        defer { if let restoreMode { renderer.mode = restoreMode } }
        if let at = words.firstIndex(where: { $0 == "--format" || $0.hasPrefix("--format=") }), at > 0 {
            let value = words[at] == "--format" ? (at + 1 < words.count ? words[at + 1] : "") : String(words[at].dropFirst("--format=".count))
            guard let mode = OutputMode(rawValue: value) else {
                return report(.usage("--format takes \(OutputMode.choices), not '\(value)'"))
            }
            words.removeSubrange(at ..< (words[at] == "--format" ? min(at + 2, words.count) : at + 1))
            restoreMode = renderer.mode
            renderer.mode = mode
            name = words[0]
        }
        let args = Array(words.dropFirst())
        return await perform(name) { [name] in try await self.run(name, args) }
    }

    /// Runs one command's `body`: prints its output, the freshness and sync lines under it,
    /// its time under `.timer on`, or its error as one line (returned).
    private func perform(_ name: String, _ body: () async throws -> Output?) async -> CommandError? {
        let started = ContinuousClock.now
        do {
            let output = try await body()
            if let output { emit(activeRenderer.render(output)) }
            // The freshness line comes after the result; one-shot and script runs first
            // finish the revalidation it started, so the line says how that ended.
            if finishBackgroundWork { await policy.waitForBackgroundWork() }
            for (resource, name) in pendingWarnings { printFreshness(resource, name) }
            // Under every answer but help's while writes wait for the stream.
            if name != "help", output != nil || !pendingWarnings.isEmpty { printPendingSync() }
            pendingWarnings = []
            if timer {
                let elapsed = ContinuousClock.now - started
                let line = String(format: "time: %.3f s", Format.seconds(elapsed))
                // A note, not a row: on stderr when stdout carries data for programs.
                if renderer.mode.isMachine { notify(line) } else { emit(line + "\n") }
            }
            return nil
        } catch let error as CommandError {
            pendingWarnings = []
            if let output = error.output { emit(activeRenderer.render(output)) }
            return report(error)
        } catch {
            return report(ExitStatus.of(error))
        }
    }

    private func report(_ error: CommandError) -> CommandError {
        writeErr(Data("error: \(visibleControls(error.message))\n".utf8))
        return error
    }

    /// Writes command output to the terminal or the `.output` file.
    func emit(_ text: String) {
        if let outputHandle { writeAll(Data(text.utf8), to: outputHandle); return }
        Self.show(text, pager: pager)
    }

    /// Writes `text` to stdout, through `$PAGER` when `pager` and it is longer than the window.
    static func show(_ text: String, pager: Bool) {
        if pager, let rows = terminalHeight(), text.reduce(0, { $0 + ($1 == "\n" ? 1 : 0) }) >= rows - 1, Pager.show(text) { return }
        writeOut(Data(text.utf8))
    }

    /// The freshness line under a result: `⚠ offline: connection refused — shows last updated 2h 14m ago`.
    func freshnessLine(_ resource: Resource, _ name: String) {
        // Inside `at SEQ` the answer is the past's: the live freshness is not its news.
        guard !isPinned else { return }
        pendingWarnings.append((resource, name))
    }

    /// Under a view's result in a replicated store with writes waiting for the stream:
    /// `⚠ pending sync: 1 event in this store's outbox, not yet in stream FETCHLOG — …`.
    private func printPendingSync() {
        let pending = store.snapshot.pendingSync
        guard !isPinned, pending > 0 else { return }
        let stream = Replication.route(of: maintenance)?.attachment.stream ?? "its stream"
        let line = "⚠ pending sync: \(pending) event\(pending == 1 ? "" : "s") in this store's outbox, not yet in stream \(stream) "
            + "(shown here; `fetchlog follow --once` publishes \(pending == 1 ? "it" : "them") when the stream is reachable)"
        if renderer.mode.isMachine || outputHandle != nil { notify(line) } else { emit(line + "\n") }
    }

    private func printFreshness(_ resource: Resource, _ name: String) {
        guard !isPinned, let warning = policy.warning(for: resource, named: name) else { return }
        if renderer.mode.isMachine || outputHandle != nil { notify("⚠ \(warning)") } else { emit("⚠ \(warning)\n") }
    }

    /// Opens a view's primary resource: never waits when data is held; with nothing held,
    /// waits for the fetch so the command has something to show.
    func open(_ resource: Resource, _ name: String? = nil) async throws {
        guard !isPinned else { return }
        let opened = try await policy.open(resource)
        guard opened.freshness.level == .missing else { return }
        await policy.waitForBackgroundWork()
        // Ctrl-C while waiting for the first data: say that, not "fetching failed".
        if Task.isCancelled { throw CommandError(message: "cancelled: \(name ?? resource.description) is not held yet; nothing was recorded for it", status: ExitStatus.interrupted) }
        let after = policy.freshness(of: resource)
        if let name, after.level == .missing {
            let reason = store.fetchConfiguration?.offline == true ? "--offline forbids the network" : (after.status.lastError ?? "nothing came back")
            throw CommandError.failed("no \(name) held yet, and fetching failed: \(reason). Check the network or --upstream (or drop --offline), then try again.")
        }
    }

    // MARK: Dispatch

    func run(_ name: String, _ args: [String]) async throws -> Output? {
        if name.hasPrefix(".") { return try await dotCommand(name, args) }
        // `path SOURCE RESOURCE A B` on a source defined by a manifest is the generic path,
        // whatever plug-in's `path` the table holds (one takes two items of its own).
        if name == "path", args.count == 4, state.manifests[args[0]] != nil || state.plugin(args[0]) is ManifestSource {
            return try await runShared(PathCommand.self, args, usage: PathCommand.usage)
        }
        guard let spec = CommandTable.find(name, in: commands) else {
            throw CommandError.usage("unknown command '\(name)'\(Suggest.didYouMean(name, CommandTable.names(in: commands))); type help for the list")
        }
        do { return try await spec.run(self, args) } catch let error as CommandError where error.status == 64 && !error.message.contains("usage:") {
            // Every usage error ends with the command's own usage line.
            var withUsage = CommandError.usage(error.message + "\nusage: \(spec.usage)")
            withUsage.output = error.output
            throw withUsage
        }
    }

    /// One SQL statement (`SELECT …`, `CREATE VIEW …`), through `fetchlog sql`'s command:
    /// the same rows, errors and `at SEQ` past.
    func runSQL(_ statement: String, at seq: UInt64? = nil) async throws -> Output? {
        guard let seq else { return try await runShared(SQLCommand.self, [statement], usage: SQLCommand.usage) }
        return try await pinned(at: seq) { try await runShared(SQLCommand.self, [statement], usage: SQLCommand.usage) }
    }

    private func dotCommand(_ name: String, _ args: [String]) async throws -> Output? {
        switch name {
        case ".tables":
            // As sqlite3's: the names in columns; in json, the names.
            guard args.count <= 1 else { throw CommandError.usage("usage: .tables [PATTERN]") }
            var names = SQLEngine.tableNames(in: state).sorted()
            if let pattern = args.first { names = names.filter { SQLLike.matches($0, pattern) } }
            return .message(SQLLike.columns(names), json: .array(names.map(JSONValue.string)))
        case ".schema":
            guard args.count <= 1 else { throw CommandError.usage("usage: .schema [TABLE]") }
            return try await runShared(SQLCommand.self, ["--schema"] + args, usage: SQLCommand.usage)
        case ".mode":
            guard args.count <= 1 else { throw CommandError.usage("usage: .mode \(OutputMode.allCases.map(\.rawValue).joined(separator: "|"))") }
            guard let value = args.first else {
                return .message("mode \(renderer.mode.rawValue)", json: .object([("mode", .string(renderer.mode.rawValue))]))
            }
            guard let mode = OutputMode(rawValue: value) else {
                throw CommandError.usage(".mode takes \(OutputMode.choices), not '\(value)'\(Suggest.didYouMean(value, OutputMode.allCases.map(\.rawValue)))")
            }
            renderer.mode = mode
            return nil
        case ".output":
            guard args.count <= 1 else { throw CommandError.usage("usage: .output FILE|stdout") }
            try? outputHandle?.close()
            outputHandle = nil
            outputPath = nil
            guard let path = args.first, path != "stdout", path != "-" else { return nil }
            // As sqlite3's .output: the file is started afresh and written as results come.
            // open(2), not FileManager.createFile, which replaces the path by a rename (and
            // so would turn /dev/null into a regular file); devices and pipes are written through.
            let fd = Foundation.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw CommandError.failed("cannot write \(path): \(SafeFile.reason(errno))") }
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            outputHandle = handle
            outputPath = path
            return nil
        case ".timer", ".pager":
            guard args.count == 1, ["on", "off"].contains(args[0]) else { throw CommandError.usage("\(name) takes on or off") }
            if name == ".timer" { timer = args[0] == "on" } else { pager = args[0] == "on" }
            return nil
        default:
            throw CommandError.usage("unknown command '\(name)'\(Suggest.didYouMean(name, CommandTable.dotCommands.map { String($0.0.split(separator: " ")[0]) })); type help for the list")
        }
    }

    /// Runs `body` against the state as of `seq` (time travel).
    func pinned<T>(at seq: UInt64, _ body: () async throws -> T) async throws -> T {
        try maintenance.checkSeq(seq)
        let previous = pinned
        pinned = try store.state(asOf: seq)
        defer { pinned = previous }
        if let state = pinned, !state.compactedBodies.isEmpty {
            let notice = CompactedBodiesNotice(view: "the shell", seq: seq, resources: state.compactedBodies.sorted { $0.key < $1.key }.map { (key: $0.key, seq: $0.value) })
            notify("warning: \(notice.description); answers lack them (--at holds every body from seq \(try maintenance.compactionHorizon()) on)")
        }
        return try await body()
    }

    func close() {
        try? outputHandle?.close()
    }
}
