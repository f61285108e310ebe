import ArgumentParser
import FetchlogCore
import FetchlogSources
import Foundation

/// The REPL's commands. Each reads the session's state (a snapshot) and returns output.
enum Commands {
    static let pageSize = 20

    // MARK: Arguments

    static func int(_ text: String?, _ what: String) throws -> Int {
        guard let text, let n = Int(text), n >= 0 else { throw CommandError.usage("give \(what) as a number") }
        return n
    }

    static func one(_ args: [String], _ usage: String) throws -> String {
        try Arguments(args, usage: usage).words(1 ... 1)[0]
    }

    /// Refuses any word or option: for commands that take none.
    static func none(_ args: [String], _ usage: String) throws {
        _ = try Arguments(args, usage: usage).words(0 ... 0)
    }

    /// The slice of `list` on page `page` of `size`; a page past the end is an error
    /// naming how many there are (an empty list has one, empty, page).
    static func page<T>(_ list: [T], _ page: Int, size: Int, noun: String) throws -> (slice: [T], pages: Int) {
        // Written so that any size and page a user can type (up to Int.max) cannot overflow.
        let pages = list.isEmpty ? 1 : (list.count - 1) / size + 1
        guard page <= pages else {
            throw CommandError.failed("no page \(page): \(list.count) \(noun) make \(pages) page\(pages == 1 ? "" : "s") of \(size)")
        }
        return (Array(list.dropFirst((page - 1) * size).prefix(size)), pages)
    }

    static func text(_ value: Double?) -> String { value.map { CanonicalNumber.text($0) } ?? "-" }
    static func text(_ value: Int?) -> String { value.map(String.init) ?? "-" }
    static func text(_ value: String?) -> String { value ?? "-" }

    // MARK: help, sources

    static func help(_ session: Session, _ args: [String]) async throws -> Output? {
        if let name = args.first {
            guard args.count == 1 else { throw CommandError.usage("usage: help [COMMAND]") }
            if let dot = CommandTable.dotCommands.first(where: { $0.0.hasPrefix(name + " ") || $0.0 == name }) {
                return .message("\(dot.0)\n  \(dot.1)\n  example: \(dot.2)",
                                json: .object([("name", .string(name)), ("usage", .string(dot.0)), ("summary", .string(dot.1)), ("example", .string(dot.2))]))
            }
            guard let spec = CommandTable.find(name) else {
                throw CommandError.usage("no command '\(name)'\(Suggest.didYouMean(name, CommandTable.names)); type help for the list")
            }
            return .message("\(spec.usage)\n  \(spec.summary)\n  example: \(spec.example)", json: spec.json)
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
        lines.append("Exit status in scripts: 1 a command failed, 64 a command is malformed or unknown, 130 interrupted.")
        let records = CommandTable.all.map(\.json) + CommandTable.dotCommands.map { dot in
            JSONValue.object([("name", .string(String(dot.0.split(separator: " ")[0]))), ("usage", .string(dot.0)),
                              ("summary", .string(dot.1)), ("example", .string(dot.2))])
        }
        return .message(lines.joined(separator: "\n"), json: .array(records))
    }

    static func sources(_ session: Session, _ args: [String]) async throws -> Output? {
        try none(args, "sources")
        let state = session.state
        var rows: [[String]] = []
        var records: [JSONValue] = []
        for plugin in state.sources.plugins {
            let source = plugin.source
            let keys = state.status.keys.filter { $0.source == source.rawValue }
            let held = keys.filter { state.documents[$0] != nil }.count
            let last = keys.compactMap { state.status[$0]?.lastSuccess }.max()
            rows.append([source.rawValue, plugin.realBase, String(held), last?.iso8601 ?? "never"])
            records.append(.object([("source", .string(source.rawValue)), ("base", .string(plugin.realBase)),
                                    ("held", .number(held)), ("lastSuccess", .optional(last?.iso8601))]))
        }
        return .table(columns: ["source", "base", "held", "last success"], rows: rows, records: records)
    }

    // MARK: fetch

    static func fetch(_ session: Session, _ args: [String]) async throws -> Output? {
        guard !session.isPinned else { throw CommandError.usage("at SEQ is read-only: fetch cannot run inside it") }
        // The shell fetches with the settings it was started with; these are the command
        // line's, and silently ignoring them would fetch other than asked.
        let startOnly = ["--store", "--upstream", "--offline", "--retries", "--connect-timeout", "--read-timeout", "--retry-after-cap",
                         "--deadline", "--min-rate", "--allow-private-hosts", "--redact-param"]
        if let given = args.first(where: { arg in startOnly.contains { arg == $0 || arg.hasPrefix($0 + "=") } }) {
            let option = given.split(separator: "=").first.map(String.init) ?? given
            throw CommandError.usage("\(option) is set when the shell starts (fetchlog \(option) … repl); this shell fetches with its own settings")
        }
        let command: FetchCommand
        do { command = try FetchCommand.parse(args) } catch {
            throw CommandError.usage(FetchCommand.message(for: error) + "\nusage: \(CommandTable.find("fetch")!.usage)")
        }
        let printer = FetchPrinter()
        printer.write = { session.emit($0 + "\n") }
        printer.live = !session.renderer.mode.isMachine
        let reports: [FetchReport]
        do { reports = try await command.perform(session.store, printer, policy: session.policy) } catch let error as ValidationError {
            throw CommandError.usage(error.message + "\nusage: \(CommandTable.find("fetch")!.usage)")
        }
        let output = printer.finish(reports)
        try await session.store.catchUp()
        if !reports.isEmpty && !reports.contains(where: \.isUsable) {
            var error = CommandError.failed("nothing usable came back: \(FetchCommand.reason(reports))")
            error.output = output
            throw error
        }
        return output
    }

    // MARK: TVmaze

    static func showRecord(_ row: ShowsView.ShowRow) -> JSONValue {
        .object([("id", .number(row.id)), ("name", .string(row.name)), ("premiereYear", .optional(row.premiereYear)),
                 ("rating", .optional(row.rating)), ("genres", .array(row.genres.map(JSONValue.string))),
                 ("image", .optional(row.image.url)), ("imageKind", .string(row.image.kind.rawValue)), ("itemIndex", .number(row.itemIndex))])
    }

    static func shows(_ session: Session, _ args: [String]) async throws -> Output? {
        let arguments = try Arguments(args, usage: "shows [--page N] [--genre G]", options: ["page", "genre"])
        _ = try arguments.words(0 ... 0)
        let page = try arguments.int("page", minimum: 1) ?? 1
        try await session.open(.tvmazeShowsPage(0), "shows")
        session.freshnessLine(.tvmazeShowsPage(0), "shows")
        let view = ShowsView(state: session.state)
        let list = arguments["genre"].map { view.withGenre($0) } ?? view.shows
        let (slice, pages) = try Self.page(list, page, size: pageSize, noun: arguments["genre"].map { "shows of genre '\($0)'" } ?? "shows")
        if arguments["genre"] == nil, let last = slice.last, !session.isPinned {
            session.policy.didShow(itemIndex: last.itemIndex, of: .shows)
        }
        let rows = slice.map { [String($0.id), $0.name, text($0.premiereYear), text($0.rating), $0.genres.joined(separator: ", "), $0.image.kind.rawValue] }
        var footer = "page \(page) of \(pages) · \(list.count) shows"
        if list.isEmpty {
            footer = arguments["genre"].map { genre in
                "no held show has the genre '\(genre)' (genres held: \(Set(view.shows.flatMap(\.genres)).sorted().joined(separator: ", ")))"
            } ?? "no shows held"
        }
        return .table(columns: ["id", "name", "year", "rating", "genres", "image"], rows: rows, records: slice.map(showRecord), footer: footer)
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
        if case .tvmazeImages(let images)? = state.document(.tvmazeImages(id))?.tvmaze {
            return ImageChoice.showDetailImage(images, in: state)
        }
        // The detail image is chosen from the show's image list; without it the choice is
        // not known yet, which is not the same as a show without images.
        return ImageChoice(url: nil, kind: "placeholder", held: false, reason: "not fetched yet (fetch tvmaze show \(id) --with images)")
    }

    /// `, bytes held` when the store holds the asset's bytes.
    static func heldNote(_ session: Session, _ url: String) -> String {
        AssetsView(state: session.state).asset(url)?.info != nil ? ", bytes held" : ""
    }

    static func imageLine(_ choice: ImageChoice) -> String {
        (choice.url ?? (choice.reason.hasPrefix("not fetched") ? "-" : "placeholder")) + " — " + choice.reason + (choice.url == nil ? "" : choice.held ? ", bytes held" : ", bytes not held")
    }

    static func asset(_ session: Session, _ args: [String]) async throws -> Output? {
        guard let verb = args.first, args.count >= 2 else { throw CommandError.usage("usage: asset show URL | asset save URL FILE [--force]") }
        let url = args[1]
        let row = AssetsView(state: session.state).asset(url)
        switch verb {
        case "show":
            guard args.count == 2 else { throw CommandError.usage("usage: asset show URL") }
            guard let row else {
                return .message("\(url): never fetched (fetch asset \(url))",
                                json: .object([("url", .string(url)), ("held", .bool(false)), ("fetched", .bool(false))]))
            }
            guard let info = row.info else {
                return .message("\(url): not held; \(row.failuresSince) failed attempts, last: \(row.lastError ?? "-")",
                                json: .object([("url", .string(url)), ("held", .bool(false)), ("failuresSince", .number(row.failuresSince)),
                                               ("lastError", .optional(row.lastError))]))
            }
            return .record(pairs: [("url", url), ("type", info.format.contentType), ("size", "\(info.size) bytes"), ("sha256", info.sha256),
                                   ("seq", row.seq.map { $0 == 0 ? "this session only" : String($0) } ?? "-")],
                           json: .object([("url", .string(url)), ("held", .bool(true)), ("contentType", .string(info.format.contentType)),
                                          ("size", .number(info.size)), ("sha256", .string(info.sha256)),
                                          ("seq", row.seq.map { $0 == 0 ? .null : .number(Int($0)) } ?? .null),
                                          ("sessionOnly", .bool(row.seq == 0))]))
        case "save":
            let arguments = try Arguments(Array(args.dropFirst()), usage: "asset save URL FILE [--force]", flags: ["force"])
            let words = try arguments.words(2 ... 2)
            let file = words[1]
            // An existing file is kept unless --force says to replace it.
            var info = stat()
            if !arguments.flag("force"), stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                throw CommandError.failed("\(file) exists: add --force to replace it")
            }
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
            do { try SafeFile.write(Data(bytes), to: file) } catch let error as SafeFile.Failure {
                throw CommandError.failed(error.description)
            }
            let sha = SHA256.hex(bytes)
            return .message("wrote \(bytes.count) bytes (sha256 \(sha)) to \(file)",
                            json: .object([("url", .string(url)), ("file", .string(file)), ("bytes", .number(bytes.count)), ("sha256", .string(sha))]))
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
        guard args.count >= 2, ["shows", "podcasts"].contains(args[0]) else {
            throw CommandError.usage((args.first.map { "search has no '\($0)'\(Suggest.didYouMean($0, ["shows", "podcasts"]))\n" } ?? "") + "usage: search shows|podcasts TEXT")
        }
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
        // Pages of 20 like shows; --limit N sets the page size.
        let arguments = try Arguments(args, usage: "gnomes [--limit N] [--page N] [TEXT]", options: ["limit", "page"])
        let limit = try arguments.int("limit", minimum: 1) ?? pageSize
        let page = try arguments.int("page", minimum: 1) ?? 1
        try await session.open(.brastlewarkCensus, "census")
        session.freshnessLine(.brastlewarkCensus, "census")
        let view = FiltersView(state: session.state)
        let text = arguments.positionals.joined(separator: " ")
        let list = view.filtered(search: text.isEmpty ? nil : text)
        let (shown, pages) = try Self.page(list, page, size: limit, noun: "gnomes")
        let rows = shown.map { [String($0.id), $0.name, String($0.age), $0.hairColor, $0.professions.joined(separator: ", "), String($0.friendCount)] }
        let filter = view.active.isEmpty ? "" : " (filter: \(filterText(view.active)))"
        var footer = "page \(page) of \(pages) · \(list.count) gnomes" + filter
        if list.isEmpty {
            let census = GnomesView(state: session.state).count
            footer = text.isEmpty
                ? "no gnome matches the filter\(filter) of \(census) in the census: filter reset shows them all"
                : "no gnome's name, hair colour or profession contains '\(text)'\(filter); \(census) gnomes in the census"
        }
        return .table(columns: ["id", "name", "age", "hair", "professions", "friends"], rows: rows, records: shown.map(gnomeRecord), footer: footer)
    }

    static func findGnome(_ session: Session, _ word: String) throws -> GnomeRow {
        let view = GnomesView(state: session.state)
        if view.count == 0 { throw CommandError.failed("no census is held: fetch brastlewark census") }
        if let id = Int(word) {
            guard let gnome = view.gnome(id: id) else { throw CommandError.failed("no gnome with id \(id) (ids run 0…\(view.count - 1))") }
            return gnome
        }
        switch view.lookup(word) {
        case .found(let gnome): return gnome
        case .ambiguous(let candidates):
            throw CommandError.failed("'\(word)' names \(candidates.count) gnomes that differ only in case: "
                + candidates.map { "\($0.name) (\($0.id))" }.joined(separator: ", ") + "; give the exact name or the id")
        case .notFound:
            let near = view.search(word).prefix(3).map(\.name)
            throw CommandError.failed("no gnome named '\(word)'" + (near.isEmpty ? "" : " (did you mean \(near.map { "'\($0)'" }.joined(separator: ", "))?)"))
        }
    }

    static func gnome(_ session: Session, _ args: [String]) async throws -> Output? {
        guard !args.isEmpty, !args.contains(where: { $0.hasPrefix("--") }) else { throw CommandError.usage("usage: gnome NAME|ID") }
        try await session.open(.brastlewarkCensus, "census")
        let g = try findGnome(session, args.joined(separator: " "))
        return .record(pairs: [
            ("id", String(g.id)), ("name", g.name), ("age", String(g.age)), ("weight", CanonicalNumber.text(g.weight)),
            ("height", CanonicalNumber.text(g.height)), ("hair", g.hairColor), ("professions", g.professions.joined(separator: ", ")),
            ("friends", g.friends.joined(separator: ", ")), ("thumbnail", g.thumbnail + heldNote(session, g.thumbnail)),
        ], json: gnomeRecord(g))
    }

    /// The active filter in the one shape it has everywhere (`filter show`, `export filters`).
    static func activeJSON(_ view: FiltersView) -> JSONValue {
        view.exportMembers().first { $0.0 == "active" }?.1 ?? .null
    }

    static func filterParts(_ f: GnomeFilter) -> [(field: String, text: String)] {
        var parts: [(field: String, text: String)] = []
        if let v = f.name { parts.append(("name", "name=\(v)")) }
        if let v = f.hairColor { parts.append(("hair_color", "hair_color=\(v)")) }
        if let v = f.profession { parts.append(("profession", "profession=\(v)")) }
        func range<T>(_ name: String, _ a: T?, _ b: T?) {
            if a != nil || b != nil { parts.append((name, "\(name)=\(a.map { "\($0)" } ?? "")-\(b.map { "\($0)" } ?? "")")) }
        }
        range("age", f.ageMin, f.ageMax)
        range("weight", f.weightMin.map(CanonicalNumber.text), f.weightMax.map(CanonicalNumber.text))
        range("height", f.heightMin.map(CanonicalNumber.text), f.heightMax.map(CanonicalNumber.text))
        range("friends", f.friendsMin, f.friendsMax)
        return parts
    }

    static func filterText(_ f: GnomeFilter) -> String {
        let parts = filterParts(f).map(\.text)
        return parts.isEmpty ? "none" : parts.joined(separator: " ")
    }

    static func filter(_ session: Session, _ args: [String]) async throws -> Output? {
        guard let verb = args.first else { throw CommandError.usage("usage: filter show | set FIELD=VALUE… | reset") }
        switch verb {
        case "show":
            try none(Array(args.dropFirst()), "filter show")
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
            try none(Array(args.dropFirst()), "filter reset")
            let beforeView = FiltersView(state: session.state)
            try await session.store.resetGnomeFilter()
            let afterView = FiltersView(state: session.state)
            let count = afterView.matching.count
            return .message("filter reset (was \(filterText(beforeView.active))): \(count) gnomes",
                            json: .object([("active", activeJSON(afterView)), ("previous", activeJSON(beforeView)), ("matching", .number(count))]))
        case "set":
            guard !session.isPinned else { throw CommandError.usage("at SEQ is read-only") }
            let usage = "filter set FIELD=VALUE… (hair_color, profession, name, age, weight, height, friends; ranges as MIN-MAX)"
            guard args.count > 1 else { throw CommandError.usage("usage: \(usage)") }
            let view = FiltersView(state: session.state)
            let before = view.active
            var f = before
            var changed: [String] = []
            for assignment in args.dropFirst() {
                let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[1].isEmpty else { throw CommandError.usage("'\(assignment)' is not FIELD=VALUE\nusage: \(usage)") }
                let (field, value) = (parts[0], parts[1])
                func bounds<T: LosslessStringConvertible & Comparable>(_ type: T.Type) throws -> (T?, T?) {
                    let ends = value.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                    if ends.count == 1, let v = T(ends[0]) { return (v, v) }
                    guard ends.count == 2 else { throw CommandError.usage("\(field) takes MIN-MAX, MIN-, -MAX or one value, not '\(value)'") }
                    let lo = ends[0].isEmpty ? nil : T(ends[0]), hi = ends[1].isEmpty ? nil : T(ends[1])
                    if (!ends[0].isEmpty && lo == nil) || (!ends[1].isEmpty && hi == nil) || (lo == nil && hi == nil) {
                        throw CommandError.usage("\(field) takes MIN-MAX, MIN-, -MAX or one value, not '\(value)'")
                    }
                    if let lo, let hi, lo > hi { throw CommandError.usage("\(field)=\(value): the minimum \(lo) is above the maximum \(hi); write \(field)=\(hi)-\(lo)") }
                    return (lo, hi)
                }
                /// A text filter matches partially, ignoring case: a value no gnome has would
                /// silently match nothing, so it is refused with the values that exist.
                func known(_ value: String, in values: [String], _ what: String) throws -> String {
                    let folded = value.trimmingCharacters(in: .whitespaces).lowercased()
                    guard values.isEmpty || values.contains(where: { $0.lowercased().contains(folded) }) else {
                        throw CommandError.failed("no gnome has the \(what) '\(value)'; the census has: \(values.joined(separator: ", "))")
                    }
                    return value
                }
                switch field {
                case "hair_color", "hair": f.hairColor = try known(value, in: view.available.hairColors, "hair colour")
                case "profession": f.profession = try known(value, in: view.available.professions, "profession")
                case "name": f.name = value
                case "age": (f.ageMin, f.ageMax) = try bounds(Int.self)
                case "weight": (f.weightMin, f.weightMax) = try bounds(Double.self)
                case "height": (f.heightMin, f.heightMax) = try bounds(Double.self)
                case "friends": (f.friendsMin, f.friendsMax) = try bounds(Int.self)
                default:
                    throw CommandError.usage("no filter field '\(field)'\(Suggest.didYouMean(field, ["hair_color", "profession", "name", "age", "weight", "height", "friends"])); type help filter")
                }
                changed.append(field == "hair" ? "hair_color" : field)
            }
            try await session.store.setGnomeFilter(f)
            let afterView = FiltersView(state: session.state)
            let count = afterView.matching.count
            // What the new filter did to the one in force: fields it replaced, fields it kept.
            let previous = filterParts(before)
            let replaced = previous.filter { changed.contains($0.field) }.map(\.text)
            let kept = previous.filter { !changed.contains($0.field) }.map(\.text)
            var how = before.isEmpty ? "new filter" : kept.isEmpty ? "replaced the active filter" : "merged with the active filter"
            if !replaced.isEmpty { how += "; replaced \(replaced.joined(separator: " "))" }
            if !kept.isEmpty { how += "; kept \(kept.joined(separator: " "))" }
            return .message("filter set: \(filterText(f)) (\(count) gnomes) — \(how)",
                            json: .object([("active", activeJSON(afterView)), ("previous", activeJSON(view)), ("matching", .number(count)),
                                           ("replaced", .array(replaced.map(JSONValue.string))), ("kept", .array(kept.map(JSONValue.string)))]))
        default:
            throw CommandError.usage("filter has no '\(verb)'\(Suggest.didYouMean(verb, ["show", "set", "reset"]))\nusage: filter show | set FIELD=VALUE… | reset")
        }
    }

    static func friends(_ session: Session, _ args: [String]) async throws -> Output? {
        guard !args.isEmpty, !args.contains(where: { $0.hasPrefix("--") }) else { throw CommandError.usage("usage: friends NAME|ID") }
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
        guard args.count == 2 else { throw CommandError.usage("usage: path A B (names with spaces in quotes: path \"Tobus Quickwhistle\" 237)") }
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
        try none(args, "pages")
        try await session.open(.viaplayRoot, "pages")
        session.freshnessLine(.viaplayRoot, "pages")
        let view = PagesView(state: session.state)
        let rows = view.pages.map { [$0.path, text($0.title), text($0.pageType), String($0.sections.count), String($0.blocks.count)] }
        let records: [JSONValue] = view.pages.map {
            .object([("path", .string($0.path)), ("title", .optional($0.title)), ("pageType", .optional($0.pageType)),
                     ("sections", .number($0.sections.count)), ("blocks", .number($0.blocks.count))])
        }
        return .table(columns: ["path", "title", "type", "sections", "blocks"], rows: rows, records: records)
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
        return .message(lines.joined(separator: "\n"), json: PagesView.json(page))
    }

    static func sections(_ session: Session, _ args: [String]) async throws -> Output? {
        try none(args, "sections")
        try await session.open(.thmanyahHome(1), "sections")
        session.freshnessLine(.thmanyahHome(1), "sections")
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
        return .table(columns: ["order", "name", "type", "content", "items"], rows: rows, records: records)
    }

    static func home(_ session: Session, _ args: [String]) async throws -> Output? {
        try none(args, "home")
        try await session.open(.thmanyahHome(1), "sections")
        session.freshnessLine(.thmanyahHome(1), "sections")
        var rows: [[String]] = []
        var records: [JSONValue] = []
        for section in SectionsView(state: session.state).sections {
            for item in section.items {
                rows.append([section.name, item.name, item.duration.map { "\($0 / 60) min" } ?? "-"])
                records.append(.object([("section", .string(section.name)), ("id", .string(item.id)), ("name", .string(item.name)),
                                        ("duration", .optional(item.duration))]))
            }
        }
        return .table(columns: ["section", "item", "duration"], rows: rows, records: records)
    }

    // MARK: ARTIC

    static func artworks(_ session: Session, _ args: [String]) async throws -> Output? {
        let arguments = try Arguments(args, usage: "artworks [--page N]", options: ["page"])
        _ = try arguments.words(0 ... 0)
        let page = try arguments.int("page", minimum: 1) ?? 1
        // Whatever --limit the list was fetched with is the one to open and extend.
        let list = ArtworksView.heldList(in: session.state)
        try await session.open(list.page1, "artworks")
        session.freshnessLine(list.page1, "artworks")
        let view = ArtworksView(state: session.state)
        let (slice, pages) = try Self.page(view.artworks, page, size: pageSize, noun: "artworks")
        if let last = slice.last, let index = view.artworks.firstIndex(of: last), !session.isPinned {
            session.policy.didShow(itemIndex: index, of: .artworks(limit: list.limit))
        }
        let rows = slice.map { [String($0.id), $0.title, text($0.artistTitle), text($0.dateDisplay), $0.imageKind.rawValue] }
        let records: [JSONValue] = slice.map {
            .object([("id", .number($0.id)), ("title", .string($0.title)), ("artist", .optional($0.artistTitle)),
                     ("date", .optional($0.dateDisplay)), ("image", .optional($0.imageURL))])
        }
        return .table(columns: ["id", "title", "artist", "date", "image"], rows: rows, records: records,
                      footer: view.artworks.isEmpty ? "no artworks held" : "page \(page) of \(pages) · \(view.artworks.count) artworks")
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
        try await session.runShared(StatusCommand.self, args, usage: StatusCommand.usage)
    }

    static func log(_ session: Session, _ args: [String]) async throws -> Output? {
        guard !args.isEmpty else { throw CommandError.usage("usage: \(LogCommand.usage)") }
        return try await session.runShared(LogCommand.self, args, usage: LogCommand.usage, subcommandUsage: LogCommand.usages)
    }

    static func replay(_ session: Session, _ args: [String]) async throws -> Output? {
        try await session.runShared(ReplayCommand.self, args, usage: ReplayCommand.usage)
    }

    static func export(_ session: Session, _ args: [String]) async throws -> Output? {
        try await session.runShared(ExportCommand.self, args, usage: ExportCommand.usage)
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
        // Keyed collections are compared by key (resource, id, name …), so an added row is
        // one `added` change, not a cascade of positions; values are whole JSON.
        let diff = ViewDiff(from: before, to: after)
        if diff.isEmpty { return .message("no change in \(args[2]) between seq \(a) and \(b)", json: .array([])) }
        let rows = diff.changes.map { change -> [String] in
            [change.kind.rawValue, change.path, change.before?.canonicalText() ?? "", change.after?.canonicalText() ?? ""]
        }
        return .table(columns: ["change", "path", "seq \(a)", "seq \(b)"], rows: rows, records: diff.changes.map(\.json),
                      footer: "\(diff.changes.count) change\(diff.changes.count == 1 ? "" : "s") in \(args[2]) from seq \(a) to \(b)")
    }
}
