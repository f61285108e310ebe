import FetchlogCore

/// Tab completion: commands, sources, view names, and what each source's commands complete
/// (ids, names).
///
/// Names may have spaces: they complete with the spaces escaped (`Tobus\ Quickwhistle`),
/// which the tokenizer reads back as one word. The line editor replaces only the text after
/// the last space, so each candidate is cut to that part.
public struct ShellCompletion: Sendable {
    /// The sources' commands and `fetch` targets.
    public let shell: ShellRegistry
    /// Every command of the shell, its own and the sources'.
    public let commandNames: [String]
    /// What `.mode` takes.
    public let modes: [String]

    /// Completion over `shell`, offering `commandNames` first and `modes` after `.mode`.
    public init(shell: ShellRegistry, commandNames: [String], modes: [String]) {
        self.shell = shell
        self.commandNames = commandNames
        self.modes = modes
    }

    /// What may complete the last word of `line` against `state`, sorted, each cut to the
    /// part after the line's last space (the editor replaces only that).
    public func candidates(for line: String, state: LogState) -> [String] {
        // The words before the current one, and the current one as typed (raw) and as meant.
        var words: [String] = []
        var current = ""
        var raw = ""
        var escaped = false
        for c in line {
            if escaped { current.append(c); raw.append(c); escaped = false; continue }
            if c == "\\" { escaped = true; raw.append(c); continue }
            if c == " " || c == "\t" {
                if !raw.isEmpty { words.append(current) }
                current = ""
                raw = ""
                continue
            }
            current.append(c)
            raw.append(c)
        }
        let editorWord = line.split(separator: " ", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let index = words.count
        var options: [String]
        switch (words.first ?? "", index) {
        case (_, 0): options = commandNames
        case ("fetch", 1): options = shell.fetchSources + ["asset"] + state.manifests.keys.sorted()
        case ("fetch", 2):
            options = shell.fetchTargets.filter { $0.source == words[1] && $0.synopsis != nil }.map(\.what)
                + (state.manifests[words[1]]?.manifest.resources.map(\.name) ?? [])
        case ("export", 1), ("diff", 3):
            // With sources defined by manifests: their items and facets views by name.
            options = ViewCatalog.exportNames(in: state)
        case ("items", 1), ("facets", 1), ("links", 1):
            options = state.manifests.keys.sorted()
        case ("item", 1):
            // One item by its key, or a change to one (offline writes).
            options = ["add", "set", "delete"] + state.manifests.keys.sorted()
        case ("pending", 1): options = ["retry", "discard"]
        case ("items", 2), ("item", 2), ("facets", 2), ("links", 2):
            options = state.manifests[words[1]]?.manifest.resources.map(\.name) ?? []
        case ("items", _) where index >= 3 && words.last == "--where":
            // `--where FIELD=`: the fields the held items have.
            options = ItemsView(state: state, source: words[1], resource: words[2]).map { view in
                var names: [String] = []
                for item in view.items.prefix(200) {
                    for name in item.memberNames where !names.contains(name) { names.append(name) }
                }
                return names.map { $0 + "=" }
            } ?? []
        case ("items", _) where index >= 3:
            options = ["--where", "--limit", "--page"]
        case ("log", 1): options = ["tail", "show", "stats", "verify"]
        case ("asset", 1): options = ["show", "save"]
        case (".mode", 1): options = modes
        case ("help", 1): options = commandNames
        default:
            // A source's command completes its own arguments (ids, names, sub-commands).
            options = shell.commands.first { $0.name == words.first }?.complete(state, index) ?? []
        }
        return options
            .filter { $0.lowercased().hasPrefix(current.lowercased()) }
            .sorted()
            .map { $0.replacingOccurrences(of: " ", with: "\\ ") }
            // Keep what was typed as typed (matching ignores case), so the editor only appends.
            .map { raw + $0.dropFirst(raw.count) }
            .map { String($0.dropFirst(max(0, raw.count - editorWord.count))) }
    }
}
