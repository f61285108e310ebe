import ArgumentParser
import FetchlogCore
import FetchlogReplication
import FetchlogSources
import FetchlogSQL
import Foundation
import Logging

@main
struct FetchlogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetchlog",
        abstract: "An event-sourced, offline-first data engine: every fetch is an event in an LMDB log.",
        usage: "fetchlog [<global options>] <subcommand>",
        // One paragraph a line (a trailing backslash joins the source lines): ArgumentParser
        // wraps each paragraph to the terminal's width, and a newline inside one would break
        // it a second time, mid-sentence.
        discussion: """
        Global options go before the command and every command accepts them, applying those \
        it uses: --store DIR, --format MODE, --upstream BASE, --offline, --connect-timeout, \
        --read-timeout, --retries, --retry-after-cap, --deadline, --min-rate, --max-body BYTES, --redact-param, \
        --allow-private-hosts, --keep-going (`fetchlog --store DIR log stats`, \
        `fetchlog --offline --format json query shows`). After the command, only its own \
        options are accepted (fetchlog COMMAND --help lists them).

        The store is --store DIR, else $FETCHLOG_STORE, else $XDG_DATA_HOME/fetchlog, else \
        ~/.local/share/fetchlog.

        Every command that prints results takes --format table|json|ndjson|line|csv (rows on \
        stdout, warnings and progress on stderr). -v, -vv, -vvv or --quiet (anywhere) set how \
        much the library logs to stderr; else $FETCHLOG_LOG_LEVEL; warnings by default.

        Exit status: 0 success; 1 the command failed; 2 `log verify` or `replay --verify` found \
        damage; 3 the store directory was refused (not a store, newer format, truncated); \
        64 usage error; 75 another sync runs on the store; 130 interrupted (Ctrl-C).
        """,
        version: FetchlogVersion.string,
        subcommands: [ReplCommand.self, DemoCommand.self, QueryCommand.self, LogCommand.self, FetchCommand.self, StatusCommand.self, ExportCommand.self, SQLCommand.self, ReplayCommand.self, SourceCommand.self, ItemsCommand.self, ItemGroupCommand.self, PendingCommand.self, PushCommand.self, SyncCommand.self, FacetsCommand.self, LinksCommand.self, PathCommand.self, UpstreamCommand.self, ServeCommand.self, ReplicateCommand.self, FollowCommand.self, TourCommand.self, DevCommand.self],
        defaultSubcommand: ReplCommand.self
    )

    static func main() async {
        // The engine's messages name settings; here they are flags (`--deadline`).
        CommandLineTerms.install()
        // Checkpoints record the saved views too (`replay --diff`).
        SavedViewRecording.installed
        var arguments = Array(CommandLine.arguments.dropFirst())
        do {
            let verbosity = try Verbosity.take(from: &arguments)
            Verbosity.bootstrap(verbosity)
        } catch {
            printError("\(error)")
            Foundation.exit(ExitStatus.usage)
        }
        do {
            arguments = try GlobalOptions.arrange(arguments)
        } catch {
            printError("\(error)")
            Foundation.exit(ExitStatus.usage)
        }
        if let unknown = GlobalOptions.unknownSubcommand(in: arguments) {
            let names = configuration.subcommands.map { $0._commandName } + ["help"]
            printError("unknown command '\(unknown)'\(Suggest.didYouMean(unknown, names)); fetchlog --help lists them")
            Foundation.exit(ExitStatus.usage)
        }
        if let (group, word, names) = GlobalOptions.unknownNestedSubcommand(in: arguments) {
            printError("\(group) has no '\(word)'\(Suggest.didYouMean(word, names)); fetchlog \(group) --help lists them")
            Foundation.exit(ExitStatus.usage)
        }
        await mainCancellingOnInterrupt(arguments)
    }
}

/// How much the library logs (swift-log, always to stderr so stdout stays rows only):
/// warnings by default; `-v` info, `-vv` debug, `-vvv` trace; `--quiet` errors only;
/// `FETCHLOG_LOG_LEVEL` (trace … critical) when no flag is given.
enum Verbosity {
    struct BadLevel: Error, CustomStringConvertible {
        let value: String
        var description: String {
            "FETCHLOG_LOG_LEVEL='\(value)' is not a level: use trace, debug, info, notice, warning, error or critical"
        }
    }

    /// Removes `-v`, `-vv`, `-vvv`, `--verbose` and `--quiet` (they may stand anywhere
    /// before `--`) and returns the level they ask for.
    static func take(from arguments: inout [String]) throws -> Logger.Level {
        var verbose = 0
        var quiet = false
        var kept: [String] = []
        var passthrough = false
        for argument in arguments {
            if passthrough { kept.append(argument); continue }
            switch argument {
            case "--": passthrough = true; kept.append(argument)
            case "-v", "--verbose": verbose += 1
            case "-vv": verbose += 2
            case "-vvv": verbose += 3
            case "--quiet", "-q": quiet = true
            default: kept.append(argument)
            }
        }
        arguments = kept
        if quiet { return .error }
        if verbose > 0 { return [.info, .debug, .trace][min(verbose, 3) - 1] }
        if let text = ProcessInfo.processInfo.environment["FETCHLOG_LOG_LEVEL"], !text.isEmpty {
            guard let level = Logger.Level(rawValue: text.lowercased()) else { throw BadLevel(value: text) }
            return level
        }
        return .warning
    }

    static func bootstrap(_ level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        // The library's loggers take their level from here when they are made.
        FetchlogLogging.level = level
    }
}

/// `--store DIR`, shared by every command that opens a store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store directory.", valueName: "dir"))
    var store: String?

    var path: String { StoreLocation.resolve(explicit: store) }

    /// Opens the store for maintenance (its state not folded yet: `openStore` does that);
    /// one attached to a stream (`replicate init`) appends through it.
    func open() throws -> StoreMaintenance {
        let store = try StoreMaintenance.open(path: path, sources: Engine.sources)
        for note in store.notes { printError("note: \(note)") }
        // A command waits out a leader election (seconds), not an outage: after 10 s its
        // writes wait in the outbox, and it goes on.
        try Replication.routeAppendsIfAttached(store, onRetry: { printError("warning: \($0)") }, onPending: { printError("warning: \($0)") })?
            .patience = .seconds(10)
        return store
    }
}
