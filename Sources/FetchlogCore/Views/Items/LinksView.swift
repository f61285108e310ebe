import Foundation
import Synchronization

/// The links of a manifest resource (`fetchlog.links`): for each item, the items its link
/// fields name, the items that name it, and the names that match nothing; and shortest
/// paths between items of a resource that links to itself.
///
/// A name resolves as people read it: the exact trimmed text of the target's `by` field
/// first (the earliest item on a repeat), else the one item matching it ignoring case; a
/// name several items share up to case, none exactly, is unknown rather than guessed.
public struct LinksView: Sendable {
    /// One item's links: the target items it names and the names that matched none.
    public struct Entry: Sendable, Equatable {
        /// Indices (into the target's items) of the items this one names, in listed order,
        /// each once.
        public var links: [Int] = []
        /// Names (as listed) that match no target item.
        public var unknown: [String] = []
    }

    /// The items whose fields hold the links.
    public let items: ItemsView
    package let link: RestLink
    /// The items the links name (the same view when a resource links to itself).
    public let targets: ItemsView
    /// One per item of `items`, in its order.
    public var entries: [Entry] { resolved.entries }
    /// Per target item, the indices of the items naming it, ascending.
    public var listedBy: [[Int]] { resolved.listedBy }

    /// Names resolved, adjacency, look-up tables: built once per change of the items, the
    /// targets or the link, and shared by every view of them (`Resolution.cache`).
    private let resolved: Resolution

    /// The view of `resource`'s link `field` (its first link when nil); nil when the source,
    /// the resource or the link is not defined.
    public init?(state: LogState, source: String, resource: String, field: String? = nil) {
        guard let items = ItemsView(state: state, source: source, resource: resource),
              let link = field.map({ name in items.restResource.links.first { $0.field == name } }) ?? items.restResource.links.first,
              let targets = link.to == resource ? items : ItemsView(state: state, source: source, resource: link.to) else { return nil }
        self.items = items
        self.link = link
        self.targets = targets
        let key = "\(source)/\(resource)/\(link.field)"
        if let hit = Resolution.cache.value(key, items: items.fingerprint, targets: targets.fingerprint, link: link) {
            resolved = hit
        } else {
            resolved = Resolution(items: items, targets: targets, link: link)
            Resolution.cache.keep(key, resolved)
        }
    }

    /// What a links view answers from, derived from its items, targets and link alone.
    final class Resolution: Sendable {
        let itemsFingerprint: ItemsView.Fingerprint
        let targetsFingerprint: ItemsView.Fingerprint
        let link: RestLink
        let entries: [Entry]
        let listedBy: [[Int]]
        /// Target names: trimmed → first index; lowercased → indices.
        let exact: [String: Int]
        let folded: [String: [Int]]
        /// Items by primary key text (`a/b` for a compound key) → first index.
        let keys: [String: Int]
        /// Undirected neighbours (a resource linking to itself), compressed: item i's are
        /// `neighbours[offsets[i] ..< offsets[i + 1]]`, ascending.
        let offsets: [Int32]
        let neighbours: [Int32]

        init(items: ItemsView, targets: ItemsView, link: RestLink) {
            itemsFingerprint = items.fingerprint
            targetsFingerprint = targets.fingerprint
            self.link = link
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
            var keys: [String: Int] = [:]
            let primaryKey = items.restResource.primaryKey
            for (index, item) in items.items.enumerated() {
                // As `ItemsView.item(key:)` splits a key at "/": a value holding one can never
                // match, so it is left to that slow path (which then finds nothing either).
                let parts = primaryKey.map { ItemsView.text(item[$0]) }
                if !parts.isEmpty, !parts.contains(where: { $0.contains("/") }) {
                    let text = parts.joined(separator: "/")
                    if keys[text] == nil { keys[text] = index }
                }
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
            var offsets: [Int32] = [0], neighbours: [Int32] = []
            if link.to == items.resource {
                var sets = [Set<Int>](repeating: [], count: items.items.count)
                for (index, entry) in entries.enumerated() {
                    for target in entry.links where target != index {
                        sets[index].insert(target)
                        sets[target].insert(index)
                    }
                }
                for set in sets {
                    neighbours.append(contentsOf: set.sorted().map { Int32($0) })
                    offsets.append(Int32(neighbours.count))
                }
            }
            self.entries = entries
            self.listedBy = listedBy
            self.exact = exact
            self.folded = folded
            self.keys = keys
            self.offsets = offsets
            self.neighbours = neighbours
        }

        /// The last resolution of each link (a few dozen at most).
        final class Cache: Sendable {
            private let resolutions = Mutex<[String: Resolution]>([:])

            func value(_ key: String, items: ItemsView.Fingerprint, targets: ItemsView.Fingerprint, link: RestLink) -> Resolution? {
                resolutions.withLock { resolutions in
                    resolutions[key].flatMap { $0.itemsFingerprint == items && $0.targetsFingerprint == targets && $0.link == link ? $0 : nil }
                }
            }

            func keep(_ key: String, _ resolution: Resolution) {
                resolutions.withLock { resolutions in
                    if resolutions.count >= 256 { resolutions.removeAll() }
                    resolutions[key] = resolution
                }
            }
        }

        static let cache = Cache()
    }

    /// The index of the item whose primary key is `key`, else whose `by` field reads `key`.
    package func index(of key: String, in view: ItemsView) -> Int? {
        // The tables answer for the views they were built from (the usual case: `items`).
        if view.fingerprint == items.fingerprint, view.restResource.primaryKey == items.restResource.primaryKey {
            if let index = resolved.keys[key] { return index }
            if view.fingerprint == targets.fingerprint {
                let name = key.trimmingCharacters(in: .whitespacesAndNewlines)
                if let index = resolved.exact[name] { return index }
                let matches = resolved.folded[name.lowercased()] ?? []
                return matches.count == 1 ? matches[0] : nil
            }
        }
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
    package func path(from: Int, to: Int) -> [Int]? {
        guard link.to == items.resource, items.items.indices.contains(from), items.items.indices.contains(to) else { return nil }
        return shortestChain(offsets: resolved.offsets, targets: resolved.neighbours, from: from, to: to)
    }
}
