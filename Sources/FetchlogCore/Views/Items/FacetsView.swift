import Foundation

/// The facets of a manifest resource (`fetchlog.facets`), derived from the held items: for a
/// field whose values are all numbers, its range; otherwise each value (trimmed) with how
/// many items have it — a list field counted per element, once per item.
///
/// Export `facets/SOURCE/RESOURCE`: `{"view":"facets","asOf":N,"source","resource",
/// "facets":[{"field","min","max"} | {"field","values":[{"value","count"}]}]}`.
public struct FacetsView: Sendable, Equatable {
    /// One field's facet: the range of a numeric field, or each value with its count.
    public enum Facet: Sendable, Equatable {
        /// A field whose values are all numbers: their least and greatest.
        case range(field: String, min: Double, max: Double)
        /// Any other field: each value with how many items have it, by value.
        case values(field: String, counts: [(value: String, count: Int)])

        /// Equal when the field and its range, or its values and counts in order, are equal.
        public static func == (a: Facet, b: Facet) -> Bool {
            switch (a, b) {
            case let (.range(f1, l1, h1), .range(f2, l2, h2)): f1 == f2 && l1 == l2 && h1 == h2
            case let (.values(f1, c1), .values(f2, c2)): f1 == f2 && c1.elementsEqual(c2) { $0.value == $1.value && $0.count == $1.count }
            default: false
            }
        }
    }

    /// The manifest source the resource belongs to.
    public let source: String
    /// The resource whose items the facets describe.
    public let resource: String
    /// One facet per `fetchlog.facets` field.
    public let facets: [Facet]

    /// The facets of `source`'s resource `name` in `state`; nil when the source or the resource is not defined.
    public init?(state: LogState, source: String, resource name: String) {
        guard let items = ItemsView(state: state, source: source, resource: name),
              let resource = (state.plugin(source) as? ManifestSource)?.manifest.resource(name) else { return nil }
        self.source = source
        self.resource = name
        facets = resource.facetFields.map { field in
            // Per item, its values of the field: a list's elements, each once.
            let perItem: [[JSONValue]] = items.items.map { item in
                switch ItemsView.value(of: field, in: item) {
                case .array(let list)?: list.filter { !$0.isNull }
                case nil, .null?: []
                case let value?: [value]
                }
            }
            let values = perItem.joined()
            let numbers = values.compactMap { value -> Double? in if case .number = value { value.doubleValue } else { nil } }
            if !values.isEmpty, numbers.count == values.count {
                return .range(field: field, min: numbers.min()!, max: numbers.max()!)
            }
            // Text as people read it: trimmed (" Tinker" is "Tinker"); counted once per item.
            var counts: [String: Int] = [:]
            for list in perItem {
                var seen = Set<String>()
                for value in list {
                    let raw: String = if case .string(let s) = value { s } else { value.canonicalText() }
                    let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                    if seen.insert(text).inserted { counts[text, default: 0] += 1 }
                }
            }
            return .values(field: field, counts: counts.keys.sorted().map { ($0, counts[$0]!) })
        }
    }

    /// The canonical export at `seq` (`facets/SOURCE/RESOURCE`).
    public func export(asOf seq: UInt64) -> JSONValue {
        .object([("view", .string("facets")), ("asOf", .number(seq)), ("source", .string(source)), ("resource", .string(resource)),
                 ("facets", .array(facets.map { facet in
                     switch facet {
                     case .range(let field, let low, let high):
                         .object([("field", .string(field)), ("min", .number(low)), ("max", .number(high))])
                     case .values(let field, let counts):
                         .object([("field", .string(field)), ("values", .array(counts.map { .object([("value", .string($0.value)), ("count", .number($0.count))]) }))])
                     }
                 }))])
    }

    /// `facets/SOURCE/RESOURCE`, beside `items/…`.
    static let definition = ParameterizedView(prefix: "facets/", pattern: "facets/SOURCE/RESOURCE") { state, parameter in
        let parts = parameter.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        return FacetsView(state: state, source: parts[0], resource: parts[1])?.export(asOf: state.seq)
    }
}
