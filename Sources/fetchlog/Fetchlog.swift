import ArgumentParser
import FetchlogCore
import FetchlogReplication
import FetchlogSources
import Foundation
import Logging

@main
struct FetchlogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetchlog",
        abstract: "An event-sourced, offline-first data engine: every fetch is an event in an LMDB log.",
        discussion: """
        Shared options may come before the subcommand: `fetchlog --store DIR log stats`,
        `fetchlog --offline --format json query shows`.
        The store is --store DIR, else $FETCHLOG_STORE, else $XDG_DATA_HOME/fetchlog, else ~/.local/share/fetchlog.

        Every command that prints results takes --format table|json|ndjson|line|csv (rows on
        stdout, warnings and progress on stderr). -v, -vv, -vvv or --quiet (anywhere) set how
        much the library logs to stderr; else $FETCHLOG_LOG_LEVEL; warnings by default.

        Exit status: 0 success; 1 the command failed; 2 `log verify` or `replay --verify` found
        damage; 3 the store directory was refused (not a store, newer format, truncated);
        64 usage error; 130 interrupted (Ctrl-C).
        """,
        version: FetchlogVersion.string,
        subcommands: [ReplCommand.self, DemoCommand.self, QueryCommand.self, LogCommand.self, FetchCommand.self, StatusCommand.self, ExportCommand.self, ReplayCommand.self, SourceCommand.self, ItemsCommand.self, ItemGroupCommand.self, PendingCommand.self, PushCommand.self, FacetsCommand.self, LinksCommand.self, PathCommand.self, UpstreamCommand.self, ReplicateCommand.self, FollowCommand.self, TourCommand.self, DevCommand.self],
        defaultSubcommand: ReplCommand.self
    )

    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        do {
            let verbosity = try Verbosity.take(from: &arguments)
            Verbosity.bootstrap(verbosity)
        } catch {
            printError("\(error)")
            Glibc.exit(64)
        }
        arguments = GlobalOptions.hoist(arguments)
        if let unknown = GlobalOptions.unknownSubcommand(in: arguments) {
            let names = configuration.subcommands.map { $0._commandName } + ["help"]
            printError("unknown command '\(unknown)'\(Suggest.didYouMean(unknown, names)); fetchlog --help lists them")
            Glibc.exit(64)
        }
        if let (group, word, names) = GlobalOptions.unknownNestedSubcommand(in: arguments) {
            printError("\(group) has no '\(word)'\(Suggest.didYouMean(word, names)); fetchlog \(group) --help lists them")
            Glibc.exit(64)
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

enum GlobalOptions {
    /// Options shared by several commands. ArgumentParser reads options only after the
    /// subcommand that declares them, so when they stand before it they are moved to the
    /// end; a command that does not take one still says so ("Unknown option").
    static let withValue: Set<String> = ["--store", "--upstream", "--connect-timeout", "--read-timeout", "--retries",
                                         "--retry-after-cap", "--format", "--deadline", "--min-rate", "--redact-param"]
    static let flags: Set<String> = ["--offline", "--keep-going", "--allow-private-hosts"]

    /// The first word when it is meant as a subcommand but names none (`fetchlog querry`).
    /// The default command (the shell) takes no words, so any first word must be one.
    static func unknownSubcommand(in arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let names = Set(FetchlogCommand.configuration.subcommands.map { $0._commandName } + ["help"])
        return names.contains(first) ? nil : first
    }

    /// `fetchlog log tial`: a group's mistyped subcommand, with the group's subcommands.
    static func unknownNestedSubcommand(in arguments: [String]) -> (group: String, word: String, names: [String])? {
        guard arguments.count >= 2, !arguments[1].hasPrefix("-"),
              let group = FetchlogCommand.configuration.subcommands.first(where: { $0._commandName == arguments[0] }) else { return nil }
        let names = group.configuration.subcommands.map { $0._commandName }
        // A group with a default subcommand (`item SOURCE …`) takes other words as that one's.
        guard !names.isEmpty, group.configuration.defaultSubcommand == nil, !names.contains(arguments[1]), arguments[1] != "help" else { return nil }
        return (arguments[0], arguments[1], names)
    }

    static func hoist(_ arguments: [String]) -> [String] {
        var front: [String] = []
        var moved: [String] = []
        var index = 0
        var seenSubcommand = false
        var group: any ParsableCommand.Type = FetchlogCommand.self
        while index < arguments.count {
            let argument = arguments[index]
            if !seenSubcommand {
                if withValue.contains(argument), index + 1 < arguments.count {
                    moved += [argument, arguments[index + 1]]
                    index += 2
                    continue
                }
                if let equals = argument.firstIndex(of: "="), withValue.contains(String(argument[..<equals])) {
                    moved.append(argument)
                    index += 1
                    continue
                }
                if flags.contains(argument) {
                    moved.append(argument)
                    index += 1
                    continue
                }
                if !argument.hasPrefix("-") {
                    // A group (`log`) goes on hoisting until its own subcommand (`tail`):
                    // `fetchlog log --format json tail 2` means `log tail 2 --format json`.
                    if let next = group.configuration.subcommands.first(where: { $0._commandName == argument }),
                       !next.configuration.subcommands.isEmpty {
                        group = next
                    } else {
                        seenSubcommand = true
                    }
                }
            }
            front.append(argument)
            index += 1
        }
        return front + moved
    }
}

/// `--store DIR`, shared by every command that opens a store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store directory.", valueName: "dir"))
    var store: String?

    var path: String { StoreLocation.resolve(explicit: store) }

    /// Opens the store; one attached to a stream (`replicate init`) appends through it.
    func open() throws -> EventLog {
        let log = try EventLog.open(at: path)
        for note in log.notes { printError("note: \(note)") }
        // A command waits out a leader election (seconds), not an outage: after 10 s its
        // writes wait in the outbox, and it goes on.
        try Replication.routeAppendsIfAttached(log, onRetry: { printError("warning: \($0)") }, onPending: { printError("warning: \($0)") })?
            .patience = .seconds(10)
        return log
    }
}
