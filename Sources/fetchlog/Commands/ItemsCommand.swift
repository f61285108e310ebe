import ArgumentParser
import FetchlogCore
import FetchlogShell
import FetchlogSQL
import Foundation

/// `items SOURCE RESOURCE [TEXT] [--where FIELD=VALUE]… [--limit N] [--page N] [--all]` and
/// `item SOURCE RESOURCE KEY`: the generic view of a source defined by a manifest, in every
/// output mode, on the command line and in the shell.
///
/// A page is 20 items unless `--limit` says otherwise; `--all` answers every item found.
/// Tables say which page it is in their footer; json, ndjson and csv keep stdout for rows
/// alone, so when the rows are not every item found a warning on stderr says which they are
/// (issue 34, item 8: `--format json` answered 20 of 63 and said nothing of the other 43).
struct ItemsCommand: SharedCommand {
    static let configuration = CommandConfiguration(
        commandName: "items",
        abstract: "The items of a manifest resource: TEXT searched (case-insensitive, partial) in its search fields, --where FIELD=VALUE (whole, case-insensitive; any element of a list) or FIELD=MIN..MAX.")
    static let usage = "items SOURCE RESOURCE [TEXT] [--where FIELD=VALUE]… [--limit N] [--page N] [--all]"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Argument(help: "The source (defined by a manifest).") var source: String
    @Argument(help: "The resource.") var resource: String
    @Argument(help: "Text searched in every field.") var text: [String] = []
    @Option(name: .customLong("where"), help: ArgumentHelp("FIELD=VALUE (whole, case-insensitive, any element of a list) or FIELD=MIN..MAX (numbers); repeatable.", valueName: "field=value"))
    var conditions: [String] = []
    // Optional, so that --all with either is refused rather than one silently ignored.
    @Option(help: "Items a page, 1 to 1000000 (20).", transform: Bounded.whole("--limit", 1 ... 1_000_000)) var limit: Int?
    @Option(help: "The page, 1 to 1000000000 (1).", transform: Bounded.whole("--page", 1 ... 1_000_000_000)) var page: Int?
    @Flag(help: "Every item found, on one page (without --limit and --page).") var all = false
    @Flag(help: "The server's truth alone: changes waiting to be sent (item add/set/delete) left out.") var confirmed = false // issue 26

    func run() async throws { try await runOnCommandLine() }

    /// The view, or an error naming what exists.
    static func view(_ state: LogState, _ source: String, _ resource: String, confirmedOnly: Bool = false) throws -> ItemsView {
        guard let defined = state.manifests[source] else {
            let names = state.manifests.keys.sorted()
            throw CommandError.failed("no source '\(source)' is defined by a manifest\(Suggest.didYouMean(source, names))"
                + (names.isEmpty ? " (source add FILE defines one)" : ": defined are \(names.joined(separator: ", "))"))
        }
        guard let view = ItemsView(state: state, source: source, resource: resource, confirmedOnly: confirmedOnly) else {
            let names = defined.manifest.resources.map(\.name)
            throw CommandError.failed("\(source) has no resource '\(resource)'\(Suggest.didYouMean(resource, names)): use \(names.joined(separator: ", "))")
        }
        return view
    }

    /// An item's scalar members as text (`-` for null), for tables.
    static func text(_ value: JSONValue?) -> String { ItemsView.text(value) }

    /// An item's primary key as people type it (fields joined by `/`), `-` without one.
    static func keyText(_ item: JSONValue, _ key: [String]) -> String {
        key.isEmpty ? "-" : key.map { text(item[$0]) }.joined(separator: "/")
    }

    func output(_ context: CommandContext) async throws -> Output? {
        if all, limit != nil || page != nil { throw CommandError.usage("--all answers every item: give it without --limit and --page") }
        let limit = all ? nil : self.limit ?? Shell.pageSize, page = self.page ?? 1
        guard (limit ?? 1) >= 1, page >= 1 else { throw CommandError.usage("--limit and --page take 1 or more") }
        let (answer, found, shown) = try await pagedAnswer(context, limit: limit, page: page)
        // json, ndjson and csv print no footer: stdout holds rows alone, so what the rows
        // leave out is said on stderr (a table's footer already says it on stdout).
        let mode = try outputOptions.mode() ?? context.session?.renderer.mode ?? .table
        if mode.isMachine, let warning = Self.partWarning(found: found, shown: shown, page: page, limit: limit) {
            if let session = context.session { session.notify("warning: " + warning) } else { printError("warning: " + warning) }
        }
        return answer
    }

    /// The page: from the read model when a one-shot can (no `--where`, not `--confirmed`,
    /// the read model current: no fold, no body decoded), else from the store, writing the
    /// read model for the next one-shot when it was absent or behind.
    private func pagedAnswer(_ context: CommandContext, limit: Int?, page: Int) async throws -> (output: Output, found: Int, shown: Int) {
        let text = self.text.joined(separator: " ")
        guard context.session == nil, !confirmed, conditions.isEmpty else {
            return try Self.paged(try await context.liveState(), source: source, resource: resource, text: text,
                                  conditions: conditions, limit: limit, page: page, confirmedOnly: confirmed)
        }
        let path = context.maintenance.path
        let stamp = try ReadModel.stamp(of: context.maintenance)
        // Checked against its digests first (issue 44): damaged, the store answers, the read
        // model is written anew (nothing copied from it), and the one-shot says so on stderr.
        var problem: ReadModel.NotCurrent?
        switch ItemsReadModel.opening(storePath: path, stamp: stamp, source: source, resource: resource) {
        case .failure(let found): problem = found
        case .success(let held?):
            if let found = held.positions(text: text) {
                do {
                    return try Self.page(found: found, count: held.count, items: held.items(at:), limit: limit, page: page)
                } catch let error as ItemsReadModelError {
                    // A damaged copy: the store answers below, and the read model is written anew.
                    problem = .damaged(ItemsReadModel.fileName + ": " + error.message)
                }
            }
        case .success(nil): break
        }
        let store = try await openStore(context.maintenance, clock: context.clock)
        let answer = try Self.paged(store.snapshot.state, source: source, resource: resource, text: text,
                                    conditions: [], limit: limit, page: page, confirmedOnly: false)
        if problem != nil || !ReadModel.isCurrent(storePath: path, stamp: stamp) {
            let rebuilt = ReadModel.rebuild(from: store, storePath: path, reusing: problem == nil || problem == .behind) != nil
            if let problem { noteReadModel(problem, rebuilt: rebuilt) }
        }
        return answer
    }

    /// What the rows of a page are when they are not every item found, with how to get the
    /// rest: "items 1–20 of 63; --all for every item, --page 2 for the next"; nil when they are all.
    static func partWarning(found: Int, shown: Int, page: Int, limit: Int?) -> String? {
        guard let limit, shown < found else { return nil }
        let first = (page - 1) * limit + 1, last = first + shown - 1
        return "items \(first)–\(last) of \(found); --all for every item" + (last < found ? ", --page \(page + 1) for the next" : "")
    }

    /// The answer from `state`: the command's, and `GET /api/items/SOURCE/RESOURCE`'s. A nil
    /// `limit` answers every item found, on one page.
    static func answer(_ state: LogState, source: String, resource: String, text: String, conditions: [String],
                       limit: Int?, page: Int, confirmedOnly: Bool = false) throws -> Output {
        try paged(state, source: source, resource: resource, text: text, conditions: conditions, limit: limit, page: page,
                  confirmedOnly: confirmedOnly).output
    }

    /// The answer, with how many items were found and how many of them it holds.
    static func paged(_ state: LogState, source: String, resource: String, text: String, conditions: [String],
                      limit: Int?, page: Int, confirmedOnly: Bool) throws -> (output: Output, found: Int, shown: Int) {
        let view = try Self.view(state, source, resource, confirmedOnly: confirmedOnly)
        var parsed: [ItemsView.Condition] = []
        for condition in conditions {
            guard let one = ItemsView.Condition(parsing: condition) else {
                throw CommandError.usage("--where takes FIELD=VALUE or FIELD=MIN..MAX, not '\(condition)'")
            }
            // A field no item holds would answer "0 of N items" as if asked well: say so, and
            // name the fields there are (dotted paths reach inside objects).
            guard view.items.isEmpty || view.holds(field: one.field) else {
                let names = ItemsView.fieldNames(of: view.items)
                throw CommandError.failed("no item of \(source) \(resource) holds the field '\(one.field)'"
                    + "\(Suggest.didYouMean(one.field, names)): its fields are \(names.joined(separator: ", "))")
            }
            parsed.append(one)
        }
        let found = view.positions(text: text, conditions: parsed)
        return try Self.page(found: found, count: view.items.count, items: { $0.map { view.items[$0] } }, limit: limit, page: page)
    }

    /// Page `page` of the items at `found` among `count` (`items` reads them by position):
    /// the store's view and the read model's copy answer through this one rendering.
    static func page(found: [Int], count: Int, items: ([Int]) throws -> [JSONValue], limit: Int?, page: Int) throws
        -> (output: Output, found: Int, shown: Int) {
        let (positions, pages) = try Shell.page(found, page, size: limit ?? max(1, found.count), noun: "items")
        let slice = try items(positions)
        // Columns: the first item's members that are not lists, an object's members as
        // dotted paths (`author.name`, read as --where reads them), at most six.
        var columns: [String] = []
        if let first = try slice.first ?? (count > 0 ? items([0]).first : nil) {
            // `pending` (a write's state) is shown last, by its state, below.
            columns = ItemsView.fieldNames(of: [first]).filter { name in
                if name == "pending" || name.hasPrefix("pending.") { return false }
                if case .array? = ItemsView.value(of: name, in: first) { return false }
                return true
            }
        }
        columns = Array(columns.prefix(6))
        // Issue 26: an item changed by a write not yet confirmed shows its state last.
        if !columns.isEmpty, slice.contains(where: { $0["pending"] != nil }) { columns.append("pending") }
        let rows = slice.map { item in columns.map { $0 == "pending" ? Self.text(item["pending"]?["state"]) : Self.text(ItemsView.value(of: $0, in: item)) } }
        let output = Output.table(columns: columns.isEmpty ? ["item"] : columns, rows: columns.isEmpty ? slice.map { [$0.canonicalText()] } : rows,
                                  records: slice, footer: "page \(page) of \(pages) · \(found.count) of \(count) items")
        return (output, found.count, slice.count)
    }
}

struct ItemCommand: SharedCommand {
    static let configuration = CommandConfiguration(commandName: "item", abstract: "One item of a manifest resource, by its primary key.")
    static let usage = "item SOURCE RESOURCE KEY"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Argument(help: "The source (defined by a manifest).") var source: String
    @Argument(help: "The resource.") var resource: String
    @Argument(help: "The primary key's value (values joined by / for a key of several fields).") var key: String
    @Flag(help: "The server's truth alone: changes waiting to be sent left out.") var confirmed = false // issue 26

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        let state = try await context.liveState()
        let view = try ItemsCommand.view(state, source, resource, confirmedOnly: confirmed)
        let fields = view.restResource.primaryKey
        guard !fields.isEmpty else { throw CommandError.failed("\(source) \(resource) has no primary_key: list it with items") }
        guard let item = view.item(key: key) else {
            throw CommandError.failed("no \(resource) item with \(fields.joined(separator: "/")) \(key) is held")
        }
        guard case .object(let members) = item else { return .json(item) }
        var pairs = members.map { ($0.0, ItemsCommand.text($0.1)) }
        if let image = view.imageURL(of: item) { pairs.append(("image", image)) }
        return .record(pairs: pairs, json: item)
    }
}

struct FacetsCommand: SharedCommand {
    static let configuration = CommandConfiguration(commandName: "facets", abstract: "What a manifest resource's facet fields hold: each value with its count, or a numeric range.")
    static let usage = "facets SOURCE RESOURCE"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Argument(help: "The source (defined by a manifest).") var source: String
    @Argument(help: "The resource.") var resource: String
    @Flag(help: "The server's truth alone: changes waiting to be sent left out.") var confirmed = false // issue 26

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        let live = try await context.liveState()
        let state = confirmed ? live.confirmedOnly : live
        _ = try ItemsCommand.view(state, source, resource)
        guard let view = FacetsView(state: state, source: source, resource: resource) else { return nil }
        var rows: [[String]] = [], records: [JSONValue] = []
        for facet in view.facets {
            switch facet {
            case .range(let field, let low, let high):
                rows.append([field, "\(CanonicalNumber.text(low))..\(CanonicalNumber.text(high))", "-"])
                records.append(.object([("field", .string(field)), ("min", .number(low)), ("max", .number(high))]))
            case .values(let field, let counts):
                for (value, count) in counts {
                    rows.append([field, value, String(count)])
                    records.append(.object([("field", .string(field)), ("value", .string(value)), ("count", .number(count))]))
                }
            }
        }
        if view.facets.isEmpty { throw CommandError.failed("\(source) \(resource) names no facets: add \"fetchlog\": {\"facets\": [FIELD…]} to the resource") }
        return .table(columns: ["field", "value", "count"], rows: rows, records: records)
    }
}

/// `links SOURCE RESOURCE KEY` and `path SOURCE RESOURCE A B`: a manifest's `fetchlog.links`.
struct LinksCommand: SharedCommand {
    static let configuration = CommandConfiguration(commandName: "links", abstract: "An item's links (fetchlog.links): the items it names, the items naming it, the names matching nothing.")
    static let usage = "links SOURCE RESOURCE KEY"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Argument(help: "The source (defined by a manifest).") var source: String
    @Argument(help: "The resource.") var resource: String
    @Argument(help: "The item: its primary key, or the text its link names it by.") var key: String
    @Flag(help: "The server's truth alone: changes waiting to be sent left out.") var confirmed = false // issue 26

    func run() async throws { try await runOnCommandLine() }

    static func linksView(_ state: LogState, _ source: String, _ resource: String) throws -> LinksView {
        let items = try ItemsCommand.view(state, source, resource)
        guard let view = LinksView(state: state, source: source, resource: resource) else {
            let linking = items.restResource.links.isEmpty ? "names no links" : "links to a resource that is not held"
            throw CommandError.failed("\(source) \(resource) \(linking): add \"fetchlog\": {\"links\": {FIELD: {\"to\": RESOURCE, \"by\": FIELD}}}")
        }
        return view
    }

    static func find(_ view: LinksView, _ key: String, in items: ItemsView) throws -> Int {
        guard let index = view.index(of: key, in: items) else {
            throw CommandError.failed("no \(items.resource) item has the key or \(view.link.by) '\(key)'")
        }
        return index
    }

    func output(_ context: CommandContext) async throws -> Output? {
        let live = try await context.liveState()
        let view = try Self.linksView(confirmed ? live.confirmedOnly : live, source, resource)
        let index = try Self.find(view, key, in: view.items)
        let item = view.items.items[index]
        let by = view.link.by
        func label(_ item: JSONValue) -> String { ItemsView.text(item[by]) }
        func keyJSON(_ item: JSONValue, _ fields: [String]) -> JSONValue {
            fields.count == 1 ? item[fields[0]] ?? .null : .array(fields.map { item[$0] ?? .null })
        }
        var rows: [[String]] = [], records: [JSONValue] = []
        for target in view.entries[index].links {
            let other = view.targets.items[target]
            rows.append([ItemsCommand.keyText(other, view.targets.restResource.primaryKey), label(other), "\(view.link.field) of \(label(item))"])
            records.append(.object([("key", keyJSON(other, view.targets.restResource.primaryKey)), (by, other[by] ?? .null), ("relation", .string("link"))]))
        }
        // Who names this item: only when the link stays within one resource.
        if view.link.to == resource {
            for other in view.listedBy[index] {
                let named = view.items.items[other]
                rows.append([ItemsCommand.keyText(named, view.items.restResource.primaryKey), label(named), "names \(label(item))"])
                records.append(.object([("key", keyJSON(named, view.items.restResource.primaryKey)), (by, named[by] ?? .null), ("relation", .string("listed-by"))]))
            }
        }
        for name in view.entries[index].unknown {
            rows.append(["-", name, "matches nothing"])
            records.append(.object([("key", .null), (by, .string(name)), ("relation", .string("unknown"))]))
        }
        return .table(columns: ["key", by, "relation"], rows: rows, records: records)
    }
}

struct PathCommand: SharedCommand {
    static let configuration = CommandConfiguration(commandName: "path", abstract: "The shortest chain of links (fetchlog.links, both ways) between two items of a resource that links to itself.")
    static let usage = "path SOURCE RESOURCE A B"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Argument(help: "The source (defined by a manifest).") var source: String
    @Argument(help: "The resource.") var resource: String
    @Argument(help: "The first item: its primary key or the text its link names it by.") var from: String
    @Argument(help: "The last item.") var to: String

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        let state = try await context.liveState()
        let view = try LinksCommand.linksView(state, source, resource)
        guard view.link.to == resource else {
            throw CommandError.failed("\(source) \(resource)'s link \(view.link.field) leads to \(view.link.to), not back to \(resource): no path to walk")
        }
        let a = try LinksCommand.find(view, from, in: view.items), b = try LinksCommand.find(view, to, in: view.items)
        let by = view.link.by
        let items = view.items.items
        guard let chain = view.path(from: a, to: b) else {
            throw CommandError.failed("\(ItemsView.text(items[a][by])) and \(ItemsView.text(items[b][by])) are not connected by any chain of \(view.link.field)")
        }
        let key = view.items.restResource.primaryKey
        let text = chain.map { "\(ItemsView.text(items[$0][by])) (\(ItemsCommand.keyText(items[$0], key)))" }.joined(separator: " → ")
        let keys: [JSONValue] = chain.map { index in key.count == 1 ? items[index][key[0]] ?? .null : .array(key.map { items[index][$0] ?? .null }) }
        return .record(pairs: [("path", text), ("steps", String(chain.count - 1))],
                       json: .object([("path", .array(keys)), ("steps", .number(chain.count - 1))]))
    }
}
