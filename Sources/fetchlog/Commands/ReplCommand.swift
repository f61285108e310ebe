import ArgumentParser
import FetchlogCore
import FetchlogReplication
import FetchlogServe
import FetchlogShell
import FetchlogSQL
import FetchlogSources
import Foundation
import Synchronization
import SampleUpstream

/// Presentation options shared by the REPL entry points.
struct SessionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Output: \(OutputMode.choices) (rows on stdout, warnings on stderr).", valueName: "mode")) var format: String?
    @Flag(help: "In a script, go on after a failing command.") var keepGoing = false

    func mode() throws -> OutputMode? {
        guard let format else { return nil }
        guard let mode = OutputMode(rawValue: format) else { throw ValidationError("--format takes \(OutputMode.choices), not '\(format)'") }
        return mode
    }

    /// A bad --format is a usage error before anything is opened.
    func validate() throws { _ = try mode() }
}

/// `fetchlog` / `fetchlog repl`: the query shell. Interactive on a terminal (line
/// editing, history, completion); with stdin not a terminal, a script: one command a
/// line, no prompt, stopping at the first failing command with its exit status.
struct ReplCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: "The query shell (the default command).",
        discussion: "Type help inside for every command with an example. Exit status in scripts: 1 a command failed, 64 a command is malformed or unknown.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var network: NetworkOptions
    @OptionGroup var sessionOptions: SessionOptions

    func run() async throws {
        let configuration = try reportingErrors { try network.configuration() }
        let maintenance = try reportingErrors { try storeOptions.open() }
        let status = try await runShell(maintenance, network: configuration, options: sessionOptions, banner: nil)
        if status != 0 { throw ExitCode(status) }
    }
}

/// `fetchlog query "<command>"`: runs one REPL command and exits with its status.
struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run one REPL command, e.g. fetchlog query \"shows --page 2\".",
        discussion: "Reads never wait on the network when data is held; a revalidation the command starts is finished before exiting, and a line on stderr says when the answer is stale or offline.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var network: NetworkOptions
    @OptionGroup var sessionOptions: SessionOptions
    @Argument(help: "The command, quoted when it has options of its own: fetchlog query \"shows --page 2\".") var command: [String]

    func run() async throws {
        let configuration = try reportingErrors { try network.configuration() }
        // SQL's words are SQL's: joined as they are (`fetchlog query SELECT 1`), quotes and all;
        // one line, run whole, `;` or not.
        let sql = ShellSQL.statement(in: command.joined(separator: " ")) != nil
        let line = command.count == 1 || sql ? command.joined(separator: " ") : command.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " ")
        // `log …` needs the log alone, not the state: it runs as `fetchlog log …` does, so
        // `query "log verify"` works on a store whose state cannot be rebuilt.
        if let words = try? Tokenizer.words(line), words.first == "log" {
            let maintenance = try reportingErrors { try storeOptions.open() }
            var renderer = Renderer()
            renderer.mode = try sessionOptions.mode() ?? .table
            renderer.width = terminalWidth()
            renderer.fitsWidth = isatty(STDOUT_FILENO) == 1
            let buffer = OutputBuffer()
            let context = CommandContext(maintenance: maintenance, clock: configuration.clock, session: nil, write: { buffer.write($0) })
            do {
                let output = try await SharedDoor.run(LogCommand.self, Array(words.dropFirst()), usage: LogCommand.usage,
                                                      subcommandUsage: LogCommand.usages, context: context, renderer: renderer,
                                                      emit: { buffer.write($0) })
                if let output { buffer.write(renderer.render(output)) }
                buffer.flush()
            } catch let error as CommandError {
                if let output = error.output { buffer.write(renderer.render(output)) }
                buffer.flush()
                writeErr(Data("error: \(visibleControls(error.message))\n".utf8))
                throw ExitCode(error.status)
            } catch let error as StoreError {
                buffer.flush()
                let failure = ExitStatus.of(error)
                writeErr(Data("error: \(visibleControls(failure.message))\n".utf8))
                throw ExitCode(failure.status)
            } catch let error as MaintenanceError {
                buffer.flush()
                let failure = ExitStatus.of(error)
                writeErr(Data("error: \(visibleControls(failure.message))\n".utf8))
                throw ExitCode(failure.status)
            }
            return
        }
        let maintenance = try reportingErrors { try storeOptions.open() }
        // A command with a copy in the read model (a plug-in's search) answers from it, as the
        // shell would, without opening the store.
        let cold = ColdQuery.run(line, maintenance: maintenance, mode: try sessionOptions.mode())
        if case .answered(let status) = cold {
            if status != 0 { throw ExitCode(status) }
            return
        }
        let session = try await makeSession(maintenance, configuration: configuration, options: sessionOptions)
        session.finishBackgroundWork = true
        let opened = session.store.snapshot.state.seq
        let error = await session.execute(line)
        await session.policy.waitForBackgroundWork()
        // A command with a copy whose copy was absent, behind or damaged: the read model
        // written now, for the next one-shot. Any other command that appended events keeps
        // a read model the store has current.
        let copied = error == nil && ColdQuery.command(for: line) != nil
        if case .damaged(let problem) = cold {
            // Damaged (issue 44): written anew, nothing copied from it, and said on stderr.
            keepReadModelCurrent(session.store, creating: true, damaged: true)
            let stamp = try? ReadModel.stamp(of: maintenance, at: session.store.snapshot.state.seq)
            noteReadModel(problem, rebuilt: stamp.map { ReadModel.isCurrent(storePath: maintenance.path, stamp: $0) } ?? false)
        } else if copied || session.store.snapshot.state.seq != opened {
            keepReadModelCurrent(session.store, creating: copied)
        }
        await session.store.close()
        session.close()
        if let error { throw ExitCode(error.status) }
    }
}

/// `fetchlog demo`: the bundled sample upstream in-process, a fresh demo store, the
/// first pages of every source fetched, then the shell.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the sample upstream, fetch the first pages of all five sources into a demo store, open the shell.",
        discussion: "With --web, serve the store instead (the page and the API of `fetchlog serve`, loopback only): the address is printed on stdout, Ctrl-C stops it.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var sessionOptions: SessionOptions
    @Flag(help: "Serve the demo store in a browser page (as `fetchlog serve`) rather than open the shell.") var web = false
    @Option(help: "With --web: the port, 0 to 65535 (8420 unless given; 0 picks a free one).", transform: Bounded.whole("--port", Bounded.portRange)) var port: Int?

    func validate() throws {
        if let port {
            guard web else { throw ValidationError("--port is for --web: give fetchlog demo --web --port \(port)") }
        }
    }

    /// What the registered sources' demo plan fetches first.
    static var firstPages: [Resource] { Engine.shell.demo.firstFetches }

    func run() async throws {
        let path = storeOptions.store ?? NSTemporaryDirectory() + "fetchlog-demo-" + String(UUID().uuidString.prefix(8))
        let clock = try reportingErrors { try cliClock() }
        let maintenance = try reportingErrors { try StoreMaintenance.open(path: path, sources: Engine.sources) }
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        var configuration = FetchConfiguration()
        configuration.upstream = Upstream(base: base)
        configuration.clock = clock
        let store = try await reportingErrors { try await openStore(maintenance, clock: clock, fetching: configuration) }
        let printer = FetchPrinter()
        printer.write = { writeErr(Data(($0 + "\n").utf8)) }
        printer.expect(Self.firstPages.count)
        var loaded: Set<String> = []
        do {
            for resource in Self.firstPages {
                let report = try await store.fetch(resource)
                printer.progress(report)
                if report.isUsable { loaded.insert(resource.source.rawValue) }
            }
        } catch {
            // Ctrl-C while loading (or a store failure): the client and the upstream are
            // shut down before the error ends the command.
            await store.close()
            await upstream.stop()
            throw error
        }
        let missing = Engine.sources.sources.map(\.rawValue).filter { !loaded.contains($0) }
        let loadedLine = missing.isEmpty ? "all five sources loaded" : "not loaded: \(missing.joined(separator: ", "))"
        if web {
            // The store stays open with the upstream behind it: fetches from another
            // process (`fetchlog --store PATH --upstream BASE fetch …`) show up live.
            let port = self.port ?? 8420
            do {
                try await serveStore(store, clock: clock, configuration: ServeConfiguration(port: port)) { address in
                    writeErr(Data("Fetchlog demo — store \(path), sample upstream \(base)\n\(loadedLine) · the page: \(address)/ · Ctrl-C stops\n".utf8))
                    return address + "/\n"
                }
            } catch {
                await store.close()
                await upstream.stop()
                throw error
            }
            await store.close()
            await upstream.stop()
            return
        }
        await store.close()
        let banner = "Fetchlog demo — store \(path), sample upstream \(base)\n"
            + loadedLine + " · type help for the commands, quit to leave"
        let status = try await runShell(maintenance, network: configuration, options: sessionOptions, banner: banner)
        await upstream.stop()
        if status != 0 { throw ExitCode(status) }
    }
}

/// The shell over the store `maintenance` opened, fetching as `configuration` says.
func makeSession(_ maintenance: StoreMaintenance, configuration: FetchConfiguration, options: SessionOptions) async throws -> Session {
    let mode = try options.mode()
    do {
        // Opening shuts its HTTP client down itself when the state cannot be folded.
        let store = try await openStore(maintenance, clock: configuration.clock, fetching: configuration)
        let session = Session(store: store, clock: configuration.clock)
        if let mode { session.renderer.mode = mode }
        return session
    } catch let error as StoreError {
        printError(error.description)
        throw ExitCode(ExitStatus.failure)
    }
}

/// Runs the shell on stdin: interactive on a terminal, a script otherwise. Returns the
/// exit status.
func runShell(_ maintenance: StoreMaintenance, network: FetchConfiguration, options: SessionOptions, banner: String?) async throws -> Int32 {
    let session = try await makeSession(maintenance, configuration: network, options: options)
    defer { session.close() }
    let watcher = session.store.watch()
    defer { watcher.cancel() }
    var status: Int32 = 0
    if isatty(STDIN_FILENO) == 1 {
        if let banner { say(banner) }
        // The lines of an SQL statement so far: completion reads them (a FROM on an earlier line).
        let statement = SharedStatementCollector()
        let editor = LineEditor(prompt: "fetchlog> ", continuationPrompt: StatementCollector.continuationPrompt, historyPath: defaultHistoryPath(),
                                completer: { line in
                                    let before = statement.pending
                                    return Completion.candidates(for: line, before: before, session: session)
                                })
        let interrupts = ShellInterrupts(editor: editor)
        session.notify = { editor.printAbove($0) }
        // A replicated store follows its stream by itself while the shell is open (the
        // watch shows what arrives); a script does not, so its answers stay reproducible.
        let stopFollowing = Replication.route(of: maintenance)?.follow(session.store, onProblem: { editor.printAbove("warning: \($0)") },
                                                                        onBack: { editor.printAbove("stream reachable again: in sync") })
        defer { stopFollowing?() }
        session.policy.onBackgroundReport = { report in
            let outcome: String = switch report.outcome {
            case .fetched: "updated"
            case .notModified: "still current (304)"
            case .endOfList: "end of list"
            case .failed(let failureClass, let message): "not refreshed: \(failureClass): \(message)"
            }
            editor.printAbove("↻ \(report.resource): \(outcome)")
        }
        // The upstream answered again and the changes waiting were sent (issue 26).
        session.policy.onBackgroundPush = { report in
            for line in report.lines { editor.printAbove("↑ \(line)") }
        }
        // libedit blocks its thread while a line is typed: read on a thread of its own so the
        // cooperative pool keeps running background fetches (whose messages print above).
        // The lines of the statement being typed, and how many became history entries.
        var statementLines: [String] = []
        var statementEntries = 0
        while let line = await readOffPool(editor, continuing: statement.isCollecting) {
            // Ctrl-C at the continuation prompt drops the statement, as in sqlite3.
            if editor.lastLineCancelled {
                statement.discard()
                statementLines = []
                statementEntries = 0
                continue
            }
            let collecting = statement.isCollecting
            let trimmed = collecting ? line : line.trimmingCharacters(in: .whitespaces)
            if !collecting, trimmed == "quit" || trimmed == "exit" { break }
            if !line.allSatisfy(\.isWhitespace) { statementLines.append(line.trimmingCharacters(in: .whitespaces)) }
            if editor.lastLineEntered { statementEntries += 1 }
            guard let command = statement.add(trimmed) else { continue }
            // A statement typed over several lines is one history entry, as psql keeps it.
            if statementLines.count > 1 { editor.replaceNewestHistory(statementEntries, with: statementLines.joined(separator: " ")) }
            statementLines = []
            statementEntries = 0
            await interrupts.run { await session.execute(command) }
        }
        // Ctrl-D inside a statement: what was typed runs, as sqlite3 runs it at end of input.
        if let rest = statement.take() { await interrupts.run { await session.execute(rest) } }
        editor.saveHistory()
    } else {
        session.finishBackgroundWork = true
        if let banner { writeErr(Data((banner + "\n").utf8)) }
        let interrupts = ShellInterrupts(editor: nil)
        var statement = StatementCollector()
        var ended = false
        while !ended {
            // At end of input a statement still open runs as it is (sqlite3 does so too).
            let command: String
            if let line = Swift.readLine(strippingNewline: true) {
                if statement.isCollecting {
                    guard let complete = statement.add(line) else { continue }
                    command = complete
                } else {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                    if trimmed == "quit" || trimmed == "exit" { break }
                    guard let complete = statement.add(trimmed) else { continue }
                    command = complete
                }
            } else {
                ended = true
                guard let rest = statement.take() else { break }
                command = rest
            }
            let error = await interrupts.run { await session.execute(command) }
            if interrupts.interrupted { status = 130; break }  // Ctrl-C ends a script, whatever the command made of it
            if let error, !options.keepGoing {
                status = error.status
                break
            }
        }
    }
    await session.policy.waitForBackgroundWork()
    // Next time the shell (or any command) opens this store, it replays only what
    // came after this point.
    if session.store.durableState.seq > 0 { try? await session.store.saveCheckpoint() }
    await session.store.close()
    return status
}

/// One line from the editor, read on a dedicated thread.
func readOffPool(_ editor: LineEditor, continuing: Bool = false) async -> String? {
    await withCheckedContinuation { continuation in
        let box = UncheckedBox(editor)
        Thread { continuation.resume(returning: box.value.readLine(continuing: continuing)) }.start()
    }
}

///
/// Carries a value into the one task that uses it from then on (a parsed command, the line editor): handed over, never shared. `@unchecked` because the value's type is not `Sendable` itself.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Tab completion in this shell: the shell module's, with the command line's command names
/// and output modes.
enum Completion {
    /// `before`: the earlier lines of the SQL statement being typed, if any.
    static func candidates(for line: String, before: String = "", session: Session) -> [String] {
        let completion = ShellCompletion(shell: session.shell, commandNames: CommandTable.names, modes: OutputMode.allCases.map(\.rawValue))
        let state = session.store.snapshot.state
        // Table and column names only when SQL is being typed: describing builds every table.
        let statement = before.isEmpty ? line : before + " " + line
        if ShellSQL.statement(in: statement) != nil || line.hasPrefix(".schema ") {
            return completion.sqlCandidates(for: line, statement: statement, tables: SQLCompletionTables.tables(of: session.store, state: state))
        }
        return completion.candidates(for: line, state: state)
    }
}
