import ArgumentParser
import FetchlogCore
import Foundation

/// `items SOURCE RESOURCE [TEXT] [--where FIELD=VALUE]… [--limit N] [--page N]` and
/// `item SOURCE RESOURCE KEY`: the generic view of a source defined by a manifest, in every
/// output mode, on the command line and in the shell.
struct ItemsCommand: SharedCommand {
    static let configuration = CommandConfiguration(
        commandName: "items",
        abstract: "The items of a manifest resource: TEXT searched in every field (case-insensitive), --where FIELD=VALUE exact.")
    static let usage = "items SOURCE RESOURCE [TEXT] [--where FIELD=VALUE]… [--limit N] [--page N]"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Argument(help: "The source (defined by a manifest).") var source: String
    @Argument(help: "The resource.") var resource: String
    @Argument(help: "Text searched in every field.") var text: [String] = []
    @Option(name: .customLong("where"), help: ArgumentHelp("FIELD=VALUE, exact (case-insensitive); repeatable.", valueName: "field=value"))
    var conditions: [String] = []
    @Option(help: "Items a page.") var limit: Int = 20
    @Option(help: "The page, from 1.") var page: Int = 1

    func run() async throws { try await runOnCommandLine() }

    /// The view, or an error naming what exists.
    static func view(_ state: LogState, _ source: String, _ resource: String) throws -> ItemsView {
        guard let defined = state.manifests[source] else {
            let names = state.manifests.keys.sorted()
            throw CommandError.failed("no source '\(source)' is defined by a manifest\(Suggest.didYouMean(source, names))"
                + (names.isEmpty ? " (source add FILE defines one)" : ": defined are \(names.joined(separator: ", "))"))
        }
        guard let view = ItemsView(state: state, source: source, resource: resource) else {
            let names = defined.manifest.resources.map(\.name)
            throw CommandError.failed("\(source) has no resource '\(resource)'\(Suggest.didYouMean(resource, names)): use \(names.joined(separator: ", "))")
        }
        return view
    }

    /// An item's scalar members as text (`-` for null), for search and tables.
    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let s)?: s
        case .number(let n)?: n
        case .bool(let b)?: b ? "true" : "false"
        case nil, .null?: "-"
        case let other?: other.canonicalText()
        }
    }

    func output(_ context: CommandContext) async throws -> Output? {
        guard limit >= 1, page >= 1 else { throw CommandError.usage("--limit and --page take 1 or more") }
        let state = try await context.liveState()
        let view = try Self.view(state, source, resource)
        var items = view.items
        for condition in conditions {
            let parts = condition.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw CommandError.usage("--where takes FIELD=VALUE, not '\(condition)'") }
            items = items.filter { Self.text($0[parts[0]]).lowercased() == parts[1].lowercased() }
        }
        let needle = text.joined(separator: " ").lowercased()
        if !needle.isEmpty {
            // The manifest's `fetchlog.search` fields, else every field.
            let fields = state.manifests[source]?.manifest.resource(resource)?.searchFields ?? []
            items = items.filter { item in
                guard case .object(let members) = item else { return false }
                return members.contains { (fields.isEmpty || fields.contains($0.0)) && Self.text($0.1).lowercased().contains(needle) }
            }
        }
        let (slice, pages) = try Shell.page(items, page, size: limit, noun: "items")
        // Columns: the first item's members that are not lists or objects, at most six.
        var columns: [String] = []
        if case .object(let members)? = (slice.first ?? view.items.first) {
            columns = members.filter { if case .array = $0.1 { false } else if case .object = $0.1 { false } else { true } }.map(\.0)
        }
        columns = Array(columns.prefix(6))
        let rows = slice.map { item in columns.map { Self.text(item[$0]) } }
        return .table(columns: columns.isEmpty ? ["item"] : columns, rows: columns.isEmpty ? slice.map { [$0.canonicalText()] } : rows,
                      records: slice, footer: "page \(page) of \(pages) · \(items.count) of \(view.items.count) items")
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

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        let state = try await context.liveState()
        let view = try ItemsCommand.view(state, source, resource)
        let fields = state.manifests[source]?.manifest.resource(resource)?.primaryKey ?? []
        guard !fields.isEmpty else { throw CommandError.failed("\(source) \(resource) has no primary_key: list it with items") }
        let wanted = key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let item = view.items.first(where: { item in fields.map { ItemsCommand.text(item[$0]) } == wanted }) else {
            throw CommandError.failed("no \(resource) item with \(fields.joined(separator: "/")) \(key) is held")
        }
        guard case .object(let members) = item else { return .json(item) }
        return .record(pairs: members.map { ($0.0, ItemsCommand.text($0.1)) }, json: item)
    }
}
