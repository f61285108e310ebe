import FetchlogCore
import FetchlogShell
import FetchlogSources

/// The shell commands of this source (registered by `SeedSources`).
enum TVMazeCommands {
    static func showRecord(_ row: ShowsView.ShowRow) -> JSONValue {
        .object([("id", .number(row.id)), ("name", .string(row.name)), ("premiereYear", .optional(row.premiereYear)),
                 ("rating", .optional(row.rating)), ("genres", .array(row.genres.map(JSONValue.string))),
                 ("image", .optional(row.image.url)), ("imageKind", .string(row.image.kind.rawValue)), ("itemIndex", .number(row.itemIndex))])
    }

    static func shows(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        let arguments = try ShellArguments(args, usage: "shows [--page N] [--genre G]", options: ["page", "genre"])
        _ = try arguments.words(0 ... 0)
        let page = try arguments.int("page", minimum: 1) ?? 1
        try await session.open(.tvmazeShowsPage(0), "shows")
        session.freshnessLine(.tvmazeShowsPage(0), "shows")
        let view = ShowsView(state: session.state)
        let list = arguments["genre"].map { view.withGenre($0) } ?? view.shows
        let (slice, pages) = try Shell.page(list, page, size: Shell.pageSize, noun: arguments["genre"].map { "shows of genre '\($0)'" } ?? "shows")
        if arguments["genre"] == nil, let last = slice.last, !session.isPinned {
            session.policy.didShow(itemIndex: last.itemIndex, of: .shows)
        }
        let rows = slice.map { [String($0.id), $0.name, Shell.text($0.premiereYear), Shell.text($0.rating), $0.genres.joined(separator: ", "), $0.image.kind.rawValue] }
        var footer = "page \(page) of \(pages) · \(list.count) shows"
        if list.isEmpty {
            footer = arguments["genre"].map { genre in
                "no held show has the genre '\(genre)' (genres held: \(Set(view.shows.flatMap(\.genres)).sorted().joined(separator: ", ")))"
            } ?? "no shows held"
        }
        return .table(columns: ["id", "name", "year", "rating", "genres", "image"], rows: rows, records: slice.map(showRecord), footer: footer)
    }

    static func show(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        let id = try Shell.int(try Shell.one(args, "show ID"), "a show id")
        if ShowDetailView(state: session.state, id: id).show == nil { try await session.open(.tvmazeShow(id)) }
        let view = ShowDetailView(state: session.state, id: id)
        guard let show = view.show else { throw ShellError.failed("no show \(id) is held, and it could not be fetched") }
        let pairs: [(String, String)] = [
            ("id", String(show.id)), ("name", show.name), ("premiered", Shell.text(show.premiered)), ("status", Shell.text(show.status)),
            ("rating", Shell.text(show.rating)), ("genres", show.genres.joined(separator: ", ")),
            ("image", imageLine(detailChoice(session, id: id))),
            ("episodes", view.episodes.map { String($0.count) } ?? "not fetched (fetch tvmaze show \(id) --with episodes)"),
            ("summary", show.summaryHTML.map(HTMLText.clean) ?? "-"),
        ]
        return .record(pairs: pairs, json: view.export(asOf: session.state.seq))
    }

    /// The detail image as the fallback rule and the downloads so far choose it.
    static func detailChoice(_ session: any ShellContext, id: Int) -> ImageChoice {
        let state = session.state
        if case .tvmazeImages(let images)? = state.document(.tvmazeImages(id))?.tvmaze {
            return ImageChoice.showDetailImage(images, in: state)
        }
        // The detail image is chosen from the show's image list; without it the choice is
        // not known yet, which is not the same as a show without images.
        return ImageChoice(url: nil, kind: "placeholder", held: false, reason: "not fetched yet (fetch tvmaze show \(id) --with images)")
    }


    static func imageLine(_ choice: ImageChoice) -> String {
        (choice.url ?? (choice.reason.hasPrefix("not fetched") ? "-" : "placeholder")) + " — " + choice.reason + (choice.url == nil ? "" : choice.held ? ", bytes held" : ", bytes not held")
    }

    static func episodes(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        let id = try Shell.int(try Shell.one(args, "episodes ID"), "a show id")
        if ShowDetailView(state: session.state, id: id).episodes == nil { try await session.open(.tvmazeEpisodes(id)) }
        guard let episodes = ShowDetailView(state: session.state, id: id).episodes else {
            throw ShellError.failed("no episodes of show \(id) are held, and they could not be fetched")
        }
        let rows = episodes.map { [Shell.text($0.season), Shell.text($0.number), $0.name, Shell.text($0.airdate), Shell.text($0.runtime)] }
        let records: [JSONValue] = episodes.map {
            .object([("id", .number($0.id)), ("season", .optional($0.season)), ("number", .optional($0.number)),
                     ("name", .string($0.name)), ("airdate", .optional($0.airdate)), ("runtime", .optional($0.runtime))])
        }
        return .table(columns: ["season", "number", "name", "airdate", "runtime"], rows: rows, records: records)
    }

    /// Held show ids, for completing `show ID` and `episodes ID`.
    static let showIDs: @Sendable (LogState, Int) -> [String] = { state, position in
        position == 1 ? ShowsView(state: state).shows.map { String($0.id) } : []
    }

    static let commands: [ShellCommand] = [
        ShellCommand(name: "shows", usage: "shows [--page N] [--genre G]", summary: "TVmaze shows, 20 a page, with the list image", example: "shows --page 1 --genre drama", run: shows),
        ShellCommand(name: "show", usage: "show ID", summary: "one show: details, the detail image, episode count", example: "show 1", complete: showIDs, run: show),
        ShellCommand(name: "episodes", usage: "episodes ID", summary: "a show's episodes", example: "episodes 1", complete: showIDs, run: episodes),
    ]
}
