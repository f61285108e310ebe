import FetchlogCore
import FetchlogSources
import Foundation

/// One REPL command: its grammar, a one-line summary and an example that works on the
/// demo store (tests run every example).
struct CommandSpec: Sendable {
    let name: String
    let usage: String
    let summary: String
    let example: String
    let run: @Sendable (Session, [String]) async throws -> Output?

    var json: JSONValue {
        .object([("name", .string(name)), ("usage", .string(usage)), ("summary", .string(summary)), ("example", .string(example))])
    }
}

extension CommandSpec {
    /// A source's command, run with the session as its context.
    init(_ command: ShellCommand) {
        self.init(name: command.name, usage: command.usage, summary: command.summary, example: command.example,
                  run: { session, args in try await command.run(session, args) })
    }
}

enum CommandTable {
    /// The engine's commands, then every registered source's, then the rest of the engine's.
    static func table(for sources: SourceRegistry) -> [CommandSpec] { head + sources.commands.map(CommandSpec.init) + tail }

    /// The command line's table (its registry, `Engine.sources`).
    static let all: [CommandSpec] = table(for: Engine.sources)

    static let head: [CommandSpec] = [
        CommandSpec(name: "help", usage: "help [COMMAND]", summary: "list every command, or explain one", example: Engine.sources.demo.examples["help"] ?? "help fetch", run: Commands.help),
        CommandSpec(name: "sources", usage: "sources", summary: "the five sources: base URL, resources held, last success", example: "sources", run: Commands.sources),
        CommandSpec(name: "fetch", usage: "fetch SOURCE WHAT [ARGS] [--pages A-B|all] [--limit N] [--with images,episodes] [--concurrency N]",
                    summary: "fetch from upstream; every attempt becomes an event", example: Engine.sources.demo.examples["fetch"] ?? "help fetch", run: Commands.fetch),
    ]

    static let tail: [CommandSpec] = [
        CommandSpec(name: "asset", usage: "asset show URL | asset save URL FILE [--force]", summary: "an image held in the store: its reference, or its bytes written out (--force replaces a file)",
                    example: Engine.sources.demo.examples["asset"] ?? "help asset", run: Commands.asset),
        CommandSpec(name: "status", usage: "status", summary: "every resource: freshness, last success, last error", example: "status", run: Commands.status),
        CommandSpec(name: "log", usage: LogCommand.usage, summary: "the event log (as `fetchlog log …`; log tail 3 and log tail -n 3 alike)", example: "log tail 3", run: Commands.log),
        CommandSpec(name: "source", usage: SourceCommand.usage, summary: "sources defined by manifests (dlt rest_api JSON): add one, list them, show one",
                    example: "source list", run: Commands.source),
        CommandSpec(name: "items", usage: ItemsCommand.usage, summary: "a manifest resource's items: search, --where FIELD=VALUE or MIN..MAX, pages", example: "help items",
                    run: { session, args in try await session.runShared(ItemsCommand.self, args, usage: ItemsCommand.usage) }),
        CommandSpec(name: "item", usage: ItemGroupCommand.usage, summary: "one item of a manifest resource by its primary key; item add, set, delete change one (recorded at once, sent by push)", example: "help item",
                    run: { session, args in try await session.runShared(ItemGroupCommand.self, args, usage: ItemGroupCommand.usage) }),
        // Issue 26: offline writes (item add/set/delete above, through `item`).
        CommandSpec(name: "pending", usage: PendingCommand.usage, summary: "changes waiting to be sent (item add/set/delete): state and last answer; retry or discard one",
                    example: "help pending", run: { session, args in try await session.runShared(PendingCommand.self, args, usage: PendingCommand.usage) }),
        CommandSpec(name: "push", usage: PushCommand.usage, summary: "send the changes waiting, exactly once (Idempotency-Key, If-Match when an ETag is held)",
                    example: "help push", run: { session, args in try await session.runShared(PushCommand.self, args, usage: PushCommand.usage) }),
        CommandSpec(name: "facets", usage: FacetsCommand.usage, summary: "a manifest resource's facets: values with counts, numeric ranges", example: "help facets",
                    run: { session, args in try await session.runShared(FacetsCommand.self, args, usage: FacetsCommand.usage) }),
        CommandSpec(name: "links", usage: LinksCommand.usage, summary: "an item's links (fetchlog.links): what it names, who names it, names matching nothing", example: "help links",
                    run: { session, args in try await session.runShared(LinksCommand.self, args, usage: LinksCommand.usage) }),
        CommandSpec(name: "replay", usage: ReplayCommand.usage, summary: "rebuild every view from the log; each view's events and hash (--verify: against the live state)", example: "replay --verify", run: Commands.replay),
        CommandSpec(name: "export", usage: ExportCommand.usage, summary: "a view as canonical JSON (\(exportList))",
                    example: "export filters", run: Commands.export),
        CommandSpec(name: "at", usage: "at SEQ COMMAND…", summary: "run a command against the state as of SEQ (time travel)", example: "at 1 shows", run: Commands.at),
        CommandSpec(name: "diff", usage: "diff SEQ1 SEQ2 VIEW", summary: "what changed in a view between two points of the log", example: "diff 1 2 status", run: Commands.diff),
        CommandSpec(name: "quit", usage: "quit", summary: "leave (also exit, or Ctrl-D)", example: "quit", run: { _, _ in nil }),
    ]

    /// Every name `export` takes, from the registry.
    static var exportList: String { Engine.sources.exportNames.joined(separator: ", ") }

    static let dotCommands: [(String, String, String)] = [
        (".mode table|json|ndjson|line|csv", "how results are printed (as --format)", ".mode json"),
        (".output FILE|stdout", "send results to a file, or back to the terminal", ".output stdout"),
        (".timer on|off", "print each command's time", ".timer off"),
        (".pager on|off", "page long results on a terminal through $PAGER (on by default there)", ".pager off"),
    ]

    static var names: [String] { names(in: all) }

    static func names(in table: [CommandSpec]) -> [String] {
        table.map(\.name) + ["exit"] + dotCommands.map { String($0.0.split(separator: " ")[0]) }
    }

    static func find(_ name: String, in table: [CommandSpec] = all) -> CommandSpec? {
        let lookup = name == "exit" ? "quit" : name
        return table.first { $0.name == lookup }
    }
}
