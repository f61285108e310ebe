import FetchlogCore
import FetchlogShell
import FetchlogSources

/// The shell commands of this source (registered by `SeedSources`).
enum ArticCommands {
    static func artworks(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        let arguments = try ShellArguments(args, usage: "artworks [--page N]", options: ["page"])
        _ = try arguments.words(0 ... 0)
        let page = try arguments.int("page", minimum: 1) ?? 1
        // Whatever --limit the list was fetched with is the one to open and extend.
        let list = ArtworksView.heldList(in: session.state)
        try await session.open(list.page1, "artworks")
        session.freshnessLine(list.page1, "artworks")
        let view = ArtworksView(state: session.state)
        let (slice, pages) = try Shell.page(view.artworks, page, size: Shell.pageSize, noun: "artworks")
        if let last = slice.last, let index = view.artworks.firstIndex(of: last), !session.isPinned {
            session.policy.didShow(itemIndex: index, of: .artworks(limit: list.limit))
        }
        let rows = slice.map { [String($0.id), $0.title, Shell.text($0.artistTitle), Shell.text($0.dateDisplay), $0.imageKind.rawValue] }
        let records: [JSONValue] = slice.map {
            .object([("id", .number($0.id)), ("title", .string($0.title)), ("artist", .optional($0.artistTitle)),
                     ("date", .optional($0.dateDisplay)), ("image", .optional($0.imageURL))])
        }
        return .table(columns: ["id", "title", "artist", "date", "image"], rows: rows, records: records,
                      footer: view.artworks.isEmpty ? "no artworks held" : "page \(page) of \(pages) · \(view.artworks.count) artworks")
    }

    static func artwork(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        let id = try Shell.int(try Shell.one(args, "artwork ID"), "an artwork id")
        if ArtworksView(state: session.state).artwork(id: id) == nil { try await session.open(.articArtwork(id)) }
        guard let a = ArtworksView(state: session.state).artwork(id: id) else { throw ShellError.failed("no artwork \(id) is held, and it could not be fetched") }
        return .record(pairs: [("id", String(a.id)), ("title", a.title), ("artist", Shell.text(a.artistDisplay?.replacingOccurrences(of: "\n", with: " "))),
                               ("date", Shell.text(a.dateDisplay)), ("image", Shell.text(a.imageURL) + " (\(a.imageKind.rawValue))" + (a.imageURL.map { SeedShell.heldNote(session, $0) } ?? ""))],
                       json: .object([("id", .number(a.id)), ("title", .string(a.title)), ("artistId", .optional(a.artistId)),
                                      ("date", .optional(a.dateDisplay)), ("image", .optional(a.imageURL))]))
    }

    static func artist(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        let id = try Shell.int(try Shell.one(args, "artist ID"), "an artist id")
        if ArtistsView(state: session.state).artist(id: id) == nil { try await session.open(.articAgent(id)) }
        guard let a = ArtistsView(state: session.state).artist(id: id) else { throw ShellError.failed("no artist \(id) is held, and it could not be fetched") }
        return .record(pairs: [("id", String(a.id)), ("name", a.title), ("born", Shell.text(a.birthDate)), ("died", Shell.text(a.deathDate)),
                               ("artworks", a.artworkIds.map(String.init).joined(separator: ", ")), ("about", Shell.text(a.description))],
                       json: .object([("id", .number(a.id)), ("title", .string(a.title)), ("birthDate", .optional(a.birthDate)),
                                      ("deathDate", .optional(a.deathDate)), ("artworkIds", .array(a.artworkIds.map { .number($0) }))]))
    }

    static let commands: [ShellCommand] = [
        ShellCommand(name: "artworks", usage: "artworks [--page N]", summary: "ARTIC artworks, 20 a page, with the IIIF image", example: "artworks", run: artworks),
        ShellCommand(name: "artwork", usage: "artwork ID", summary: "one artwork", example: "artwork 4", run: artwork),
        ShellCommand(name: "artist", usage: "artist ID", summary: "one artist (fetched when not held)", example: "artist 2", run: artist),
    ]
}
