/// JSON Schemas (2020-12) for the exports of a manifest resource, generated from the
/// manifest and the data held: `export items/SOURCE/RESOURCE --schema`. The seed views'
/// schemas are files in `Schemas/`; a manifest's views exist only once it is defined, so
/// their schemas are made when asked.
public enum ManifestSchemas {
    static let dialect = "https://json-schema.org/draft/2020-12/schema"

    /// The schema of `items/SOURCE/RESOURCE`: the envelope exactly; each item an object
    /// with its primary key and `include_from_parent` members required, and every member
    /// seen in the held items typed as the data types it (other members allowed: the next
    /// body may add one).
    package static func items(_ view: ItemsView) -> JSONValue {
        var types: [(String, Set<String>)] = []
        for item in view.items {
            guard case .object(let members) = item else { continue }
            for (name, value) in members {
                if let index = types.firstIndex(where: { $0.0 == name }) { types[index].1.insert(typeName(value)) } else { types.append((name, [typeName(value)])) }
            }
        }
        // A column the manifest types (dlt's `columns`) takes its declared type, or null
        // (dlt's columns are nullable), whatever the data held so far shows.
        for (name, dltType) in view.restResource.columnTypes {
            let declared = Set((RestResource.columnSchemaTypes[dltType] ?? []) + ["null"])
            if let index = types.firstIndex(where: { $0.0 == name }) { types[index].1 = declared } else { types.append((name, declared)) }
        }
        // An integer is a number: where both were seen, "number" says it.
        let properties: [(String, JSONValue)] = types.sorted { $0.0 < $1.0 }.map { name, seen in
            var names = seen
            if names.contains("number") { names.remove("integer") }
            let sorted = names.sorted()
            return (name, .object([("type", sorted.count == 1 ? .string(sorted[0]) : .array(sorted.map(JSONValue.string)))]))
        }
        let resource = view.restResource
        let required = resource.primaryKey + resource.parentMembers(of: .object([])).map(\.0)
        let item: JSONValue = .object([("type", .string("object")), ("required", .array(required.map(JSONValue.string))),
                                       ("properties", .object(properties))])
        return envelope("items", view.source, view.resource, [
            ("count", .object([("type", .string("integer")), ("minimum", .number(0))])),
            ("items", .object([("type", .string("array")), ("items", item)])),
        ])
    }

    /// The schema of `facets/SOURCE/RESOURCE`: each facet a range or a list of values with
    /// counts, its field one the manifest names.
    package static func facets(_ view: FacetsView, fields: [String]) -> JSONValue {
        let field: JSONValue = .object([("enum", .array(fields.map(JSONValue.string)))])
        let range: JSONValue = .object([
            ("type", .string("object")), ("required", .array(["field", "min", "max"].map(JSONValue.string))), ("additionalProperties", .bool(false)),
            ("properties", .object([("field", field), ("min", .object([("type", .string("number"))])), ("max", .object([("type", .string("number"))]))])),
        ])
        let value: JSONValue = .object([
            ("type", .string("object")), ("required", .array(["value", "count"].map(JSONValue.string))), ("additionalProperties", .bool(false)),
            ("properties", .object([("value", .object([("type", .string("string"))])), ("count", .object([("type", .string("integer")), ("minimum", .number(1))]))])),
        ])
        let values: JSONValue = .object([
            ("type", .string("object")), ("required", .array(["field", "values"].map(JSONValue.string))), ("additionalProperties", .bool(false)),
            ("properties", .object([("field", field), ("values", .object([("type", .string("array")), ("items", value)]))])),
        ])
        return envelope("facets", view.source, view.resource, [
            ("facets", .object([("type", .string("array")), ("items", .object([("oneOf", .array([range, values]))]))])),
        ])
    }

    private static func envelope(_ view: String, _ source: String, _ resource: String, _ members: [(String, JSONValue)]) -> JSONValue {
        let fixed: [(String, JSONValue)] = [
            ("view", .object([("const", .string(view))])), ("asOf", .object([("type", .string("integer")), ("minimum", .number(0))])),
            ("source", .object([("const", .string(source))])), ("resource", .object([("const", .string(resource))])),
        ]
        let all = fixed + members
        return .object([
            ("$schema", .string(dialect)), ("title", .string("\(view)/\(source)/\(resource)")), ("type", .string("object")),
            ("required", .array(all.map { .string($0.0) })), ("additionalProperties", .bool(false)), ("properties", .object(all)),
        ])
    }

    static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        case .number(let text): text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? "number" : "integer"
        }
    }

    /// The schema of a parameterized manifest view (`items/…`, `facets/…`), nil for others.
    public static func schema(of view: String, state: LogState) -> JSONValue? {
        let parts = view.split(separator: "/").map(String.init)
        guard parts.count == 3 else { return nil }
        switch parts[0] {
        case "items": return ItemsView(state: state, source: parts[1], resource: parts[2]).map(items)
        case "facets":
            guard let facets = FacetsView(state: state, source: parts[1], resource: parts[2]),
                  let resource = (state.plugin(parts[1]) as? ManifestSource)?.manifest.resource(parts[2]) else { return nil }
            return Self.facets(facets, fields: resource.facetFields)
        default: return nil
        }
    }
}
