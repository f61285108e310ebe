import Foundation

/// The generic view of a manifest resource: its items as received, deduplicated by the
/// primary key — first-seen order (pages by the seq of their held body, items in page
/// order), the newest body's values. A child resource's items follow their parents' order,
/// each with its `include_from_parent` members (`_PARENT_FIELD`) as dlt adds them.
///
/// Export `items/SOURCE/RESOURCE`: `{"view":"items","asOf":N,"source","resource","count",
/// "items":[…]}`.
public struct ItemsView: Sendable, Equatable {
    public let source: String
    public let resource: String
    /// The resource as the definition in force describes it.
    public let restResource: RestResource
    public let items: [JSONValue]

    public init?(state: LogState, source: String, resource name: String) {
        guard let plugin = state.plugin(source) as? ManifestSource, let resource = plugin.manifest.resource(name) else { return nil }
        self.source = source
        self.resource = name
        restResource = resource
        let kind = plugin.kind(of: resource)
        // Session-only pages (seq 0) were fetched after every page the log holds.
        let held = state.documents.filter { key, _ in key.source == source && plugin.documentKind(ofPath: key.path) == kind }
            .sorted { ($0.value.seq == 0 ? .max : $0.value.seq, $0.key.path) < ($1.value.seq == 0 ? .max : $1.value.seq, $1.key.path) }
            .compactMap { key, held in (held.document as? ManifestPage).map { (key.path, $0) } }
        guard let parentName = resource.parent else {
            items = Self.deduplicated(held.flatMap(\.1.items), key: resource.primaryKey)
            return
        }
        guard let parent = ItemsView(state: state, source: source, resource: parentName) else { return nil }
        // Pages by their path (no query); a parent item's pages are those at its resolved
        // path whose query holds its resolved placeholder parameters.
        var byPath: [Substring: [(query: Set<Substring>, page: ManifestPage)]] = [:]
        for (path, page) in held {
            let parts = path.split(separator: "?", maxSplits: 1)
            byPath[parts[0], default: []].append((Set(parts.count > 1 ? parts[1].split(separator: "&") : []), page))
        }
        let placeholderParams = Set(resource.params.filter { $0.1.contains("{") }.map(\.0))
        var collected: [JSONValue] = []
        for parentItem in parent.items {
            guard case .success(let child) = resource.resolved(for: parentItem) else { continue }
            let wanted = child.params.filter { placeholderParams.contains($0.0) }.map { Substring("\($0.0)=\(Resource.queryEscape($0.1))") }
            let extra = resource.parentMembers(of: parentItem)
            for entry in byPath[Substring(child.path)] ?? [] where wanted.allSatisfy(entry.query.contains) {
                collected += entry.page.items.map { Self.adding(extra, to: $0) }
            }
        }
        items = Self.deduplicated(collected, key: resource.primaryKey)
    }

    /// `item` with `members` set: an existing member keeps its place (Python's dict.update).
    static func adding(_ members: [(String, JSONValue)], to item: JSONValue) -> JSONValue {
        guard !members.isEmpty, case .object(var own) = item else { return item }
        for (name, value) in members {
            if let index = own.firstIndex(where: { $0.0 == name }) { own[index].1 = value } else { own.append((name, value)) }
        }
        return .object(own)
    }

    /// First-seen order, the last-seen values (a later page is a newer body); no key keeps all.
    static func deduplicated(_ items: [JSONValue], key: [String]) -> [JSONValue] {
        guard !key.isEmpty else { return items }
        var order: [String] = []
        var byKey: [String: JSONValue] = [:]
        for item in items {
            let text = keyText(item, key)
            if byKey[text] == nil { order.append(text) }
            byKey[text] = item
        }
        return order.map { byKey[$0]! }
    }

    /// An item's primary key as canonical JSON text (`[5]`), the identity `source try` reports.
    static func keyText(_ item: JSONValue, _ key: [String]) -> String {
        JSONValue.array(key.map { item[$0] ?? .null }).canonicalText()
    }

    // MARK: Questions

    /// An item's member as text: strings as they are, numbers as written, `-` for null.
    public static func text(_ value: JSONValue?) -> String {
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
        case let value?: [text(value).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()]
        }
    }

    /// A `--where` condition: `FIELD=VALUE` (trimmed, case-insensitive, any element of a
    /// list) or `FIELD=MIN..MAX` (numbers, inclusive, either bound may be left out).
    public struct Condition: Sendable, Equatable {
        public let field: String
        public let value: String

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
                guard let number = item[field]?.doubleValue else { return false }
                return (low.map { number >= $0 } ?? true) && (high.map { number <= $0 } ?? true)
            }
            let wanted = value.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            return ItemsView.foldedTexts(item[field]).contains(wanted)
        }
    }

    /// The items matching every condition and, when `text` is not blank, holding it
    /// (trimmed, case-insensitive, partial) in a `fetchlog.search` field — or in any field
    /// when the resource names none. In view order.
    public func query(text: String = "", conditions: [Condition] = []) -> [JSONValue] {
        let needle = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let fields = restResource.searchFields
        return items.filter { item in
            guard conditions.allSatisfy({ $0.matches(item) }) else { return false }
            guard !needle.isEmpty else { return true }
            guard case .object(let members) = item else { return false }
            return members.contains { (fields.isEmpty || fields.contains($0.0)) && Self.foldedTexts($0.1).contains { $0.contains(needle) } }
        }
    }

    /// The item whose primary key is `key` (values joined by `/` for a key of several fields).
    public func item(key: String) -> JSONValue? {
        guard !restResource.primaryKey.isEmpty else { return nil }
        let wanted = key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return items.first { item in restResource.primaryKey.map { Self.text(item[$0]) } == wanted }
    }

    /// The first image URL an item holds, in the order of `fetchlog.images`.
    public func imageURL(of item: JSONValue) -> String? {
        for path in restResource.imageFields {
            var value: JSONValue? = item
            for key in path { value = value?[key] }
            if case .string(let url)? = value, !url.isEmpty { return url }
        }
        return nil
    }

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
