import FetchlogCore
import FetchlogShell
import FetchlogSources

/// The shell commands of this source (registered by `SeedSources`).
enum BrastlewarkCommands {

    static let gnomesUsage = "gnomes [--limit N] [--page N] [TEXT]"
    static let gnomesColumns = ["id", "name", "age", "hair", "professions", "friends"]

    /// A one-shot run answers from the read model's copy of the census (`GnomesCopy`): the
    /// same answer, every line of it, without decoding the census.
    static func gnomes(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        // Pages of 20 like shows; --limit N sets the page size.
        let arguments = try ShellArguments(args, usage: gnomesUsage, options: ["limit", "page"])
        let limit = try arguments.int("limit", minimum: 1) ?? Shell.pageSize
        let page = try arguments.int("page", minimum: 1) ?? 1
        try await session.open(.brastlewarkCensus, "census")
        session.freshnessLine(.brastlewarkCensus, "census")
        let view = FiltersView(state: session.state)
        let text = arguments.positionals.joined(separator: " ")
        let list = view.selection(search: text.isEmpty ? nil : text)
        let (shown, pages) = try Shell.page(list, page, size: limit, noun: "gnomes")
        let rows = shown.map { [String($0.id), $0.name, String($0.age), $0.hairColor, $0.professions.joined(separator: ", "), String($0.friendCount)] }
        let filter = view.active.isEmpty ? "" : " (filter: \(GnomeWords.filterText(view.active)))"
        var footer = "page \(page) of \(pages) · \(list.count) gnomes" + filter
        if list.isEmpty {
            let census = GnomesView(state: session.state).count
            footer = text.isEmpty
                ? "no gnome matches the filter\(filter) of \(census) in the census: filter reset shows them all"
                : "no gnome's name, hair colour or profession contains '\(text)'\(filter); \(census) gnomes in the census"
        }
        return .table(columns: gnomesColumns, rows: rows, records: shown.map(GnomeWords.record), footer: footer)
    }

    static func findGnome(_ session: any ShellContext, _ word: String) throws -> GnomeRow {
        let view = GnomesView(state: session.state)
        if view.count == 0 { throw ShellError.failed("no census is held: fetch brastlewark census") }
        if let id = Int(word) {
            guard let gnome = view.gnome(id: id) else { throw ShellError.failed("no gnome with id \(id) (ids run 0…\(view.count - 1))") }
            return gnome
        }
        switch view.lookup(word) {
        case .found(let gnome): return gnome
        case .ambiguous(let candidates):
            throw ShellError.failed("'\(word)' names \(candidates.count) gnomes that differ only in case: "
                + candidates.map { "\($0.name) (\($0.id))" }.joined(separator: ", ") + "; give the exact name or the id")
        case .notFound:
            let near = view.search(word).prefix(3).map(\.name)
            throw ShellError.failed("no gnome named '\(word)'" + (near.isEmpty ? "" : " (did you mean \(near.map { "'\($0)'" }.joined(separator: ", "))?)"))
        }
    }

    static func gnome(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        guard !args.isEmpty, !args.contains(where: { $0.hasPrefix("--") }) else { throw ShellError.usage("usage: gnome NAME|ID") }
        try await session.open(.brastlewarkCensus, "census")
        let g = try findGnome(session, args.joined(separator: " "))
        return .record(pairs: [
            ("id", String(g.id)), ("name", g.name), ("age", String(g.age)), ("weight", CanonicalNumber.text(g.weight)),
            ("height", CanonicalNumber.text(g.height)), ("hair", g.hairColor), ("professions", g.professions.joined(separator: ", ")),
            ("friends", g.friends.joined(separator: ", ")), ("thumbnail", g.thumbnail + SeedShell.heldNote(session, g.thumbnail)),
        ], json: GnomeWords.record(g))
    }

    /// The active filter in the one shape it has everywhere (`filter show`, `export filters`).
    static func activeJSON(_ view: FiltersView) -> JSONValue {
        view.exportMembers().first { $0.0 == "active" }?.1 ?? .null
    }



    static func filter(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        guard let verb = args.first else { throw ShellError.usage("usage: filter show | set FIELD=VALUE… | reset") }
        switch verb {
        case "show":
            try Shell.none(Array(args.dropFirst()), "filter show")
            let view = FiltersView(state: session.state)
            let a = view.available
            return .record(pairs: [
                ("active", GnomeWords.filterText(view.active)), ("matching", String(view.matching.count)),
                ("age", "\(Shell.text(a.age.min))-\(Shell.text(a.age.max))"), ("weight", "\(Shell.text(a.weight.min))-\(Shell.text(a.weight.max))"),
                ("height", "\(Shell.text(a.height.min))-\(Shell.text(a.height.max))"), ("friends", "\(Shell.text(a.friends.min))-\(Shell.text(a.friends.max))"),
                ("hair colours", a.hairColors.joined(separator: ", ")), ("professions", a.professions.joined(separator: ", ")),
            ], json: view.export(asOf: session.state.seq))
        case "reset":
            guard !session.isPinned else { throw ShellError.usage("at SEQ is read-only") }
            try Shell.none(Array(args.dropFirst()), "filter reset")
            let beforeView = FiltersView(state: session.state)
            try await session.store.resetGnomeFilter()
            let afterView = FiltersView(state: session.state)
            let count = afterView.matching.count
            return .message("filter reset (was \(GnomeWords.filterText(beforeView.active))): \(count) gnomes",
                            json: .object([("active", activeJSON(afterView)), ("previous", activeJSON(beforeView)), ("matching", .number(count))]))
        case "set":
            guard !session.isPinned else { throw ShellError.usage("at SEQ is read-only") }
            let usage = "filter set FIELD=VALUE… (hair_color, profession, name, age, weight, height, friends; ranges as MIN-MAX)"
            guard args.count > 1 else { throw ShellError.usage("usage: \(usage)") }
            let view = FiltersView(state: session.state)
            let before = view.active
            var f = before
            var changed: [String] = []
            for assignment in args.dropFirst() {
                let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[1].isEmpty else { throw ShellError.usage("'\(assignment)' is not FIELD=VALUE\nusage: \(usage)") }
                let (field, value) = (parts[0], parts[1])
                func bounds<T: LosslessStringConvertible & Comparable>(_ type: T.Type) throws -> (T?, T?) {
                    let ends = value.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                    if ends.count == 1, let v = T(ends[0]) { return (v, v) }
                    guard ends.count == 2 else { throw ShellError.usage("\(field) takes MIN-MAX, MIN-, -MAX or one value, not '\(value)'") }
                    let lo = ends[0].isEmpty ? nil : T(ends[0]), hi = ends[1].isEmpty ? nil : T(ends[1])
                    if (!ends[0].isEmpty && lo == nil) || (!ends[1].isEmpty && hi == nil) || (lo == nil && hi == nil) {
                        throw ShellError.usage("\(field) takes MIN-MAX, MIN-, -MAX or one value, not '\(value)'")
                    }
                    if let lo, let hi, lo > hi { throw ShellError.usage("\(field)=\(value): the minimum \(lo) is above the maximum \(hi); write \(field)=\(hi)-\(lo)") }
                    return (lo, hi)
                }
                /// A text filter matches partially, ignoring case: a value no gnome has would
                /// silently match nothing, so it is refused with the values that exist.
                func known(_ value: String, in values: [String], _ what: String) throws -> String {
                    let folded = value.trimmingCharacters(in: .whitespaces).lowercased()
                    guard values.isEmpty || values.contains(where: { $0.lowercased().contains(folded) }) else {
                        throw ShellError.failed("no gnome has the \(what) '\(value)'; the census has: \(values.joined(separator: ", "))")
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
                    throw ShellError.usage("no filter field '\(field)'\(Suggest.didYouMean(field, ["hair_color", "profession", "name", "age", "weight", "height", "friends"])); type help filter")
                }
                changed.append(field == "hair" ? "hair_color" : field)
            }
            try await session.store.setGnomeFilter(f)
            let afterView = FiltersView(state: session.state)
            let count = afterView.matching.count
            // What the new filter did to the one in force: fields it replaced, fields it kept.
            let previous = GnomeWords.filterParts(before)
            let replaced = previous.filter { changed.contains($0.field) }.map(\.text)
            let kept = previous.filter { !changed.contains($0.field) }.map(\.text)
            var how = before.isEmpty ? "new filter" : kept.isEmpty ? "replaced the active filter" : "merged with the active filter"
            if !replaced.isEmpty { how += "; replaced \(replaced.joined(separator: " "))" }
            if !kept.isEmpty { how += "; kept \(kept.joined(separator: " "))" }
            return .message("filter set: \(GnomeWords.filterText(f)) (\(count) gnomes) — \(how)",
                            json: .object([("active", activeJSON(afterView)), ("previous", activeJSON(view)), ("matching", .number(count)),
                                           ("replaced", .array(replaced.map(JSONValue.string))), ("kept", .array(kept.map(JSONValue.string)))]))
        default:
            throw ShellError.usage("filter has no '\(verb)'\(Suggest.didYouMean(verb, ["show", "set", "reset"]))\nusage: filter show | set FIELD=VALUE… | reset")
        }
    }

    static func friends(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        guard !args.isEmpty, !args.contains(where: { $0.hasPrefix("--") }) else { throw ShellError.usage("usage: friends NAME|ID") }
        try await session.open(.brastlewarkCensus, "census")
        let g = try findGnome(session, args.joined(separator: " "))
        let view = FriendsView(state: session.state)
        let gnomes = GnomesView(state: session.state)
        let names = { (id: Int) in gnomes.gnome(id: id)?.name }
        guard let entry = view.entry(id: g.id) else { throw ShellError.failed("gnome \(g.id) has no friends entry") }
        var rows: [[String]] = []
        var records: [JSONValue] = []
        for id in entry.friends {
            rows.append([String(id), names(id) ?? "?", "listed by \(g.name)"])
            records.append(.object([("id", .number(id)), ("name", .string(names(id) ?? "")), ("relation", .string("friend"))]))
        }
        for id in entry.listedBy {
            rows.append([String(id), names(id) ?? "?", "lists \(g.name)"])
            records.append(.object([("id", .number(id)), ("name", .string(names(id) ?? "")), ("relation", .string("listed-by"))]))
        }
        for name in entry.unknownFriends {
            rows.append(["-", name, "matches no gnome"])
            records.append(.object([("id", .null), ("name", .string(name)), ("relation", .string("unknown"))]))
        }
        return .table(columns: ["id", "name", "relation"], rows: rows, records: records)
    }

    static func path(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        guard args.count == 2 else { throw ShellError.usage("usage: path A B (names with spaces in quotes: path \"Tobus Quickwhistle\" 237)") }
        try await session.open(.brastlewarkCensus, "census")
        let a = try findGnome(session, args[0]), b = try findGnome(session, args[1])
        let gnomes = GnomesView(state: session.state)
        guard let chain = FriendsView(state: session.state).path(from: a.id, to: b.id) else {
            throw ShellError.failed("\(a.name) and \(b.name) are not connected by any chain of friends")
        }
        let steps = chain.count - 1
        let text = chain.map { "\(gnomes.gnome(id: $0)?.name ?? "?") (\($0))" }.joined(separator: " → ")
        return .record(pairs: [("path", text), ("steps", String(steps))],
                       json: .object([("path", .array(chain.map { .number($0) })), ("steps", .number(steps))]))
    }

    /// Gnome names (they complete with their spaces escaped), at `positions`.
    static func gnomeNames(_ positions: ClosedRange<Int>) -> @Sendable (LogState, Int) -> [String] {
        { state, position in positions.contains(position) ? GnomesView(state: state).gnomes.map(\.name) : [] }
    }

    static let commands: [ShellCommand] = [
        ShellCommand(name: "gnomes", usage: gnomesUsage, summary: "the census (active filter ∧ search by name, hair colour, profession)", example: "gnomes tinker", run: gnomes)
            .answering(fromCopyOf: GnomesView.viewName, GnomesCopy.gnomes),
        ShellCommand(name: "gnome", usage: "gnome NAME|ID", summary: "one gnome", example: "gnome 0", complete: gnomeNames(1 ... 1), run: gnome),
        ShellCommand(name: "filter", usage: "filter show | set FIELD=VALUE… | reset", summary: "the gnome filter: hair_color, profession, name, age, weight, height, friends (ranges as MIN-MAX)", example: "filter set hair_color=pink profession=tinker", complete: { _, position in position == 1 ? ["show", "set", "reset"] : [] }, run: filter),
        ShellCommand(name: "friends", usage: "friends NAME|ID", summary: "a gnome's friends, who lists them, unknown names", example: "friends 0", complete: gnomeNames(1 ... 1), run: friends),
        ShellCommand(name: "path", usage: "path A B", summary: "the shortest chain of friends between two gnomes (names or ids)", example: "path 0 237", complete: gnomeNames(1 ... 2), run: path),
    ]
}
