import FetchlogCore

/// `help COMMAND`'s example for the commands over a manifest's resources (`items`, `item`,
/// `facets`, `links`; `pending` and `push` run as they are): a command that runs on this store, naming one of its own sources, its
/// first resource and an item it holds; on a store that defines none, the registry's example
/// (`defined:COMMAND` in its demo plan: the seed shell's names the census manifest the
/// repository ships, with the two steps that make it run). (The
/// table's own example stays `help items`: it is what `help` lists and what runs on the
/// demo store, which defines no manifest.)
enum HelpExamples {
    static let commands: Set<String> = ["items", "item", "facets", "links"]

    /// The example `help name` shows on `state`, or nil for a command whose table example serves.
    static func example(for name: String, state: LogState) -> String? {
        // The writes' commands take no source: they run as they are, on any store.
        if name == "pending" || name == "push" { return name }
        guard commands.contains(name) else { return nil }
        if let source = state.manifests.keys.sorted().first, let defined = state.manifests[source]?.manifest,
           let resource = defined.resources.first {
            let key = ItemsView(state: state, source: source, resource: resource.name, confirmedOnly: false)?.items.first.map { item in
                resource.primaryKey.map { ItemsView.text(item[$0]) }.joined(separator: "/")
            } ?? "KEY"
            return command(name, source: source, resource: resource.name, key: key)
        }
        // The registry's own (the seed sources' shell names the manifest the repository ships).
        return Engine.shell.demo.examples["defined:" + name]
    }

    private static func command(_ name: String, source: String, resource: String, key: String) -> String {
        switch name {
        case "item", "links": "\(name) \(source) \(resource) \(key)"
        default: "\(name) \(source) \(resource)"
        }
    }
}
