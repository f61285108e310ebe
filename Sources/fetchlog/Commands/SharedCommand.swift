import ArgumentParser
import FetchlogCore
import FetchlogSources
import Foundation

/// `--format`, taken by every command that prints results.
struct OutputOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Output: \(OutputMode.choices) (rows on stdout, warnings on stderr).", valueName: "mode"))
    var format: String?

    func mode() throws -> OutputMode? {
        guard let format else { return nil }
        guard let mode = OutputMode(rawValue: format) else { throw ValidationError("--format takes \(OutputMode.choices), not '\(format)'") }
        return mode
    }

    /// A bad --format is a usage error before a store is opened (or created).
    func validate() throws { _ = try mode() }
}

/// What a command shared by the shell and the command line reads: the store's maintenance
/// door, the clock, and the shell's session when it runs inside one (the command line
/// opens the live store on demand instead).
struct CommandContext {
    let maintenance: StoreMaintenance
    let clock: any WallClock
    let session: Session?
    /// Where a command that streams (`log export` to stdout) writes.
    let write: (String) -> Void
    /// How what it writes is rendered: the `--format` chosen (the shell's mode), the width.
    /// A command that streams rows (`sql`) renders each as it comes.
    var renderer = Renderer()

    /// The live state: the shell's current (or pinned) snapshot, else the store opened
    /// from its checkpoint and tail.
    func liveState() async throws -> LogState {
        if let session { return session.state }
        return try await openStore(maintenance, clock: clock).snapshot.state
    }

    /// The state as of `seq` (time travel, the store's: its checkpoint and the tail up to
    /// `seq` when it can), refusing a seq past the end.
    func state(at seq: UInt64?) async throws -> LogState {
        guard let seq else { return try await liveState() }
        try maintenance.checkSeq(seq)
        if let store = session?.store { return try store.state(asOf: seq) }
        return try await openStore(maintenance, clock: clock).state(asOf: seq)
    }
}

/// The store over the log `maintenance` opened, folded from its checkpoint and tail (a
/// checkpoint is saved when the tail was long), with `clock`; it fetches as `fetching`
/// says, and not at all when nil (no HTTP client is made).
func openStore(_ maintenance: StoreMaintenance, clock: any WallClock, fetching: FetchConfiguration? = nil) async throws -> Store {
    var configuration = Store.Configuration()
    configuration.clock = clock
    if let fetching { configuration.fetching = fetching } else { configuration.fetches = false }
    return try await Store.open(maintenance, configuration: configuration)
}

/// `reportingErrors` for what must be awaited (opening a store folds its state and may
/// save a checkpoint): the same messages and exit statuses.
func reportingErrors<R>(_ body: () async throws -> R) async throws -> R {
    do { return try await body() } catch { return try reportingErrors { () throws -> R in throw error } }
}

/// A command with one implementation for both doors: `fetchlog log tail -n 2` and the
/// shell's `log tail -n 2` parse with the same ArgumentParser type and run the same
/// `output(_:)`, so their grammar and answers cannot drift apart.
protocol SharedCommand: AsyncParsableCommand {
    var storeOptions: StoreOptions { get }
    var outputOptions: OutputOptions { get set }
    /// The old `--json` flag of `status` and `log stats`, meaning `--format json`.
    var legacyJSON: Bool { get }
    func output(_ context: CommandContext) async throws -> Output?
}

extension SharedCommand {
    var legacyJSON: Bool { false }
}

extension SharedCommand {
    /// The command-line door, taking the old `--json` flag as `--format json`.
    func runOnCommandLine(legacyJSON: Bool) async throws {
        var command = self
        if legacyJSON && command.outputOptions.format == nil { command.outputOptions.format = "json" }
        try await command.runOnCommandLine()
    }

    /// The command-line door: open the store, run, render in `--format`, map errors to
    /// the documented exit statuses.
    func runOnCommandLine() async throws {
        // Settings are checked before the store is opened (and so perhaps created).
        let clock = try reportingErrors { try cliClock() }
        let maintenance = try reportingErrors { try storeOptions.open() }
        let renderer = try commandLineRenderer()
        try await renderOnCommandLine { buffer in
            try await output(CommandContext(maintenance: maintenance, clock: clock, session: nil, write: { buffer.write($0) }, renderer: renderer))
        }
    }

    /// The renderer of the command line: `--format` (a table unless given), the terminal's
    /// width, cells cut to it only on a terminal.
    func commandLineRenderer() throws -> Renderer {
        var renderer = Renderer()
        renderer.mode = try outputOptions.mode() ?? .table
        renderer.width = terminalWidth()
        renderer.fitsWidth = isatty(STDOUT_FILENO) == 1
        return renderer
    }

    /// Renders what `produce` returns in `--format` on stdout and maps its errors to the
    /// documented exit statuses (also for a command that must not open the store).
    func renderOnCommandLine(_ produce: (OutputBuffer) async throws -> Output?) async throws {
        let renderer = try commandLineRenderer()
        let buffer = OutputBuffer()
        do {
            let output = try await produce(buffer)
            if let output { buffer.write(renderer.render(output)) }
            buffer.flush()
        } catch let error as CommandError {
            if let output = error.output { buffer.write(renderer.render(output)) }
            buffer.flush()
            printError(error.message)
            throw ExitCode(error.status)
        } catch let error as StoreError {
            buffer.flush()
            _ = try reportingErrors { throw error }
        } catch let error as MaintenanceError {
            buffer.flush()
            _ = try reportingErrors { throw error }
        }
    }
}

extension Session {
    /// The shell's door to a shared command: `words` are what follows the command's name.
    /// `--store` is refused (the shell is on one store).
    func runShared<C: ParsableCommand>(_ root: C.Type, _ words: [String], usage: String,
                                       subcommandUsage: [String: String] = [:]) async throws -> Output? {
        let context = CommandContext(maintenance: store.maintenance, clock: clock, session: self, write: { self.emit($0) })
        return try await SharedDoor.run(root, words, usage: usage, subcommandUsage: subcommandUsage, context: context,
                                        renderer: activeRenderer, emit: { self.emit($0) })
    }
}

/// Parsing and running a shared command from the words of a shell line (the shell, and
/// `fetchlog query "log …"`, which needs no state).
enum SharedDoor {
    static func run<C: ParsableCommand>(_ root: C.Type, _ words: [String], usage: String, subcommandUsage: [String: String],
                                        context: CommandContext, renderer: Renderer, emit: (String) -> Void) async throws -> Output? {
        let subcommands = root.configuration.subcommands.map { $0._commandName }
        if let first = words.first, !subcommands.isEmpty, root.configuration.defaultSubcommand == nil, !first.hasPrefix("-"), !subcommands.contains(first) {
            throw CommandError.usage("\(root._commandName) has no '\(first)'\(Suggest.didYouMean(first, subcommands))\nusage: \(usage)")
        }
        let parsed: ParsableCommand
        do { parsed = try root.parseAsRoot(words) } catch {
            let full = root.fullMessage(for: error)
            if root.exitCode(for: error) == .success { return .message(full, json: .object([("help", .string(full))])) }
            // The usage of the subcommand that failed (`log tail …`), when it has its own.
            let own = words.first.flatMap { subcommandUsage[$0] }
            throw CommandError.usage(root.message(for: error) + "\nusage: \(own ?? usage)")
        }
        guard let command = parsed as? any SharedCommand else {
            // `--help` (ArgumentParser answers it with a help command of its own).
            let sub = root.configuration.subcommands.first { $0._commandName == words.first }
            let help = sub.map { root.helpMessage(for: $0) } ?? root.helpMessage()
            return .message(help, json: .object([("help", .string(help))]))
        }
        if command.storeOptions.store != nil {
            throw CommandError.usage("--store belongs on the command line: this shell is on \(context.maintenance.path)")
        }
        let chosen: OutputMode?
        do { chosen = command.legacyJSON ? .json : try command.outputOptions.mode() } catch {
            throw CommandError.usage("--format takes \(OutputMode.choices)\nusage: \(usage)")
        }
        var context = context
        context.renderer = renderer
        guard let chosen else { return try await command.output(context) }
        // --format on one shell command: render it here, in that mode.
        var renderer = renderer
        renderer.mode = chosen
        context.renderer = renderer
        do {
            if let output = try await command.output(context) { emit(renderer.render(output)) }
        } catch var error as CommandError {
            if let output = error.output { emit(renderer.render(output)) }
            error.output = nil
            throw error
        }
        return nil
    }
}

