import ArgumentParser
import Fetchlog
import Foundation

@main
struct FetchlogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetchlog",
        abstract: "An event-sourced, offline-first data engine: every fetch is an event in an LMDB log.",
        discussion: """
        Shared options may come before the subcommand: `fetchlog --store DIR log stats`,
        `fetchlog --offline --format json query shows`.
        The store is --store DIR, else $FETCHLOG_STORE, else $XDG_DATA_HOME/fetchlog, else ~/.local/share/fetchlog.

        Exit status: 0 success; 1 the command failed; 2 `log verify` found damage;
        3 the store directory was refused (not a store, newer format, truncated); 64 usage error.
        """,
        version: FetchlogVersion.string,
        subcommands: [ReplCommand.self, DemoCommand.self, QueryCommand.self, LogCommand.self, FetchCommand.self, StatusCommand.self, ExportCommand.self, ReplayCommand.self, UpstreamCommand.self, TourCommand.self, DevCommand.self],
        defaultSubcommand: ReplCommand.self
    )

    static func main() async {
        await mainCancellingOnInterrupt(GlobalOptions.hoist(Array(CommandLine.arguments.dropFirst())))
    }
}

enum GlobalOptions {
    /// Options shared by several commands. ArgumentParser reads options only after the
    /// subcommand that declares them, so when they stand before it they are moved to the
    /// end; a command that does not take one still says so ("Unknown option").
    static let withValue: Set<String> = ["--store", "--upstream", "--connect-timeout", "--read-timeout", "--retries",
                                         "--retry-after-cap", "--format"]
    static let flags: Set<String> = ["--offline", "--keep-going"]

    static func hoist(_ arguments: [String]) -> [String] {
        var front: [String] = []
        var moved: [String] = []
        var index = 0
        var seenSubcommand = false
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
                if !argument.hasPrefix("-") { seenSubcommand = true }
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

    func open() throws -> EventLog {
        try EventLog.open(at: path)
    }
}
