/// The generic view of a manifest resource: its items as received, deduplicated by the
/// primary key — first-seen order (pages by the seq of their held body, items in page
/// order), the newest body's values.
///
/// Export `items/SOURCE/RESOURCE`: `{"view":"items","asOf":N,"source","resource","count",
/// "items":[…]}`.
public struct ItemsView: Sendable, Equatable {
    public let source: String
    public let resource: String
    public let items: [JSONValue]

    public init?(state: LogState, source: String, resource name: String) {
        guard let plugin = state.plugin(source) as? ManifestSource, let resource = plugin.manifest.resource(name) else { return nil }
        self.source = source
        self.resource = name
        let kind = plugin.kind(of: resource)
        let pages = state.documents.filter { key, _ in key.source == source && plugin.documentKind(ofPath: key.path) == kind }
            .sorted { $0.value.seq < $1.value.seq }
            .compactMap { $0.value.document as? ManifestPage }
        var order: [String] = []          // keys (canonical text), first seen first
        var byKey: [String: JSONValue] = [:]
        var unkeyed: [JSONValue] = []
        for page in pages {
            for item in page.items {
                guard !resource.primaryKey.isEmpty else { unkeyed.append(item); continue }
                let key = JSONValue.array(resource.primaryKey.map { item[$0] ?? .null }).canonicalText()
                if byKey[key] == nil { order.append(key) }
                byKey[key] = item // a later page (a newer body) holds the newer values
            }
        }
        items = resource.primaryKey.isEmpty ? unkeyed : order.map { byKey[$0]! }
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
