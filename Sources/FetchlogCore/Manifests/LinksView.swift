import Foundation

/// The links of a manifest resource (`fetchlog.links`): for each item, the items its link
/// fields name, the items that name it, and the names that match nothing; and shortest
/// paths between items of a resource that links to itself.
///
/// A name resolves as people read it: the exact trimmed text of the target's `by` field
/// first (the earliest item on a repeat), else the one item matching it ignoring case; a
/// name several items share up to case, none exactly, is unknown rather than guessed.
public struct LinksView: Sendable {
    public struct Entry: Sendable, Equatable {
        /// Indices (into the target's items) of the items this one names, in listed order,
        /// each once.
        public var links: [Int] = []
        /// Names (as listed) that match no target item.
        public var unknown: [String] = []
    }

    public let items: ItemsView
    public let link: RestLink
    public let targets: ItemsView
    /// One per item of `items`, in its order.
    public let entries: [Entry]
    /// Per target item, the indices of the items naming it, ascending.
    public let listedBy: [[Int]]

    /// The view of `resource`'s link `field` (its first link when nil); nil when the source,
    /// the resource or the link is not defined.
    public init?(state: LogState, source: String, resource: String, field: String? = nil) {
        guard let items = ItemsView(state: state, source: source, resource: resource),
              let link = field.map({ name in items.restResource.links.first { $0.field == name } }) ?? items.restResource.links.first,
              let targets = link.to == resource ? items : ItemsView(state: state, source: source, resource: link.to) else { return nil }
        self.items = items
        self.link = link
        self.targets = targets
        var exact: [String: Int] = [:], folded: [String: [Int]] = [:]
        for (index, target) in targets.items.enumerated() {
            guard case .string(let raw)? = target[link.by] else { continue }
            let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if exact[name] == nil { exact[name] = index }
            folded[name.lowercased(), default: []].append(index)
        }
        func resolve(_ text: String) -> Int? {
            let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if let index = exact[name] { return index }
            let candidates = folded[name.lowercased()] ?? []
            return candidates.count == 1 ? candidates[0] : nil
        }
        var entries: [Entry] = []
        var listedBy = [[Int]](repeating: [], count: targets.items.count)
        for (index, item) in items.items.enumerated() {
            var entry = Entry()
            let names: [String] = switch item[link.field] {
            case .string(let name)?: [name]
            case .array(let list)?: list.compactMap(\.stringValue)
            default: []
            }
            for name in names {
                guard let target = resolve(name) else { entry.unknown.append(name); continue }
                guard !entry.links.contains(target) else { continue }
                entry.links.append(target)
                listedBy[target].append(index)
            }
            entries.append(entry)
        }
        self.entries = entries
        self.listedBy = listedBy
    }

    /// The index of the item whose primary key is `key`, else whose `by` field reads `key`.
    public func index(of key: String, in view: ItemsView) -> Int? {
        if let item = view.item(key: key), let index = view.items.firstIndex(of: item) { return index }
        let name = key.trimmingCharacters(in: .whitespacesAndNewlines)
        if let index = view.items.firstIndex(where: { $0[link.by]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) == name }) {
            return index
        }
        let matches = view.items.indices.filter { view.items[$0][link.by]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == name.lowercased() }
        return matches.count == 1 ? matches[0] : nil
    }

    /// A shortest chain of item indices from `from` to `to` over links counted both ways
    /// (the resource must link to itself); among equally short chains the one choosing the
    /// earliest item at each step. `[from]` for one item; nil when they are not connected.
    public func path(from: Int, to: Int) -> [Int]? {
        guard link.to == items.resource, items.items.indices.contains(from), items.items.indices.contains(to) else { return nil }
        var neighbourSets = [Set<Int>](repeating: [], count: items.items.count)
        for (index, entry) in entries.enumerated() {
            for target in entry.links where target != index {
                neighbourSets[index].insert(target)
                neighbourSets[target].insert(index)
            }
        }
        return shortestChain(neighbours: neighbourSets.map { $0.sorted() }, from: from, to: to)
    }
}
