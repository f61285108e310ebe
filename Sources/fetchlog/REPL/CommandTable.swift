import FetchlogCore
import FetchlogShell
import FetchlogSources
import Foundation

enum CommandTable {
    /// The engine's commands, then every registered source's, then the rest of the engine's:
    /// one command type (`ShellCommand`) for both; the engine's run in a `Session`.
    static func table(for shell: ShellRegistry) -> [ShellCommand] { head + shell.commands + tail }

    /// The command line's table (its registry, `Engine.shell`).
    static let all: [ShellCommand] = table(for: Engine.shell)

    static let head: [ShellCommand] = [
        ShellCommand(name: "help", usage: "help [COMMAND]", summary: "list every command, or explain one", example: Engine.shell.demo.examples["help"] ?? "help fetch", run: Commands.help),
        ShellCommand(name: "sources", usage: "sources", summary: "every source (the plug-ins, then those defined by manifests): base URL, resources held, last success", example: "sources", run: Commands.sources),
        ShellCommand(name: "fetch", usage: "fetch SOURCE WHAT [ARGS] [--pages A-B|all] [--limit N] [--with images,episodes] [--concurrency N]",
                    summary: "fetch from upstream; every attempt becomes an event", example: Engine.shell.demo.examples["fetch"] ?? "help fetch", run: Commands.fetch),
    ]

    static let tail: [ShellCommand] = [
        ShellCommand(name: "asset", usage: "asset show URL | asset save URL FILE [--force]", summary: "an image held in the store: its reference, or its bytes written out (--force replaces a file)",
                    example: Engine.shell.demo.examples["asset"] ?? "help asset", run: Commands.asset),
        ShellCommand(name: "status", usage: "status", summary: "every resource: freshness, last success, last error", example: "status", run: Commands.status),
        ShellCommand(name: "log", usage: LogCommand.usage, summary: "the event log (as `fetchlog log …`; log tail 3 and log tail -n 3 alike)", example: "log tail 3", run: Commands.log),
        ShellCommand(name: "source", usage: SourceCommand.usage, summary: "sources defined by manifests (dlt rest_api JSON): add one, list them, show one",
                    example: "source list", run: Commands.source),
        ShellCommand(name: "items", usage: ItemsCommand.usage, summary: "a manifest resource's items: search, --where FIELD=VALUE or MIN..MAX, pages", example: "help items",
                    run: { (session: Session, args) in try await session.runShared(ItemsCommand.self, args, usage: ItemsCommand.usage) }),
        ShellCommand(name: "item", usage: ItemGroupCommand.usage, summary: "one item of a manifest resource by its primary key; item add, set, delete change one (recorded at once, sent by push)", example: "help item",
                    run: { (session: Session, args) in try await session.runShared(ItemGroupCommand.self, args, usage: ItemGroupCommand.usage) }),
        // Issue 26: offline writes (item add/set/delete above, through `item`).
        ShellCommand(name: "pending", usage: PendingCommand.usage, summary: "changes waiting to be sent (item add/set/delete): state and last answer; retry or discard one",
                    example: "help pending", run: { (session: Session, args) in try await session.runShared(PendingCommand.self, args, usage: PendingCommand.usage) }),
        ShellCommand(name: "push", usage: PushCommand.usage, summary: "send the changes waiting, exactly once (Idempotency-Key, If-Match when an ETag is held)",
                    example: "help push", run: { (session: Session, args) in try await session.runShared(PushCommand.self, args, usage: PushCommand.usage) }),
        ShellCommand(name: "facets", usage: FacetsCommand.usage, summary: "a manifest resource's facets: values with counts, numeric ranges", example: "help facets",
                    run: { (session: Session, args) in try await session.runShared(FacetsCommand.self, args, usage: FacetsCommand.usage) }),
        ShellCommand(name: "links", usage: LinksCommand.usage, summary: "an item's links (fetchlog.links): what it names, who names it, names matching nothing", example: "help links",
                    run: { (session: Session, args) in try await session.runShared(LinksCommand.self, args, usage: LinksCommand.usage) }),
        ShellCommand(name: "replay", usage: ReplayCommand.usage, summary: "rebuild every view from the log; each view's events and hash (--verify: against the live state)", example: "replay --verify", run: Commands.replay),
        ShellCommand(name: "export", usage: ExportCommand.usage, summary: "a view as canonical JSON (\(exportList))",
                    example: "export filters", run: Commands.export),
        // Issue 35: a line starting SELECT, WITH, VALUES, EXPLAIN, CREATE VIEW or DROP VIEW is
        // SQL as typed (Session.execute); `sql …` is the command line's `fetchlog sql`.
        ShellCommand(name: "sql", usage: "SELECT …; (also WITH, VALUES, EXPLAIN, CREATE VIEW, DROP VIEW; lines until ;) | " + SQLCommand.usage,
                    summary: "SQL over every view, SOURCE.RESOURCE, events and saved views (at SEQ SELECT … for the past; .tables, .schema)",
                    example: "SELECT kind, count(*) AS n FROM events GROUP BY 1 ORDER BY n DESC;",
                    run: { (session: Session, args) in try await session.runShared(SQLCommand.self, args, usage: SQLCommand.usage) }),
        ShellCommand(name: "at", usage: "at SEQ COMMAND…", summary: "run a command against the state as of SEQ (time travel)", example: "at 1 shows", run: Commands.at),
        ShellCommand(name: "diff", usage: "diff SEQ1 SEQ2 VIEW", summary: "what changed in a view between two points of the log", example: "diff 1 2 status", run: Commands.diff),
        ShellCommand(name: "quit", usage: "quit", summary: "leave (also exit, or Ctrl-D)", example: "quit", run: { (_: Session, _) in nil }),
    ]

    /// Every name `export` takes, from the registry.
    static var exportList: String { Engine.sources.exportNames.joined(separator: ", ") }

    static let dotCommands: [(String, String, String)] = [
        (".mode table|json|ndjson|line|csv", "how results are printed (as --format)", ".mode json"),
        (".output FILE|stdout", "send results to a file, or back to the terminal", ".output stdout"),
        (".tables [PATTERN]", "the tables SQL reads (as sqlite3's; PATTERN as LIKE)", ".tables"),
        (".schema [TABLE]", "the CREATE statement of every table, or of TABLE (as sqlite3's)", ".schema events"),
        (".timer on|off", "print each command's time (SQL statements' too)", ".timer off"),
        (".pager on|off", "page long results on a terminal through $PAGER (on by default there)", ".pager off"),
    ]

    static var names: [String] { names(in: all) }

    static func names(in table: [ShellCommand]) -> [String] {
        table.map(\.name) + ["exit"] + dotCommands.map { String($0.0.split(separator: " ")[0]) }
    }

    static func find(_ name: String, in table: [ShellCommand] = all) -> ShellCommand? {
        let lookup = name == "exit" ? "quit" : name
        return table.first { $0.name == lookup }
    }
}
