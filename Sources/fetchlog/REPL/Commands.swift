import ArgumentParser
import Fetchlog
import Foundation

/// The REPL's commands. Each reads the session's state (a snapshot) and returns output.
enum Commands {
    static let pageSize = 20

    // MARK: Arguments

    /// `--name value` options and the remaining words.
    static func options(_ args: [String], _ names: Set<String>) throws -> (values: [String: String], rest: [String]) {
        var values: [String: String] = [:]
        var rest: [String] = []
        var i = 0
        while i < args.count {
            if args[i].hasPrefix("--") {
                let name = String(args[i].dropFirst(2))
                guard names.contains(name) else {
                    throw CommandError.usage("unknown option --\(name)\(Suggest.didYouMean(name, Array(names)))")
                }
                guard i + 1 < args.count else { throw CommandError.usage("--\(name) needs a value") }
                values[name] = args[i + 1]
                i += 2
            } else {
                rest.append(args[i])
                i += 1
            }
        }
        return (values, rest)
    }

    static func int(_ text: String?, _ what: String) throws -> Int {
        guard let text, let n = Int(text), n >= 0 else { throw CommandError.usage("give \(what) as a number") }
        return n
    }

    static func one(_ args: [String], _ usage: String) throws -> String {
        guard args.count == 1 else { throw CommandError.usage("usage: \(usage)") }
        return args[0]
    }

    static func text(_ value: Double?) -> String { value.map { CanonicalNumber.text($0) } ?? "-" }
    static func text(_ value: Int?) -> String { value.map(String.init) ?? "-" }
    static func text(_ value: String?) -> String { value ?? "-" }

    // MARK: help, sources

    static func help(_ session: Session, _ args: [String]) async throws -> Output? {
        if let name = args.first {
            if let dot = CommandTable.dotCommands.first(where: { $0.0.hasPrefix(name + " ") || $0.0 == name }) {
                return .text("\(dot.0)\n  \(dot.1)\n  example: \(dot.2)")
            }
            guard let spec = CommandTable.find(name) else {
                throw CommandError.usage("no command '\(name)'\(Suggest.didYouMean(name, CommandTable.names)); type help for the list")
            }
            return .text("\(spec.usage)\n  \(spec.summary)\n  example: \(spec.example)")
        }
        var lines = ["Commands (help COMMAND for one; every example works on the demo store):"]
        let width = (CommandTable.all.map(\.name.count) + [12]).max()! + 2
        for spec in CommandTable.all {
            lines.append("  " + Format.padRight(spec.name, width) + spec.summary + "   e.g. " + spec.example)
        }
        for dot in CommandTable.dotCommands {
            let name = String(dot.0.split(separator: " ").first ?? "")
            lines.append("  " + Format.padRight(name, width) + dot.1 + "   e.g. " + dot.2)
        }
        lines.append("Exit status in scripts: 1 a command failed, 64 a command is malformed or unknown.")
        return .text(lines.joined(separator: "\n"))
    }

    static func sources(_ session: Session, _ args: [String]) async throws -> Output? {
        let state = session.state
        var rows: [[String]] = []
        var records: [JSONValue] = []
        for source in Source.dataSources {
            let keys = state.status.keys.filter { $0.source == source.rawValue }
            let held = keys.filter { state.documents[$0] != nil }.count
            let last = keys.compactMap { state.status[$0]?.lastSuccess }.max()
            rows.append([source.rawValue, source.realBase, String(held), last?.iso8601 ?? "never"])
            records.append(.object([("source", .string(source.rawValue)), ("base", .string(source.realBase)),
                                    ("held", .number(held)), ("lastSuccess", .optional(last?.iso8601))]))
        }
        return .table(columns: ["source", "base", "held", "last success"], rows: rows, records: records)
    }

    // MARK: fetch

    static func fetch(_ session: Session, _ args: [String]) async throws -> Output? {
        guard !session.isPinned else { throw CommandError.usage("at SEQ is read-only: fetch cannot run inside it") }
        let command: FetchCommand
        do { command = try FetchCommand.parse(args) } catch {
            throw CommandError.usage(FetchCommand.message(for: error).split(separator: "\n").first.map(String.init) ?? "usage: fetch SOURCE WHAT")
        }
        let printer = FetchPrinter()
        printer.write = { session.emit($0 + "\n") }
        let reports: [FetchReport]
        do { reports = try await command.perform(session.fetcher, printer, policy: session.policy) } catch let error as ValidationError {
            throw CommandError.usage(error.message)
        }
        printer.summary(reports)
        try await session.store.catchUp()
        if !reports.contains(where: \.isUsable) {
            let reason = reports.last.flatMap { report -> String? in
                if case .failed(let failureClass, let message) = report.outcome { return "\(failureClass): \(message)" }
                return nil
            } ?? "nothing was requested"
            throw CommandError.failed("nothing usable came back: \(reason)")
        }
        return nil
    }

    // MARK: TVmaze

    static func showRecord(_ row: ShowsView.ShowRow) -> JSONValue {
        .object([("id", .number(row.id)), ("name", .string(row.name)), ("premiereYear", .optional(row.premiereYear)),
                 ("rating", .optional(row.rating)), ("genres", .array(row.genres.map(JSONValue.string))),
                 ("image", .optional(row.image.url)), ("imageKind", .string(row.image.kind.rawValue)), ("itemIndex", .number(row.itemIndex))])
    }

    static func shows(_ session: Session, _ args: [String]) async throws -> Output? {
        let (options, rest) = try Self.options(args, ["page", "genre"])
        guard rest.isEmpty else { throw CommandError.usage("usage: shows [--page N] [--genre G]") }
        let page = try options["page"].map { try int($0, "--page") } ?? 1
        guard page >= 1 else { throw CommandError.usage("--page counts from 1") }
        try await session.open(.tvmazeShowsPage(0), "shows")
        let view = ShowsView(state: session.state)
        let list = options["genre"].map { view.withGenre($0) } ?? view.shows
        let slice = Array(list.dropFirst((page - 1) * pageSize).prefix(pageSize))
        if options["genre"] == nil, let last = slice.last, !session.isPinned {
            session.policy.didShow(itemIndex: last.itemIndex, of: .shows)
        }
        let rows = slice.map { [String($0.id), $0.name, text($0.premiereYear), text($0.rating), $0.genres.joined(separator: ", "), $0.image.kind.rawValue] }
        let pages = max(1, (list.count + pageSize - 1) / pageSize)
        session.emit(session.renderer.render(.table(columns: ["id", "name", "year", "rating", "genres", "image"], rows: rows, records: slice.map(showRecord))))
        if session.renderer.mode == .table { session.emit("page \(page) of \(pages) · \(list.count) shows\n") }
        session.freshnessLine(.tvmazeShowsPage(0), "shows")
        return nil
    }

    static func show(_ session: Session, _ args: [String]) async throws -> Output? {
        let id = try int(try one(args, "show ID"), "a show id")
        if ShowDetailView(state: session.state, id: id).show == nil { try await session.open(.tvmazeShow(id)) }
        let view = ShowDetailView(state: session.state, id: id)
        guard let show = view.show else { throw CommandError.failed("no show \(id) is held, and it could not be fetched") }
        let pairs: [(String, String)] = [
            ("id", String(show.id)), ("name", show.name), ("premiered", text(show.premiered)), ("status", text(show.status)),
            ("rating", text(show.rating)), ("genres", show.genres.joined(separator: ", ")),
            ("image", imageLine(detailChoice(session, id: id))),
            ("episodes", view.episodes.map { String($0.count) } ?? "not fetched (fetch tvmaze show \(id) --with episodes)"),
            ("summary", show.summaryHTML.map(HTMLText.clean) ?? "-"),
        ]
        return .record(pairs: pairs, json: view.export(asOf: session.state.seq))
    }

    /// The detail image as the fallback rule and the downloads so far choose it.
    static func detailChoice(_ session: Session, id: Int) -> ImageChoice {
        let state = session.state
        if case .tvmazeImages(let images)? = state.document(.tvmazeImages(id))?.document {
            return ImageChoice.showDetailImage(images, in: state)
        }
        var links: TVMazeImageLinks?
        if case .tvmazeShow(let show)? = state.document(.tvmazeShow(id))?.document { links = show.image }
        return ImageChoice.showListImage(links, in: state)
    }

    /// `, bytes held` when the store holds the asset's bytes.
    static func heldNote(_ session: Session, _ url: String) -> String {
        AssetsView(state: session.state).asset(url)?.info != nil ? ", bytes held" : ""
    }

    static func imageLine(_ choice: ImageChoice) -> String {
        (choice.url ?? "placeholder") + " — " + choice.reason + (choice.url == nil ? "" : choice.held ? ", bytes held" : ", bytes not held")
    }

    static func asset(_ session: Session, _ args: [String]) async throws -> Output? {
        guard let verb = args.first, args.count >= 2 else { throw CommandError.usage("usage: asset show URL | asset save URL FILE") }
        let url = args[1]
        let row = AssetsView(state: session.state).asset(url)
        switch verb {
        case "show":
            guard args.count == 2 else { throw CommandError.usage("usage: asset show URL") }
            guard let row else { return .text("\(url): never fetched (fetch asset \(url))") }
            guard let info = row.info else {
                return .text("\(url): not held; \(row.failuresSince) failed attempts, last: \(row.lastError ?? "-")")
            }
            return .record(pairs: [("url", url), ("type", info.format.contentType), ("size", "\(info.size) bytes"), ("sha256", info.sha256),
                                   ("seq", row.seq.map { $0 == 0 ? "this session only" : String($0) } ?? "-")],
                           json: AssetsView(state: session.state).export(asOf: session.state.seq))
        case "save":
            guard args.count == 3 else { throw CommandError.usage("usage: asset save URL FILE") }
            guard let row, row.info != nil, let seq = row.seq else { throw CommandError.failed("the bytes of \(url) are not held: fetch asset \(url)") }
            let bytes: [UInt8]
            if seq == 0 {
                guard let event = session.store.session.events.last(where: { $0.label == url && $0.kind == .fetched }), let body = event.body else {
                    throw CommandError.failed("the bytes of \(url) are not held")
                }
                bytes = body
            } else {
                guard let body = try session.log.event(at: seq)?.body else { throw CommandError.failed("event \(seq) has no body") }
                bytes = body
            }
            do { try Data(bytes).write(to: URL(fileURLWithPath: args[2])) } catch {
                throw CommandError.failed("cannot write \(args[2]): \(error.localizedDescription)")
            }
            return .text("wrote \(bytes.count) bytes (sha256 \(SHA256.hex(bytes))) to \(args[2])")
        default:
            throw CommandError.usage("usage: asset show URL | asset save URL FILE")
        }
    }

    static func episodes(_ session: Session, _ args: [String]) async throws -> Output? {
        let id = try int(try one(args, "episodes ID"), "a show id")
        if ShowDetailView(state: session.state, id: id).episodes == nil { try await session.open(.tvmazeEpisodes(id)) }
        guard let episodes = ShowDetailView(state: session.state, id: id).episodes else {
            throw CommandError.failed("no episodes of show \(id) are held, and they could not be fetched")
        }
        let rows = episodes.map { [text($0.season), text($0.number), $0.name, text($0.airdate), text($0.runtime)] }
        let records: [JSONValue] = episodes.map {
            .object([("id", .number($0.id)), ("season", .optional($0.season)), ("number", .optional($0.number)),
                     ("name", .string($0.name)), ("airdate", .optional($0.airdate)), ("runtime", .optional($0.runtime))])
        }
        return .table(columns: ["season", "number", "name", "airdate", "runtime"], rows: rows, records: records)
    }

    static func search(_ session: Session, _ args: [String]) async throws -> Output? {
        guard args.count >= 2, ["shows", "podcasts"].contains(args[0]) else { throw CommandError.usage("usage: search shows|podcasts TEXT") }
        let text = args.dropFirst().joined(separator: " ")
        if args[0] == "shows" {
            if !session.isPinned && SearchView(state: session.state).shows(text) == nil { _ = try await session.policy.searchShows(text) }
            guard let found = SearchView(state: session.state).shows(text) else { throw CommandError.failed("no results held for '\(text)', and the search could not be fetched") }
            let rows = found.results.map { [CanonicalNumber.text(($0.score * 1000).rounded() / 1000), String($0.id), $0.name, Self.text($0.premiereYear)] }
            let records: [JSONValue] = found.results.map {
                .object([("score", .number($0.score)), ("id", .number($0.id)), ("name", .string($0.name)), ("premiereYear", .optional($0.premiereYear))])
            }
            return .table(columns: ["score", "id", "name", "year"], rows: rows, records: records)
        }
        if !session.isPinned && SearchView(state: session.state).podcasts(text) == nil { _ = try await session.policy.searchPodcasts(text) }
        guard let found = SearchView(state: session.state).podcasts(text) else { throw CommandError.failed("no results held for '\(text)', and the search could not be fetched") }
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

    // MARK: Brastlewark

    static func gnomeRecord(_ g: GnomeRow) -> JSONValue {
        .object([("id", .number(g.id)), ("name", .string(g.name)), ("age", .number(g.age)), ("weight", .number(g.weight)),
                 ("height", .number(g.height)), ("hairColor", .string(g.hairColor)),
                 ("professions", .array(g.professions.map(JSONValue.string))), ("friends", .array(g.friends.map(JSONValue.string)))])
    }

    static func gnomes(_ session: Session, _ args: [String]) async throws -> Output? {
        try await session.open(.brastlewarkCensus, "census")
        // Every match by default (the census is small); --limit N and --page N cut it.
        let (options, words) = try Self.options(args, ["limit", "page"])
        let limit = try options["limit"].map { try int($0, "--limit") } ?? (options["page"] == nil ? nil : pageSize)
        let page = try options["page"].map { try int($0, "--page") } ?? 1
        guard page >= 1 else { throw CommandError.usage("--page counts from 1") }
        guard limit != 0 else { throw CommandError.usage("--limit must be at least 1") }
        let view = FiltersView(state: session.state)
        let text = words.joined(separator: " ")
        let list = view.filtered(search: text.isEmpty ? nil : text)
        let shown = limit.map { Array(list.dropFirst((page - 1) * $0).prefix($0)) } ?? list
        let rows = shown.map { [String($0.id), $0.name, String($0.age), $0.hairColor, $0.professions.joined(separator: ", "), String($0.friendCount)] }
        session.emit(session.renderer.render(.table(columns: ["id", "name", "age", "hair", "professions", "friends"], rows: rows, records: shown.map(gnomeRecord))))
        if session.renderer.mode == .table {
            var footer = "\(list.count) gnomes"
            if let limit {
                let pages = max(1, (list.count + limit - 1) / limit)
                footer = "page \(page) of \(pages) · " + footer
            }
            session.emit(footer + (view.active.isEmpty ? "" : " (filter: \(filterText(view.active)))") + "\n")
        }
        session.freshnessLine(.brastlewarkCensus, "census")
        return nil
    }

    static func findGnome(_ session: Session, _ word: String) throws -> GnomeRow {
        let view = GnomesView(state: session.state)
        if view.count == 0 { throw CommandError.failed("no census is held: fetch brastlewark census") }
        if let id = Int(word) {
            guard let gnome = view.gnome(id: id) else { throw CommandError.failed("no gnome with id \(id) (ids run 0…\(view.count - 1))") }
            return gnome
        }
        guard let gnome = view.gnome(named: word) else {
            let near = view.search(word).prefix(3).map(\.name)
            throw CommandError.failed("no gnome named '\(word)'" + (near.isEmpty ? "" : " (did you mean \(near.map { "'\($0)'" }.joined(separator: ", "))?)"))
        }
        return gnome
    }

    static func gnome(_ session: Session, _ args: [String]) async throws -> Output? {
        guard !args.isEmpty else { throw CommandError.usage("usage: gnome NAME|ID") }
        try await session.open(.brastlewarkCensus, "census")
        let g = try findGnome(session, args.joined(separator: " "))
        return .record(pairs: [
            ("id", String(g.id)), ("name", g.name), ("age", String(g.age)), ("weight", CanonicalNumber.text(g.weight)),
            ("height", CanonicalNumber.text(g.height)), ("hair", g.hairColor), ("professions", g.professions.joined(separator: ", ")),
            ("friends", g.friends.joined(separator: ", ")), ("thumbnail", g.thumbnail + heldNote(session, g.thumbnail)),
        ], json: gnomeRecord(g))
    }

    static func filterText(_ f: GnomeFilter) -> String {
        var parts: [String] = []
        if let v = f.name { parts.append("name=\(v)") }
        if let v = f.hairColor { parts.append("hair_color=\(v)") }
        if let v = f.profession { parts.append("profession=\(v)") }
        func range<T>(_ name: String, _ a: T?, _ b: T?) {
            if a != nil || b != nil { parts.append("\(name)=\(a.map { "\($0)" } ?? "")-\(b.map { "\($0)" } ?? "")") }
        }
        range("age", f.ageMin, f.ageMax)
        range("weight", f.weightMin.map(CanonicalNumber.text), f.weightMax.map(CanonicalNumber.text))
        range("height", f.heightMin.map(CanonicalNumber.text), f.heightMax.map(CanonicalNumber.text))
        range("friends", f.friendsMin, f.friendsMax)
        return parts.isEmpty ? "none" : parts.joined(separator: " ")
    }

    static func filter(_ session: Session, _ args: [String]) async throws -> Output? {
        guard let verb = args.first else { throw CommandError.usage("usage: filter show | set FIELD=VALUE… | reset") }
        switch verb {
        case "show":
            let view = FiltersView(state: session.state)
            let a = view.available
            return .record(pairs: [
                ("active", filterText(view.active)), ("matching", String(view.matching.count)),
                ("age", "\(text(a.age.min))-\(text(a.age.max))"), ("weight", "\(text(a.weight.min))-\(text(a.weight.max))"),
                ("height", "\(text(a.height.min))-\(text(a.height.max))"), ("friends", "\(text(a.friends.min))-\(text(a.friends.max))"),
                ("hair colours", a.hairColors.joined(separator: ", ")), ("professions", a.professions.joined(separator: ", ")),
            ], json: view.export(asOf: session.state.seq))
        case "reset":
            guard !session.isPinned else { throw CommandError.usage("at SEQ is read-only") }
            try await session.store.resetGnomeFilter()
            return .text("filter reset (\(FiltersView(state: session.state).matching.count) gnomes)")
        case "set":
            guard !session.isPinned else { throw CommandError.usage("at SEQ is read-only") }
            guard args.count > 1 else { throw CommandError.usage("usage: filter set FIELD=VALUE… (hair_color, profession, name, age, weight, height, friends)") }
            var f = FiltersView(state: session.state).active
            for assignment in args.dropFirst() {
                let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw CommandError.usage("'\(assignment)' is not FIELD=VALUE") }
                let (field, value) = (parts[0], parts[1])
                func bounds<T: LosslessStringConvertible>(_ type: T.Type) throws -> (T?, T?) {
                    let ends = value.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                    if ends.count == 1, let v = T(ends[0]) { return (v, v) }
                    guard ends.count == 2 else { throw CommandError.usage("\(field) takes MIN-MAX, not '\(value)'") }
                    let lo = ends[0].isEmpty ? nil : T(ends[0]), hi = ends[1].isEmpty ? nil : T(ends[1])
                    if (!ends[0].isEmpty && lo == nil) || (!ends[1].isEmpty && hi == nil) { throw CommandError.usage("\(field) takes MIN-MAX, not '\(value)'") }
                    return (lo, hi)
                }
                switch field {
                case "hair_color", "hair": f.hairColor = value
                case "profession": f.profession = value
                case "name": f.name = value
                case "age": (f.ageMin, f.ageMax) = try bounds(Int.self)
                case "weight": (f.weightMin, f.weightMax) = try bounds(Double.self)
                case "height": (f.heightMin, f.heightMax) = try bounds(Double.self)
                case "friends": (f.friendsMin, f.friendsMax) = try bounds(Int.self)
                default:
                    throw CommandError.usage("no filter field '\(field)'\(Suggest.didYouMean(field, ["hair_color", "profession", "name", "age", "weight", "height", "friends"])); type help filter")
                }
            }
            try await session.store.setGnomeFilter(f)
            return .text("filter set: \(filterText(f)) (\(FiltersView(state: session.state).matching.count) gnomes)")
        default:
            throw CommandError.usage("usage: filter show | set FIELD=VALUE… | reset")
        }
    }

    static func friends(_ session: Session, _ args: [String]) async throws -> Output? {
        guard !args.isEmpty else { throw CommandError.usage("usage: friends NAME|ID") }
        try await session.open(.brastlewarkCensus, "census")
        let g = try findGnome(session, args.joined(separator: " "))
        let view = FriendsView(state: session.state)
        let names = Dictionary(uniqueKeysWithValues: GnomesView(state: session.state).gnomes.map { ($0.id, $0.name) })
        guard let entry = view.entry(id: g.id) else { throw CommandError.failed("gnome \(g.id) has no friends entry") }
        var rows: [[String]] = []
        var records: [JSONValue] = []
        for id in entry.friends {
            rows.append([String(id), names[id] ?? "?", "listed by \(g.name)"])
            records.append(.object([("id", .number(id)), ("name", .string(names[id] ?? "")), ("relation", .string("friend"))]))
        }
        for id in entry.listedBy {
            rows.append([String(id), names[id] ?? "?", "lists \(g.name)"])
            records.append(.object([("id", .number(id)), ("name", .string(names[id] ?? "")), ("relation", .string("listed-by"))]))
        }
        for name in entry.unknownFriends {
            rows.append(["-", name, "matches no gnome"])
            records.append(.object([("id", .null), ("name", .string(name)), ("relation", .string("unknown"))]))
        }
        return .table(columns: ["id", "name", "relation"], rows: rows, records: records)
    }

    static func path(_ session: Session, _ args: [String]) async throws -> Output? {
        guard args.count == 2 else { throw CommandError.usage("usage: path A B (names with spaces in quotes)") }
        try await session.open(.brastlewarkCensus, "census")
        let a = try findGnome(session, args[0]), b = try findGnome(session, args[1])
        let names = Dictionary(uniqueKeysWithValues: GnomesView(state: session.state).gnomes.map { ($0.id, $0.name) })
        guard let chain = FriendsView(state: session.state).path(from: a.id, to: b.id) else {
            throw CommandError.failed("\(a.name) and \(b.name) are not connected by any chain of friends")
        }
        let steps = chain.count - 1
        let text = chain.map { "\(names[$0] ?? "?") (\($0))" }.joined(separator: " → ")
        return .record(pairs: [("path", text), ("steps", String(steps))],
                       json: .object([("path", .array(chain.map { .number($0) })), ("steps", .number(steps))]))
    }

    // MARK: Viaplay, Thmanyah

    static func pages(_ session: Session, _ args: [String]) async throws -> Output? {
        try await session.open(.viaplayRoot, "pages")
        let view = PagesView(state: session.state)
        let rows = view.pages.map { [$0.path, text($0.title), text($0.pageType), String($0.sections.count), String($0.blocks.count)] }
        let records: [JSONValue] = view.pages.map {
            .object([("path", .string($0.path)), ("title", .optional($0.title)), ("pageType", .optional($0.pageType)),
                     ("sections", .number($0.sections.count)), ("blocks", .number($0.blocks.count))])
        }
        session.emit(session.renderer.render(.table(columns: ["path", "title", "type", "sections", "blocks"], rows: rows, records: records)))
        session.freshnessLine(.viaplayRoot, "pages")
        return nil
    }

    static func page(_ session: Session, _ args: [String]) async throws -> Output? {
        let href = try one(args, "page HREF")
        guard let resource = Resource.viaplayPage(href, upstream: session.fetcher.configuration.upstream) else {
            throw CommandError.usage("'\(href)' is not a viaplay page: give a path (/ios-se) or a content.viaplay URL")
        }
        if PagesView(state: session.state).page(path: resource.path) == nil { try await session.open(resource) }
        guard let page = PagesView(state: session.state).page(path: resource.path) else {
            throw CommandError.failed("page \(resource.path) is not held, and it could not be fetched")
        }
        var lines = ["\(page.title ?? page.path)" + (page.pageType.map { " (\($0))" } ?? "")]
        if let description = page.description { lines.append(description) }
        for section in page.sections { lines.append("  section  \(section.title)  \(section.href)") }
        for block in page.blocks {
            lines.append("  block    \(block.title ?? block.type ?? "-")  \(block.products.count) products")
            for product in block.products.prefix(5) { lines.append("           · \(product.title ?? "-")" + (product.year.map { " (\($0))" } ?? "")) }
        }
        return .text(lines.joined(separator: "\n"))
    }

    static func sections(_ session: Session, _ args: [String]) async throws -> Output? {
        try await session.open(.thmanyahHome(1), "sections")
        let view = SectionsView(state: session.state)
        let rows = view.sections.map { s -> [String] in
            let (type, rawType) = SectionsView.typeNames(s.type)
            let (content, rawContent) = SectionsView.contentTypeNames(s.contentType)
            return [String(s.order), s.name, rawType.map { "\(type) (\($0))" } ?? type, rawContent.map { "\(content) (\($0))" } ?? content, String(s.items.count)]
        }
        let records: [JSONValue] = view.sections.map { s in
            .object([("order", .number(s.order)), ("name", .string(s.name)), ("type", .string(SectionsView.typeNames(s.type).0)),
                     ("contentType", .string(SectionsView.contentTypeNames(s.contentType).0)), ("items", .number(s.items.count))])
        }
        session.emit(session.renderer.render(.table(columns: ["order", "name", "type", "content", "items"], rows: rows, records: records)))
        session.freshnessLine(.thmanyahHome(1), "sections")
        return nil
    }

    static func home(_ session: Session, _ args: [String]) async throws -> Output? {
        try await session.open(.thmanyahHome(1), "sections")
        var rows: [[String]] = []
        var records: [JSONValue] = []
        for section in SectionsView(state: session.state).sections {
            for item in section.items {
                rows.append([section.name, item.name, item.duration.map { "\($0 / 60) min" } ?? "-"])
                records.append(.object([("section", .string(section.name)), ("id", .string(item.id)), ("name", .string(item.name)),
                                        ("duration", .optional(item.duration))]))
            }
        }
        session.emit(session.renderer.render(.table(columns: ["section", "item", "duration"], rows: rows, records: records)))
        session.freshnessLine(.thmanyahHome(1), "sections")
        return nil
    }

    // MARK: ARTIC

    static func artworks(_ session: Session, _ args: [String]) async throws -> Output? {
        let (options, rest) = try Self.options(args, ["page"])
        guard rest.isEmpty else { throw CommandError.usage("usage: artworks [--page N]") }
        let page = try options["page"].map { try int($0, "--page") } ?? 1
        guard page >= 1 else { throw CommandError.usage("--page counts from 1") }
        try await session.open(.articArtworks(page: 1, limit: 12), "artworks")
        let view = ArtworksView(state: session.state)
        let slice = Array(view.artworks.dropFirst((page - 1) * pageSize).prefix(pageSize))
        if let last = slice.last, let index = view.artworks.firstIndex(of: last), !session.isPinned {
            session.policy.didShow(itemIndex: index, of: .artworks(limit: 12))
        }
        let rows = slice.map { [String($0.id), $0.title, text($0.artistTitle), text($0.dateDisplay), $0.imageKind.rawValue] }
        let records: [JSONValue] = slice.map {
            .object([("id", .number($0.id)), ("title", .string($0.title)), ("artist", .optional($0.artistTitle)),
                     ("date", .optional($0.dateDisplay)), ("image", .optional($0.imageURL))])
        }
        session.emit(session.renderer.render(.table(columns: ["id", "title", "artist", "date", "image"], rows: rows, records: records)))
        session.freshnessLine(.articArtworks(page: 1, limit: 12), "artworks")
        return nil
    }

    static func artwork(_ session: Session, _ args: [String]) async throws -> Output? {
        let id = try int(try one(args, "artwork ID"), "an artwork id")
        if ArtworksView(state: session.state).artwork(id: id) == nil { try await session.open(.articArtwork(id)) }
        guard let a = ArtworksView(state: session.state).artwork(id: id) else { throw CommandError.failed("no artwork \(id) is held, and it could not be fetched") }
        return .record(pairs: [("id", String(a.id)), ("title", a.title), ("artist", text(a.artistDisplay?.replacingOccurrences(of: "\n", with: " "))),
                               ("date", text(a.dateDisplay)), ("image", text(a.imageURL) + " (\(a.imageKind.rawValue))" + (a.imageURL.map { heldNote(session, $0) } ?? ""))],
                       json: .object([("id", .number(a.id)), ("title", .string(a.title)), ("artistId", .optional(a.artistId)),
                                      ("date", .optional(a.dateDisplay)), ("image", .optional(a.imageURL))]))
    }

    static func artist(_ session: Session, _ args: [String]) async throws -> Output? {
        let id = try int(try one(args, "artist ID"), "an artist id")
        if ArtistsView(state: session.state).artist(id: id) == nil { try await session.open(.articAgent(id)) }
        guard let a = ArtistsView(state: session.state).artist(id: id) else { throw CommandError.failed("no artist \(id) is held, and it could not be fetched") }
        return .record(pairs: [("id", String(a.id)), ("name", a.title), ("born", text(a.birthDate)), ("died", text(a.deathDate)),
                               ("artworks", a.artworkIds.map(String.init).joined(separator: ", ")), ("about", text(a.description))],
                       json: .object([("id", .number(a.id)), ("title", .string(a.title)), ("birthDate", .optional(a.birthDate)),
                                      ("deathDate", .optional(a.deathDate)), ("artworkIds", .array(a.artworkIds.map { .number($0) }))]))
    }

    // MARK: status, log, replay, export, at, diff

    static func status(_ session: Session, _ args: [String]) async throws -> Output? {
        let report = FreshnessReport(state: session.state, policy: session.policy.policy, now: session.clock.now())
        var rows: [[String]] = []
        for row in report.rows {
            var level = row.levelText
            if let resource = Resource.from(source: row.key.source, label: row.key.path), session.policy.isRevalidating(resource) {
                level += ", revalidating"
            }
            rows.append([row.key.description, level, report.age(of: row.lastSuccess), row.currentError ?? "-"])
        }
        let records = report.rows.map(\.json)
        return .table(columns: ["resource", "freshness", "last success", "last error"], rows: rows, records: records)
    }

    static func log(_ session: Session, _ args: [String]) async throws -> Output? {
        let log = session.log
        let out = OutputBuffer(collect: true)
        switch args.first {
        case "tail":
            let n = try args.count > 1 ? int(args[1], "a count") : 10
            for event in try log.tail(n) { out.line(Format.tailLine(event)) }
        case "show":
            let seq = try int(args.count > 1 ? args[1] : nil, "a seq")
            guard let event = try log.event(at: UInt64(seq)) else {
                throw CommandError.failed("no event \(seq): the log holds 1…\(try log.lastSeq())")
            }
            LogRendering.show(event, into: out)
        case "stats": LogRendering.stats(try log.statistics(), log: log, into: out)
        case "verify":
            let report = try log.verify()
            guard report.isHealthy else { throw CommandError.failed("damaged: first bad seq \(report.problems[0].seq): \(report.problems[0].reason)") }
            out.line("ok: \(report.checked) events, seq 1…\(report.lastSeq), every checksum valid")
        default:
            throw CommandError.usage("usage: log tail [N] | show SEQ | stats | verify")
        }
        return .text(out.collected)
    }

    static func replay(_ session: Session, _ args: [String]) async throws -> Output? {
        let replayed = try Store.replay(session.log).state
        let live = session.store.durableState
        let liveHashes = Dictionary(uniqueKeysWithValues: ViewCatalog.hashes(of: live).map { ($0.view, $0.sha256) })
        var rows: [[String]] = []
        var records: [JSONValue] = []
        for (view, hash) in ViewCatalog.hashes(of: replayed) {
            let same = liveHashes[view] == hash
            rows.append([view, String(hash.prefix(16)), same ? "same" : "DIFFERS"])
            records.append(.object([("view", .string(view)), ("sha256", .string(hash)), ("matchesLive", .bool(same))]))
        }
        return .table(columns: ["view", "sha256", "live"], rows: rows, records: records)
    }

    static func export(_ session: Session, _ args: [String]) async throws -> Output? {
        guard (1 ... 2).contains(args.count) else { throw CommandError.usage("usage: export VIEW [FILE]") }
        let json: JSONValue
        do { json = try ViewCatalog.export(args[0], state: session.state) } catch { throw CommandError.failed(error.description) }
        guard args.count == 2 else { return .json(json) }
        do { try (json.canonicalText() + "\n").write(toFile: args[1], atomically: true, encoding: .utf8) } catch {
            throw CommandError.failed("cannot write \(args[1]): \(error.localizedDescription)")
        }
        return .text("wrote \(args[0]) (seq \(session.state.seq)) to \(args[1])")
    }

    static func at(_ session: Session, _ args: [String]) async throws -> Output? {
        guard args.count >= 2, let seq = UInt64(args[0]) else { throw CommandError.usage("usage: at SEQ COMMAND…") }
        guard args[1] != "at" else { throw CommandError.usage("at cannot nest") }
        return try await session.pinned(at: seq) { try await session.run(args[1], Array(args.dropFirst(2))) }
    }

    static func diff(_ session: Session, _ args: [String]) async throws -> Output? {
        guard args.count == 3, let a = UInt64(args[0]), let b = UInt64(args[1]) else { throw CommandError.usage("usage: diff SEQ1 SEQ2 VIEW") }
        let last = try session.log.lastSeq()
        for seq in [a, b] where seq > last { throw CommandError.failed("seq \(seq) is past the end of the log (the last is \(last))") }
        let before: JSONValue, after: JSONValue
        do {
            before = try ViewCatalog.export(args[2], state: try Store.replay(session.log, to: a).state)
            after = try ViewCatalog.export(args[2], state: try Store.replay(session.log, to: b).state)
        } catch let error as ViewNameError { throw CommandError.failed(error.description) }
        var changes: [(String, String, String)] = []
        JSONDiff.compare(before, after, path: "", into: &changes)
        changes.removeAll { $0.0 == "/asOf" }
        if changes.isEmpty { return .text("no change in \(args[2]) between seq \(a) and \(b)") }
        let shown = changes.prefix(50)
        var rows = shown.map { [$0.0, $0.1, $0.2] }
        if changes.count > 50 { rows.append(["… \(changes.count - 50) more", "", ""]) }
        let records: [JSONValue] = shown.map { .object([("path", .string($0.0)), ("before", .string($0.1)), ("after", .string($0.2))]) }
        return .table(columns: ["path", "seq \(a)", "seq \(b)"], rows: rows, records: records)
    }
}

/// Differences between two JSON values, as JSON-pointer paths with short before/after text.
enum JSONDiff {
    static func compare(_ a: JSONValue, _ b: JSONValue, path: String, into changes: inout [(String, String, String)]) {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            let keys = Set(x.map(\.0)).union(y.map(\.0)).sorted()
            for key in keys {
                let va = x.first { $0.0 == key }?.1, vb = y.first { $0.0 == key }?.1
                let p = path + "/" + key
                switch (va, vb) {
                case let (va?, vb?): compare(va, vb, path: p, into: &changes)
                case let (va?, nil): changes.append((p, short(va), "(absent)"))
                case let (nil, vb?): changes.append((p, "(absent)", short(vb)))
                default: break
                }
            }
        case (.array(let x), .array(let y)):
            for i in 0 ..< max(x.count, y.count) {
                let p = path + "/" + String(i)
                if i < x.count && i < y.count { compare(x[i], y[i], path: p, into: &changes) }
                else if i < x.count { changes.append((p, short(x[i]), "(absent)")) }
                else { changes.append((p, "(absent)", short(y[i]))) }
            }
        default:
            if a != b { changes.append((path.isEmpty ? "/" : path, short(a), short(b))) }
        }
    }

    static func short(_ v: JSONValue) -> String {
        let text = v.canonicalText()
        return text.count > 60 ? String(text.prefix(59)) + "…" : text
    }
}
