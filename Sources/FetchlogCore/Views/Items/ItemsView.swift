import Foundation
import Synchronization

/// The generic view of a manifest resource: its items as received, deduplicated by the
/// primary key — first-seen order (pages by the seq of their held body, items in page
/// order), the newest body's values. A child resource's items follow their parents' order,
/// each with its `include_from_parent` members (`_PARENT_FIELD`) as dlt adds them.
///
/// Export `items/SOURCE/RESOURCE`: `{"view":"items","asOf":N,"source","resource","count",
/// "items":[…]}`.
public struct ItemsView: Sendable, Equatable {
    let fingerprint: Fingerprint
    /// The search index, built on the first text search and shared by every copy.
    private var search: SearchBox
    /// Where each key's items are (`keyPositions`), built when writes are first folded on
    /// these items and shared by every copy, as the search index is.
    private var keys: KeyPositionsBox
    /// The manifest source the resource belongs to.
    public let source: String
    /// The resource's name in the manifest.
    public let resource: String
    /// The resource as the definition in force describes it.
    package let restResource: RestResource
    /// The resource's items, deduplicated by primary key, in first-seen order.
    public private(set) var items: [JSONValue]

    /// Built from the pages the state holds — or reused, with its search index, while the
    /// resource's definition and pages (and its parents') are the ones it was built from.
    /// Issue 26: the server's answers to writes and the pending mutations are folded on top,
    /// each changed item with a `pending` member (`WriteOverlay`); `confirmedOnly` leaves
    /// the pending ones out (the server's truth alone).
    public init?(state: LogState, source: String, resource name: String, confirmedOnly: Bool = false) {
        guard let plugin = state.plugin(source) as? ManifestSource, let resource = plugin.manifest.resource(name) else { return nil }
        // Session-only pages (seq 0) were fetched after every page the log holds.
        let pages = HeldPages.of(state, plugin: plugin, source: source, resource: resource)
        let held = pages.pages
        var parent: ItemsView?
        if let parentName = resource.parent {
            guard let view = ItemsView(state: state, source: source, resource: parentName) else { return nil }
            parent = view
        }
        // `replace` reads which pages the latest run asked for: their attempts are part of
        // what the view is built from.
        let asked = { (label: String) in state.status[ResourceKey(source: source, path: label)]?.lastAttemptSeq ?? 0 }
        // The identities as kept (`HeldPages`): the cache compares them by their storage first.
        let identities = resource.writeDisposition == .replace
            ? zip(pages.identities, held).map { $0.0 + "\u{0}" + String(asked($0.1.0)) } : pages.identities
        let fingerprint = Fingerprint(resource: resource, pages: identities, parent: parent?.fingerprint)
        if let hit = Self.cache.view(source + "/" + name, fingerprint) {
            self = hit
            foldWrites(state, confirmedOnly: confirmedOnly)
            return
        }
        self.source = source
        self.resource = name
        restResource = resource
        self.fingerprint = fingerprint
        search = SearchBox()
        keys = KeyPositionsBox()
        if let parent {
            items = Self.childItems(resource, held, parent: parent)
        } else {
            switch resource.writeDisposition {
            case .append?:
                items = held.flatMap(\.1.items)
            case .replace?:
                // The latest run of the list: the pages asked for since its first page last
                // was (a 304 counts: it confirms the held body).
                let since = asked(resource.firstPageLabel)
                items = Self.deduplicated(held.filter { asked($0.0) >= since }.flatMap(\.1.items), key: resource.primaryKey)
            case .merge?, nil:
                items = Self.deduplicated(held.flatMap(\.1.items), key: resource.primaryKey)
            }
        }
        // dlt loads only what lies inside an incremental's bounds (`initial_value`,
        // `end_value`); an item without a cursor value as `on_cursor_value_missing` says.
        if let incremental = resource.incremental { items = items.filter(incremental.keeps) }
        Self.cache.keep(source + "/" + name, self)
        foldWrites(state, confirmedOnly: confirmedOnly)
    }

    /// Folds the writes on top (issue 26); the cache keeps the view of the pages alone.
    private mutating func foldWrites(_ state: LogState, confirmedOnly: Bool) {
        let (base, key, keys) = (self.items, restResource.primaryKey, self.keys)
        let (source, resource) = (self.source, restResource)
        guard let changed = WriteOverlay.items(base, positions: { keys.positions { Self.keyPositions(base, key: key) } }, state: state,
                                               source: source, resource: resource.name, key: key,
                                               newestPage: { WriteOverlay.newestPageSeq(state, source: source, resource: resource) },
                                               confirmedOnly: confirmedOnly, built: fingerprint) else { return }
        items = changed
        search = SearchBox()
        self.keys = KeyPositionsBox()
    }

    /// Each key's positions in `items` (ascending), by the key's fields as `text` writes them.
    static func keyPositions(_ items: [JSONValue], key: [String]) -> [[String]: [Int]] {
        var positions: [[String]: [Int]] = [:]
        positions.reserveCapacity(items.count)
        for (at, item) in items.enumerated() { positions[key.map { text(item[$0]) }, default: []].append(at) }
        return positions
    }

    /// A child resource's items: per parent item, the pages at its resolved path whose
    /// query holds its resolved placeholder parameters, each item with its parent members.
    private static func childItems(_ resource: RestResource, _ held: [(String, ManifestPage)], parent: ItemsView) -> [JSONValue] {
        var byPath: [Substring: [(query: Set<Substring>, fragment: Substring?, page: ManifestPage)]] = [:]
        for (label, page) in held {
            // A `#resource …` fragment is not part of the URL; it holds the request's filled
            // header templates and body, which may be all that names the parent item.
            let parts = label.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let url = parts[0].split(separator: "?", maxSplits: 1)
            byPath[url[0], default: []].append((Set(url.count > 1 ? url[1].split(separator: "&") : []), parts.count > 1 ? parts[1] : nil, page))
        }
        // A paginator that writes into the body (a cursor, a page) changes it page by page:
        // only the first page's would match, so the fragment is not compared then.
        let bodyPaged = resource.paginator.writesBody
        let placeholderParams = Set(resource.params.filter { $0.1.contains("{") }.map(\.0))
        var collected: [JSONValue] = []
        for parentItem in parent.items {
            guard case .success(let child) = resource.resolved(for: parentItem) else { continue }
            let wanted = child.params.filter { placeholderParams.contains($0.0) }.map { Substring("\($0.0)=\(Resource.queryEscape($0.1))") }
            let suffix = bodyPaged ? "" : child.requestSuffix()
            let extra = resource.parentMembers(of: parentItem)
            for entry in byPath[Substring(child.requestPath)] ?? [] where wanted.allSatisfy(entry.query.contains) {
                if !suffix.isEmpty, entry.fragment.map({ "#" + $0 }) != suffix { continue }
                collected += entry.page.items.map { adding(extra, to: $0) }
            }
        }
        return deduplicated(collected, key: resource.primaryKey)
    }

    /// Equal when the same resource, read with the same definition, holds the same items.
    public static func == (a: ItemsView, b: ItemsView) -> Bool {
        a.source == b.source && a.resource == b.resource && a.restResource == b.restResource && a.items == b.items
    }

    /// What a view was built from: the definition and the identities of its pages (and
    /// its parent's).
    final class Fingerprint: Sendable, Equatable {
        let resource: RestResource
        let pages: [String]
        let parent: Fingerprint?

        init(resource: RestResource, pages: [String], parent: Fingerprint?) {
            self.resource = resource
            self.pages = pages
            self.parent = parent
        }

        static func == (a: Fingerprint, b: Fingerprint) -> Bool {
            a === b || (a.pages == b.pages && a.resource == b.resource && a.parent == b.parent)
        }
    }

    /// Whether `a` and `b` are one array (the same storage), not merely equal: at once.
    static func sameStorage(_ a: [JSONValue], _ b: [JSONValue]) -> Bool {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress && a.count == b.count } }
    }

    /// What a write is checked against (issue 26) without reading every item: the schema
    /// from the base items' `WriteSchema.Members` (kept per resource and fingerprint) and the
    /// few items the writes changed, and whether an item with a key (fields joined by `/`) is
    /// shown, through the key positions. Nil when these items are neither the cached view of
    /// the pages alone nor the last fold kept (`WriteOverlay.Kept`): read them all then.
    func writeChecking(columns: [(String, String)]) -> (schema: WriteSchema, holds: (String) -> Bool)? {
        let (name, key, items) = (source + "/" + resource, restResource.primaryKey, self.items)
        guard !key.isEmpty else { return nil }
        if let base = Self.cache.view(name, fingerprint), Self.sameStorage(base.items, items) {
            let members = WriteSchema.Members.of(name, fingerprint, items)
            let keys = self.keys
            return (WriteSchema(columns: columns, base: members), { text in
                keys.positions { Self.keyPositions(items, key: key) }[text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)] != nil
            })
        }
        guard let folding = WriteOverlay.Kept.folding(name + "/optimistic", built: fingerprint, items: items) else { return nil }
        let members = WriteSchema.Members.of(name, fingerprint, folding.base)
        return (WriteSchema(columns: columns, base: members, folding: folding), { folding.index(of: $0) != nil })
    }

    /// A view's `keyPositions`, built once and shared by its copies.
    final class KeyPositionsBox: Sendable {
        private let built = Mutex<[[String]: [Int]]?>(nil)

        func positions(_ build: () -> [[String]: [Int]]) -> [[String]: [Int]] {
            built.withLock { built in
                if let built { return built }
                let positions = build()
                built = positions
                return positions
            }
        }
    }

    /// The last view of each resource (a few dozen at most: one per source and resource).
    final class Cache: Sendable {
        private let views = Mutex<[String: ItemsView]>([:])

        func view(_ key: String, _ fingerprint: Fingerprint) -> ItemsView? {
            views.withLock { views in views[key].flatMap { $0.fingerprint == fingerprint ? $0 : nil } }
        }

        func keep(_ key: String, _ view: ItemsView) {
            views.withLock { views in
                if views.count >= 256 { views.removeAll() }
                views[key] = view
            }
        }
    }

    static let cache = Cache()

    /// `item` with `members` set: an existing member keeps its place (Python's dict.update).
    static func adding(_ members: [(String, JSONValue)], to item: JSONValue) -> JSONValue {
        guard !members.isEmpty, case .object(var own) = item else { return item }
        for (name, value) in members {
            if let index = own.firstIndex(where: { $0.0 == name }) { own[index].1 = value } else { own.append((name, value)) }
        }
        return .object(own)
    }

    /// First-seen order, the last-seen values (a later page is a newer body); no key keeps all.
    /// An item without a value for the key (or not an object) is left out: it cannot be told
    /// from another, nor asked for by `item KEY` (a fetch reports how many, `FetchNotice`).
    static func deduplicated(_ items: [JSONValue], key: [String]) -> [JSONValue] {
        guard !key.isEmpty else { return items }
        var order: [String] = []
        var byKey: [String: JSONValue] = [:]
        for item in items where hasKey(item, key) {
            let text = keyText(item, key)
            if byKey[text] == nil { order.append(text) }
            byKey[text] = item
        }
        return order.map { byKey[$0]! }
    }

    /// True when `item` is an object with a non-null value for every field of `key`.
    static func hasKey(_ item: JSONValue, _ key: [String]) -> Bool {
        guard case .object = item else { return false }
        return key.allSatisfy { field in item[field].map { !$0.isNull } ?? false }
    }

    /// An item's primary key as canonical JSON text (`[5]`), the identity `source try` reports.
    static func keyText(_ item: JSONValue, _ key: [String]) -> String {
        JSONValue.array(key.map { item[$0] ?? .null }).canonicalText()
    }

    // MARK: Questions

    /// An item's member as text: strings as they are, numbers as written, `-` for null.
    package static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let s)?: s
        case .number(let n)?: n
        case .bool(let b)?: b ? "true" : "false"
        case nil, .null?: "-"
        case let other?: other.canonicalText()
        }
    }

    /// The texts a member offers to search and filters: trimmed and lowercased, a list's
    /// elements one by one.
    static func foldedTexts(_ value: JSONValue?) -> [String] {
        switch value {
        case .array(let list)?: list.flatMap { foldedTexts($0) }
        case nil, .null?: []
        case let value?: [fold(text(value))]
        }
    }

    /// `text` trimmed of white space and lowercased, as a search compares it. ASCII text (by
    /// far the most) is folded byte by byte: Foundation's trimming and String's lowercasing
    /// cost more than the rest of building a search index; any other text goes through them.
    static func fold(_ text: String) -> String {
        let utf8 = text.utf8
        guard !utf8.contains(where: { $0 >= 0x80 }) else { return text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }
        // ASCII white space of `CharacterSet.whitespacesAndNewlines`: tab, LF, VT, FF, CR, space.
        func white(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09 ... 0x0D).contains(byte) }
        var start = utf8.startIndex, end = utf8.endIndex
        while start < end, white(utf8[start]) { start = utf8.index(after: start) }
        while end > start, white(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        return String(decoding: utf8[start ..< end].map { (0x41 ... 0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// An item's value of `field`: its member of that name, else a dotted path
    /// (`author.name`) walked member by member — through a list, each element's (a list of
    /// them). One reading for `--where`, facets, search fields and columns: a nested field
    /// is never silently empty.
    package static func value(of field: String, in item: JSONValue) -> JSONValue? {
        if let own = item[field] { return own }
        guard field.contains(".") else { return nil }
        var current: [JSONValue] = [item]
        var listed = false
        for name in field.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            var next: [JSONValue] = []
            for value in current {
                switch value {
                case .object: if let member = value[name] { next.append(member) }
                case .array(let elements):
                    listed = true
                    for case let element in elements { if let member = element[name] { next.append(member) } }
                default: break
                }
            }
            guard !next.isEmpty else { return nil }
            current = next
        }
        return listed || current.count > 1 ? .array(current) : current.first
    }

    /// Every field of `items` as `value(of:in:)` reads it: members, and an object member's
    /// members as dotted paths, in first-seen order (what an error names when a field is
    /// missing). At most `limit` names.
    package static func fieldNames(of items: [JSONValue], limit: Int = 40) -> [String] {
        var names: [String] = []
        var seen = Set<String>()
        func add(_ value: JSONValue, prefix: String, depth: Int) {
            guard case .object(let members) = value else { return }
            for (name, member) in members where names.count < limit {
                let path = prefix.isEmpty ? name : prefix + "." + name
                if case .object = member, depth < 3 { add(member, prefix: path, depth: depth + 1); continue }
                if seen.insert(path).inserted { names.append(path) }
            }
        }
        for item in items.prefix(200) where names.count < limit { add(item, prefix: "", depth: 0) }
        return names
    }

    /// True when some item holds `field` (as `value(of:in:)` reads it).
    package func holds(field: String) -> Bool {
        items.contains { Self.value(of: field, in: $0) != nil }
    }

    /// A `--where` condition: `FIELD=VALUE` (trimmed, case-insensitive, any element of a
    /// list) or `FIELD=MIN..MAX` (numbers, inclusive, either bound may be left out).
    public struct Condition: Sendable, Equatable {
        /// The field the condition tests.
        public let field: String
        /// `VALUE` or `MIN..MAX`, as written.
        public let value: String

        /// A condition that `field` matches `value` (`VALUE` or `MIN..MAX`).
        public init(field: String, value: String) {
            self.field = field
            self.value = value
        }

        /// `FIELD=VALUE`; nil when there is no `=` or no field.
        public init?(parsing text: String) {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { return nil }
            self.init(field: parts[0], value: parts[1])
        }

        var range: (Double?, Double?)? {
            let bounds = value.components(separatedBy: "..")
            guard bounds.count == 2 else { return nil }
            let low = bounds[0].isEmpty ? nil : Double(bounds[0]), high = bounds[1].isEmpty ? nil : Double(bounds[1])
            guard (low != nil || bounds[0].isEmpty), (high != nil || bounds[1].isEmpty), low != nil || high != nil else { return nil }
            return (low, high)
        }

        func matches(_ item: JSONValue) -> Bool {
            if let (low, high) = range {
                guard let number = ItemsView.value(of: field, in: item)?.doubleValue else { return false }
                return (low.map { number >= $0 } ?? true) && (high.map { number <= $0 } ?? true)
            }
            let wanted = value.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            return ItemsView.foldedTexts(ItemsView.value(of: field, in: item)).contains(wanted)
        }
    }

    /// The items matching every condition and, when `text` is not blank, holding it
    /// (trimmed, case-insensitive, partial) in a `fetchlog.search` field — or in any field
    /// when the resource names none. In view order.
    public func query(text: String = "", conditions: [Condition] = []) -> [JSONValue] {
        positions(text: text, conditions: conditions).map { items[$0] }
    }

    /// `query`'s answer as positions in `items` (ascending): a page of a large answer is
    /// taken without copying the rest.
    package func positions(text: String = "", conditions: [Condition] = []) -> [Int] {
        let needle = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard !needle.isEmpty else {
            return conditions.isEmpty ? Array(items.indices) : items.indices.filter { index in conditions.allSatisfy { $0.matches(items[index]) } }
        }
        let found = searchIndex.matching(needle) { ItemsSearchIndex.texts(items[$0], restResource.searchFields) }
            ?? items.indices.filter { ItemsSearchIndex.texts(items[$0], restResource.searchFields).contains { $0.contains(needle) } }
        return conditions.isEmpty ? found : found.filter { position in conditions.allSatisfy { $0.matches(items[position]) } }
    }

    /// The text search's index (built on first use, shared by every copy): the SQL read model
    /// keeps its bytes, so a one-shot `items … TEXT` searches without folding the store.
    package var searchIndex: ItemsSearchIndex {
        search.index { ItemsSearchIndex(items, fields: restResource.searchFields) }
    }

    /// The item whose primary key is `key` (values joined by `/` for a key of several fields).
    public func item(key: String) -> JSONValue? {
        guard !restResource.primaryKey.isEmpty else { return nil }
        let wanted = key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return items.first { item in restResource.primaryKey.map { Self.text(item[$0]) } == wanted }
    }

    /// The first image URL an item holds, in the order of `fetchlog.images`.
    package func imageURL(of item: JSONValue) -> String? {
        for path in restResource.imageFields {
            var value: JSONValue? = item
            for key in path { value = value?[key] }
            if case .string(let url)? = value, !url.isEmpty { return url }
        }
        return nil
    }

    /// The canonical export at `seq` (`items/SOURCE/RESOURCE`).
    public func export(asOf seq: UInt64) -> JSONValue {
        .object([("view", .string("items")), ("asOf", .number(seq)), ("source", .string(source)), ("resource", .string(resource)),
                 ("count", .number(items.count)), ("items", .array(items))])
    }

    /// `items/SOURCE/RESOURCE`, registered when a manifest source is.
    static let definition = ParameterizedView(prefix: "items/", pattern: "items/SOURCE/RESOURCE") { state, parameter in
        let parts = parameter.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        return ItemsView(state: state, source: parts[0], resource: parts[1])?.export(asOf: state.seq)
    }
}
