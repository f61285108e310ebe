import FetchlogCore
import FetchlogShell
import FetchlogSources

/// The shell commands of this source (registered by `SeedSources`).
enum SearchCommand {
    static func search(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        guard args.count >= 2, ["shows", "podcasts"].contains(args[0]) else {
            throw ShellError.usage((args.first.map { "search has no '\($0)'\(Suggest.didYouMean($0, ["shows", "podcasts"]))\n" } ?? "") + "usage: search shows|podcasts TEXT")
        }
        let text = args.dropFirst().joined(separator: " ")
        if args[0] == "shows" {
            if !session.isPinned && SearchView(state: session.state).shows(text) == nil { _ = try await session.policy.searchShows(text) }
            guard let found = SearchView(state: session.state).shows(text) else { throw ShellError.failed("no results held for '\(text)', and the search could not be fetched") }
            let rows = found.results.map { [CanonicalNumber.text(($0.score * 1000).rounded() / 1000), String($0.id), $0.name, Shell.text($0.premiereYear)] }
            let records: [JSONValue] = found.results.map {
                .object([("score", .number($0.score)), ("id", .number($0.id)), ("name", .string($0.name)), ("premiereYear", .optional($0.premiereYear))])
            }
            return .table(columns: ["score", "id", "name", "year"], rows: rows, records: records)
        }
        if !session.isPinned && SearchView(state: session.state).podcasts(text) == nil { _ = try await session.policy.searchPodcasts(text) }
        guard let found = SearchView(state: session.state).podcasts(text) else { throw ShellError.failed("no results held for '\(text)', and the search could not be fetched") }
        var rows: [[String]] = []
        var records: [JSONValue] = []
        for section in found.sections {
            for item in section.items {
                rows.append([section.name, item.id, item.name])
                records.append(.object([("section", .string(section.name)), ("id", .string(item.id)), ("name", .string(item.name))]))
            }
        }
        return .table(columns: ["section", "id", "name"], rows: rows, records: records)
    }

    static let commands: [ShellCommand] = [
        ShellCommand(name: "search", usage: "search shows|podcasts TEXT", summary: "TVmaze show search or Thmanyah podcast search", example: "search shows girls", complete: { _, position in position == 1 ? ["shows", "podcasts"] : [] }, run: search),
    ]
}
