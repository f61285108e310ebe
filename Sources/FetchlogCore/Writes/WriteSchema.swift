import Foundation

/// A write refused before anything was recorded (bad input), or a pending mutation that a
/// retry or discard does not find: what happened and what to do.
public struct WriteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What happened and what to do.
    public let message: String
    /// A refusal saying `message`.
    package init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// The fields a resource's items have and their JSON kinds, which type a write's values
/// (numbers stay numbers): the resource's `columns` first, then the members the held
/// items hold (the first non-null value of each says its kind).
struct WriteSchema {
    enum Kind: String {
        case string, integer, number, boolean, json, unknown

        var noun: String {
            switch self {
            case .string: "a string"
            case .integer: "a whole number"
            case .number: "a number"
            case .boolean: "true or false"
            case .json: "a JSON object or list"
            case .unknown: "a JSON value"
            }
        }
    }

    private(set) var fields: [(name: String, kind: Kind)] = []

    /// `columns`: a manifest resource's declared `(name, type)`s (a plug-in's: none).
    init(columns: [(String, String)], items: [JSONValue]) {
        for (name, type) in columns {
            let kind: Kind = switch type {
            case "bigint": .integer
            case "double", "decimal", "wei": .number
            case "bool": .boolean
            case "json": .json
            default: .string
            }
            fields.append((name, kind))
        }
        var seen = Set(fields.map(\.name))
        var unknown: [String: Int] = [:]
        for item in items {
            guard case .object(let members) = item else { continue }
            for (name, value) in members where name != "pending" {
                let kind: Kind? = switch value {
                case .string: .string
                case .number: .number
                case .bool: .boolean
                case .object, .array: .json
                case .null: nil
                }
                if let kind {
                    if let at = unknown[name] {
                        fields[at].kind = kind
                        unknown[name] = nil
                    } else if !seen.contains(name) {
                        fields.append((name, kind))
                        seen.insert(name)
                    }
                } else if !seen.contains(name) {
                    // Null so far: known, kind unknown until a value says.
                    unknown[name] = fields.count
                    fields.append((name, .unknown))
                    seen.insert(name)
                }
            }
        }
    }

    var names: [String] { fields.map(\.name) }

    func kind(of field: String) -> Kind? { fields.first { $0.name == field }?.kind }

    /// Refuses a field the resource does not know, naming the ones it does.
    func known(_ field: String, resource: String) throws(WriteError) -> Kind {
        guard let kind = kind(of: field) else {
            let names = names.sorted()
            throw WriteError("\(resource) has no field '\(field)'\(Suggest.didYouMean(field, names)): "
                + (names.isEmpty ? "none is known yet (fetch the resource first, or declare its columns in the manifest)" : "its fields are \(names.joined(separator: ", "))"))
        }
        return kind
    }

    /// A value typed on the command line (`priority=2`), as the field's kind reads it.
    func value(_ field: String, text: String, resource: String) throws(WriteError) -> JSONValue {
        let kind = try known(field, resource: resource)
        if text == "null", kind != .string { return .null }
        switch kind {
        case .string:
            return .string(text)
        case .integer:
            guard Int64(text) != nil else { throw wrong(field, kind, "'\(text)'") }
            return .number(text)
        case .number:
            guard let number = Double(text), number.isFinite, !text.contains(" "), !text.hasPrefix("+") else { throw wrong(field, kind, "'\(text)'") }
            return .number(text)
        case .boolean:
            guard text == "true" || text == "false" else { throw wrong(field, kind, "'\(text)'") }
            return .bool(text == "true")
        case .json, .unknown:
            guard let json = try? JSONValue.parse(text) else {
                if kind == .unknown { return .string(text) }
                throw wrong(field, kind, "'\(text)'")
            }
            if kind == .json, !(json.arrayValue != nil || !json.memberNames.isEmpty || json == .object([])) { throw wrong(field, kind, "'\(text)'") }
            return json
        }
    }

    /// Refuses a value of the wrong kind (the library's door: values are JSON already).
    func check(_ field: String, _ value: JSONValue, resource: String) throws(WriteError) {
        let kind = try known(field, resource: resource)
        let fits: Bool = switch (kind, value) {
        case (_, .null), (.unknown, _): true
        case (.string, .string), (.number, .number), (.boolean, .bool), (.json, .object), (.json, .array): true
        case (.integer, .number): value.intValue != nil
        default: false
        }
        guard fits else { throw wrong(field, kind, value.canonicalText()) }
    }

    private func wrong(_ field: String, _ kind: Kind, _ given: String) -> WriteError {
        WriteError("\(field) takes \(kind.noun), not \(given.prefix(80)); nothing was recorded")
    }
}
