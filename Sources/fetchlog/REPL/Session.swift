import ArgumentParser
import Fetchlog
import Foundation

/// A command that could not run: one line for the user and the exit status it carries
/// in script mode (1: it failed, e.g. a missing gnome or a seq past the end; 64: the
/// command itself is malformed or unknown).
struct CommandError: Error, CustomStringConvertible {
    let message: String
    let status: Int32
    static func usage(_ message: String) -> CommandError { CommandError(message: message, status: 64) }
    static func failed(_ message: String) -> CommandError { CommandError(message: message, status: 1) }
    var description: String { message }
}

/// One REPL (or script, or `query`) session over an open store: the command interpreter.
/// It holds no state of its own beyond presentation (mode, output file, timer); every
/// answer comes from a store snapshot.
final class Session: @unchecked Sendable {
    let log: EventLog
    let store: Store
    let fetcher: Fetcher
    let policy: OfflineFirst
    let clock: any Clock
    var renderer = Renderer()
    var timer = false
    private var outputHandle: FileHandle?
    private var outputPath: String?
    /// The state commands read: the live snapshot, or a past one inside `at SEQ`.
    private var pinned: LogState?
    /// Where warnings and progress go (the line editor prints them above the prompt).
    var notify: (String) -> Void = { writeErr(Data(($0 + "\n").utf8)) }
    /// One-shot and script runs finish each command's background revalidation before
    /// the next, and print the freshness line after it, so it says how that ended.
    var finishBackgroundWork = false
    private var pendingWarnings: [(Resource, String)] = []

    init(log: EventLog, fetcher: Fetcher, clock: any Clock) throws {
        self.log = log
        self.fetcher = fetcher
        self.clock = clock
        store = try Store(log: log, fetcher: fetcher, clock: clock)
        policy = OfflineFirst(store: store, fetcher: fetcher, clock: clock)
        renderer.width = terminalWidth()
    }

    var state: LogState { pinned ?? store.snapshot.state }
    var isPinned: Bool { pinned != nil }

    /// Runs one command line, writing its output. Returns the error, if any, after
    /// printing it as one line.
    @discardableResult
    func execute(_ line: String) async -> CommandError? {
        let words: [String]
        do { words = try Tokenizer.words(line) } catch {
            return report(.usage("\(error)"))
        }
        guard let name = words.first else { return nil }
        let started = ContinuousClock.now
        do {
            let output = try await run(name, Array(words.dropFirst()))
            if let output { emit(renderer.render(output)) }
            if finishBackgroundWork {
                await policy.waitForBackgroundWork()
                for (resource, name) in pendingWarnings { printFreshness(resource, name) }
            }
            pendingWarnings = []
            if timer {
                let elapsed = ContinuousClock.now - started
                emit(String(format: "time: %.3f s\n", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
            }
            return nil
        } catch let error as CommandError {
            pendingWarnings = []
            return report(error)
        } catch let error as StoreError {
            return report(.failed(error.description))
        } catch {
            return report(.failed("\(error)"))
        }
    }

    private func report(_ error: CommandError) -> CommandError {
        writeErr(Data("error: \(error.message)\n".utf8))
        return error
    }

    /// Writes command output to the terminal or the `.output` file.
    func emit(_ text: String) {
        if let outputHandle { writeAll(Data(text.utf8), to: outputHandle) } else { writeOut(Data(text.utf8)) }
    }

    /// The freshness line under a result: `⚠ offline: connection refused — shows last updated 2h 14m ago`.
    func freshnessLine(_ resource: Resource, _ name: String) {
        if finishBackgroundWork { pendingWarnings.append((resource, name)) } else { printFreshness(resource, name) }
    }

    private func printFreshness(_ resource: Resource, _ name: String) {
        guard !isPinned, let warning = policy.warning(for: resource, named: name) else { return }
        if renderer.mode == .table || renderer.mode == .line { emit("⚠ \(warning)\n") } else { notify("⚠ \(warning)") }
    }

    /// Opens a view's primary resource: never waits when data is held; with nothing held,
    /// waits for the fetch so the command has something to show.
    func open(_ resource: Resource, _ name: String? = nil) async throws {
        guard !isPinned else { return }
        let opened = try await policy.open(resource)
        guard opened.freshness.level == .missing else { return }
        await policy.waitForBackgroundWork()
        let after = policy.freshness(of: resource)
        if let name, after.level == .missing {
            let reason = fetcher.configuration.offline ? "--offline forbids the network" : (after.status.lastError ?? "nothing came back")
            throw CommandError.failed("no \(name) held yet, and fetching failed: \(reason). Check the network or --upstream (or drop --offline), then try again.")
        }
    }

    // MARK: Dispatch

    func run(_ name: String, _ args: [String]) async throws -> Output? {
        if name.hasPrefix(".") { return try dotCommand(name, args) }
        guard let spec = CommandTable.find(name) else {
            throw CommandError.usage("unknown command '\(name)'\(Suggest.didYouMean(name, CommandTable.names)); type help for the list")
        }
        return try await spec.run(self, args)
    }

    private func dotCommand(_ name: String, _ args: [String]) throws -> Output? {
        switch name {
        case ".mode":
            guard let value = args.first else { return .text("mode \(renderer.mode.rawValue)") }
            guard let mode = OutputMode(rawValue: value) else {
                throw CommandError.usage(".mode takes table, json, ndjson or line, not '\(value)'")
            }
            renderer.mode = mode
            return nil
        case ".output":
            try? outputHandle?.close()
            outputHandle = nil
            outputPath = nil
            guard let path = args.first, path != "stdout", path != "-" else { return nil }
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                throw CommandError.failed("cannot write \(path)")
            }
            outputHandle = handle
            outputPath = path
            return nil
        case ".timer":
            guard let value = args.first, ["on", "off"].contains(value) else { throw CommandError.usage(".timer takes on or off") }
            timer = value == "on"
            return nil
        default:
            throw CommandError.usage("unknown command '\(name)'\(Suggest.didYouMean(name, [".mode", ".output", ".timer"]))")
        }
    }

    /// Runs `body` against the state as of `seq` (time travel).
    func pinned<T>(at seq: UInt64, _ body: () async throws -> T) async throws -> T {
        let last = try log.lastSeq()
        guard seq <= last else { throw CommandError.failed("seq \(seq) is past the end of the log (the last is \(last))") }
        let previous = pinned
        pinned = try Store.replay(log, to: seq).state
        defer { pinned = previous }
        return try await body()
    }

    func close() {
        try? outputHandle?.close()
    }
}
