import Foundation
import Synchronization

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
        self.init(columns: columns)
        var seen = Set(fields.map(\.name))
        var unknown: [String: Int] = [:]
        for item in items {
            guard case .object(let members) = item else { continue }
            for (name, value) in members where name != "pending" {
                if let kind = Self.kind(of: value) {
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

    /// The declared fields alone.
    private init(columns: [(String, String)]) {
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
    }

    /// The kind a value says (null says none).
    static func kind(of value: JSONValue) -> Kind? {
        switch value {
        case .string: .string
        case .number: .number
        case .bool: .boolean
        case .object, .array: .json
        case .null: nil
        }
    }

    /// `init(columns:items:)` for the base items `members` were read from — with, when given,
    /// `folding`'s changes on top (items replaced, removed, added) — equal to it read over
    /// the folded items: a field is one some item shown holds (but `pending`); its kind is
    /// the first non-null value's, in the order shown (unknown if none); a declared column
    /// keeps its declared kind. The base items changed or removed are read again (to take
    /// them out), the others are not. Fields past the columns come in name order (only
    /// their set is seen: `known` sorts them).
    init(columns: [(String, String)], base members: Members, folding: WriteOverlay.Folding? = nil) {
        self.init(columns: columns)
        let seen = Set(fields.map(\.name))
        let (replaced, removed, added) = (folding?.replaced ?? [:], folding?.removed ?? [], folding?.added ?? [])
        let count = members.count
        // The base items not shown as they were, and how many of them held each name — read
        // only for a name so few items hold that those could be all of them.
        let dirty = removed.filter { $0 < count }.union(replaced.keys)
        let few = members.fields.filter { $0.value.count <= dirty.count }
        var lost: [String: Int] = [:]
        if !few.isEmpty {
            for at in dirty { for (name, _) in Members.names(of: members.items[at]) where few[name] != nil { lost[name, default: 0] += 1 } }
        }
        // Each name shown: where its first non-null value is (shown order is position order), and its kind.
        var first: [String: (at: Int, kind: Kind?)] = [:]
        for (name, field) in members.fields where field.count > lost[name, default: 0] {
            let found = field.nonNull.first { !dirty.contains(Int($0.at)) }
            first[name] = found.map { (Int($0.at), $0.kind) } ?? (Int.max, nil)
        }
        let changed = replaced.keys.filter { !removed.contains($0) }.sorted().map { ($0, replaced[$0]!) }
            + added.indices.filter { !removed.contains(count + $0) }.map { (count + $0, added[$0]) }
        // Member by member (a name twice in an item: its first non-null value still wins).
        for (at, item) in changed {
            guard case .object(let fields) = item else { continue }
            for (name, value) in fields where name != "pending" {
                let kind = Self.kind(of: value)
                if let now = first[name] {
                    if let kind, at < now.at { first[name] = (at, kind) }
                } else {
                    first[name] = (kind == nil ? Int.max : at, kind)
                }
            }
        }
        for name in first.keys.sorted() where !seen.contains(name) { fields.append((name, first[name]!.kind ?? .unknown)) }
    }

    /// What the schema reads of a list of items, read once: for each member name (but
    /// `pending`), how many items hold it and, in order, the items whose first non-null value
    /// of it says a kind, with the kind. Kept per resource while the fingerprint of what its
    /// items were built from is the same (the items are a pure function of it), so a write
    /// reads only the items the writes changed.
    final class Members: Sendable {
        struct Field: Sendable {
            var count = 0
            var nonNull: [(at: Int32, kind: Kind)] = []
        }
        let items: [JSONValue]
        let fields: [String: Field]
        var count: Int { items.count }

        init(_ items: [JSONValue]) {
            self.items = items
            var fields: [String: Field] = [:]
            for (at, item) in items.enumerated() {
                for (name, kind) in Self.names(of: item) {
                    fields[name, default: Field()].count += 1
                    if let kind { fields[name]!.nonNull.append((Int32(at), kind)) }
                }
            }
            self.fields = fields
        }

        /// An item's member names (but `pending`), each once, with its first non-null value's kind.
        static func names(of item: JSONValue) -> [(String, Kind?)] {
            guard case .object(let members) = item else { return [] }
            var found: [(String, Kind?)] = []
            for (name, value) in members where name != "pending" {
                let kind = WriteSchema.kind(of: value)
                if let at = found.firstIndex(where: { $0.0 == name }) {
                    if found[at].1 == nil { found[at].1 = kind }
                } else {
                    found.append((name, kind))
                }
            }
            return found
        }

        private static let kept = Mutex<[String: (fingerprint: ItemsView.Fingerprint, members: Members)]>([:])

        /// The members of `items`, the items built from `fingerprint` for `key` (source/resource):
        /// read again only when the fingerprint is another.
        static func of(_ key: String, _ fingerprint: ItemsView.Fingerprint, _ items: [JSONValue]) -> Members {
            if let hit = kept.withLock({ $0[key] }), hit.fingerprint == fingerprint, hit.members.count == items.count { return hit.members }
            let members = Members(items)
            kept.withLock { kept in
                if kept.count >= 256 { kept.removeAll() }
                kept[key] = (fingerprint, members)
            }
            return members
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
