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

enum CommandTable {
    static let all: [CommandSpec] = [
        CommandSpec(name: "help", usage: "help [COMMAND]", summary: "list every command, or explain one", example: "help shows", run: Commands.help),
        CommandSpec(name: "sources", usage: "sources", summary: "the five sources: base URL, resources held, last success", example: "sources", run: Commands.sources),
        CommandSpec(name: "fetch", usage: "fetch SOURCE WHAT [ARGS] [--pages A-B|all] [--limit N] [--with images,episodes] [--concurrency N]",
                    summary: "fetch from upstream; every attempt becomes an event", example: "fetch tvmaze show 1", run: Commands.fetch),
        CommandSpec(name: "shows", usage: "shows [--page N] [--genre G]", summary: "TVmaze shows, 20 a page, with the list image", example: "shows --page 1 --genre drama", run: Commands.shows),
        CommandSpec(name: "show", usage: "show ID", summary: "one show: details, the detail image, episode count", example: "show 1", run: Commands.show),
        CommandSpec(name: "episodes", usage: "episodes ID", summary: "a show's episodes", example: "episodes 1", run: Commands.episodes),
        CommandSpec(name: "search", usage: "search shows|podcasts TEXT", summary: "TVmaze show search or Thmanyah podcast search", example: "search shows girls", run: Commands.search),
        CommandSpec(name: "gnomes", usage: "gnomes [--limit N] [--page N] [TEXT]", summary: "the census (active filter ∧ search by name, hair colour, profession)", example: "gnomes tinker", run: Commands.gnomes),
        CommandSpec(name: "gnome", usage: "gnome NAME|ID", summary: "one gnome", example: "gnome 0", run: Commands.gnome),
        CommandSpec(name: "filter", usage: "filter show | set FIELD=VALUE… | reset",
                    summary: "the gnome filter: hair_color, profession, name, age, weight, height, friends (ranges as MIN-MAX)",
                    example: "filter set hair_color=pink profession=tinker", run: Commands.filter),
        CommandSpec(name: "friends", usage: "friends NAME|ID", summary: "a gnome's friends, who lists them, unknown names", example: "friends 0", run: Commands.friends),
        CommandSpec(name: "path", usage: "path A B", summary: "the shortest chain of friends between two gnomes (names or ids)", example: "path 0 237", run: Commands.path),
        CommandSpec(name: "pages", usage: "pages", summary: "Viaplay pages held", example: "pages", run: Commands.pages),
        CommandSpec(name: "page", usage: "page HREF", summary: "one Viaplay page (fetched when not held)", example: "page /ios-se", run: Commands.page),
        CommandSpec(name: "sections", usage: "sections", summary: "Thmanyah home sections in order", example: "sections", run: Commands.sections),
        CommandSpec(name: "home", usage: "home", summary: "the items of every Thmanyah home section", example: "home", run: Commands.home),
        CommandSpec(name: "artworks", usage: "artworks [--page N]", summary: "ARTIC artworks, 20 a page, with the IIIF image", example: "artworks", run: Commands.artworks),
        CommandSpec(name: "artwork", usage: "artwork ID", summary: "one artwork", example: "artwork 4", run: Commands.artwork),
        CommandSpec(name: "artist", usage: "artist ID", summary: "one artist (fetched when not held)", example: "artist 2", run: Commands.artist),
        CommandSpec(name: "asset", usage: "asset show URL | asset save URL FILE [--force]", summary: "an image held in the store: its reference, or its bytes written out (--force replaces a file)",
                    example: "asset show https://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg", run: Commands.asset),
        CommandSpec(name: "status", usage: "status", summary: "every resource: freshness, last success, last error", example: "status", run: Commands.status),
        CommandSpec(name: "log", usage: LogCommand.usage, summary: "the event log (as `fetchlog log …`; log tail 3 and log tail -n 3 alike)", example: "log tail 3", run: Commands.log),
        CommandSpec(name: "replay", usage: ReplayCommand.usage, summary: "rebuild every view from the log; each view's events and hash (--verify: against the live state)", example: "replay --verify", run: Commands.replay),
        CommandSpec(name: "export", usage: ExportCommand.usage, summary: "a view as canonical JSON (shows, show/ID, gnomes, filters, friends, pages, sections, artworks, artists, assets, search, status, all)",
                    example: "export filters", run: Commands.export),
        CommandSpec(name: "at", usage: "at SEQ COMMAND…", summary: "run a command against the state as of SEQ (time travel)", example: "at 1 shows", run: Commands.at),
        CommandSpec(name: "diff", usage: "diff SEQ1 SEQ2 VIEW", summary: "what changed in a view between two points of the log", example: "diff 1 2 status", run: Commands.diff),
        CommandSpec(name: "quit", usage: "quit", summary: "leave (also exit, or Ctrl-D)", example: "quit", run: { _, _ in nil }),
    ]

    static let dotCommands: [(String, String, String)] = [
        (".mode table|json|ndjson|line|csv", "how results are printed (as --format)", ".mode json"),
        (".output FILE|stdout", "send results to a file, or back to the terminal", ".output stdout"),
        (".timer on|off", "print each command's time", ".timer off"),
        (".pager on|off", "page long results on a terminal through $PAGER (on by default there)", ".pager off"),
    ]

    static var names: [String] { all.map(\.name) + ["exit"] + dotCommands.map { String($0.0.split(separator: " ")[0]) } }

    static func find(_ name: String) -> CommandSpec? {
        let lookup = name == "exit" ? "quit" : name
        return all.first { $0.name == lookup }
    }
}
