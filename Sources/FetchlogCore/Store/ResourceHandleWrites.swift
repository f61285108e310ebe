import Foundation

/// The library's door to offline writes (issue 26), beside the command line's `item
/// add|set|replace|delete`: the same checks against the resource's declared writes and
/// fields, the same `WriteError`s, the same events. A change is recorded before the call
/// returns, whether the upstream is reachable or not; `Store.push()` sends what waits.
extension ResourceHandle {
    /// Records a new item with `fields` (`["title": "buy bread", "priority": 2]`: numbers
    /// stay numbers, `nil` writes null) and returns the change, pending: its key is
    /// `local:ID` until the server names one.
    ///
    /// Throws ``WriteError`` — and records nothing — when the resource declares no create,
    /// names no such field, or a value is not of its field's kind (the resource's `columns`,
    /// else the values its held items have).
    @discardableResult
    public func add(_ fields: [String: any Encodable]) async throws -> Mutation {
        try await record(.create, key: nil, fields: Self.members(fields))
    }

    /// Records a new item from `value`, a type of yours encoded as a JSON object (its
    /// properties the fields), as `add(_:)` with a dictionary does.
    @discardableResult
    public func add<Value: Encodable>(_ value: Value) async throws -> Mutation {
        try await record(.create, key: nil, fields: Self.members(encoding: value))
    }

    /// Records a change of the fields given of the item whose key is `key` (its primary-key
    /// fields joined by `/`, or a created item's `local:ID`); the others stay as they are.
    /// Throws ``WriteError`` when the item is not held, or a field is unknown, of the wrong
    /// kind or part of the key.
    @discardableResult
    public func set(_ key: String, _ fields: [String: any Encodable]) async throws -> Mutation {
        try await record(.update, key: key, fields: Self.members(fields))
    }

    /// `set` with the fields of `value` encoded as a JSON object; its key fields, when they
    /// name this item, are left out (they say which item, not what changes).
    @discardableResult
    public func set<Value: Encodable>(_ key: String, _ value: Value) async throws -> Mutation {
        try await record(.update, key: key, fields: withoutKey(key, Self.members(encoding: value)))
    }

    /// Records the replacement of the item whose key is `key` by `fields`: the fields not
    /// given go back to the server's defaults. Throws ``WriteError`` as `set` does.
    @discardableResult
    public func replace(_ key: String, _ fields: [String: any Encodable]) async throws -> Mutation {
        try await record(.replace, key: key, fields: Self.members(fields))
    }

    /// `replace` with `value` encoded as a JSON object (its key fields naming this item left out).
    @discardableResult
    public func replace<Value: Encodable>(_ key: String, _ value: Value) async throws -> Mutation {
        try await record(.replace, key: key, fields: withoutKey(key, Self.members(encoding: value)))
    }

    /// Records the removal of the item whose key is `key`. Throws ``WriteError`` when the
    /// resource declares no delete or the item is not held.
    @discardableResult
    public func delete(_ key: String) async throws -> Mutation {
        try await record(.delete, key: key, fields: [])
    }

    /// This resource's changes still waiting (not yet confirmed, not discarded), in the order
    /// they were made, each with its state and the last answer.
    public func pending() -> [Mutation] {
        let writes = store.snapshot.state.writes
        return writes.pending.filter { $0.source == source && $0.resource == name }.map { Mutation($0, writes: writes) }
    }

    /// The key of the item `mutation` changes, now: a created item's `local:ID` becomes the
    /// key the server gave it once the create is confirmed; any other key is itself.
    public func key(of mutation: Mutation) -> String {
        store.snapshot.state.writes.resolved(source, name, mutation.key)
    }

    /// Asks for a change to be sent again by the next push: after a failure, a rejection or a
    /// pause as it is; after a conflict only with `force` (sent over the server's version).
    /// Throws ``WriteError`` when no change of this resource with that id waits, or it is in
    /// conflict and `force` is false.
    public func retry(_ id: UInt64, force: Bool = false) async throws {
        try ownChange(id)
        try await store.retryMutation(id, force: force)
    }

    /// Drops a change: never sent, gone from the items. Discarding a create drops the later
    /// changes of the item it made. Throws ``WriteError`` when no change of this resource
    /// with that id waits.
    public func discard(_ id: UInt64) async throws {
        try ownChange(id)
        try await store.discardMutation(id)
    }

    private func record(_ op: ResourceWrites.Operation, key: String?, fields: [(String, JSONValue)]) async throws -> Mutation {
        let recorded = try await store.write(op, source: source, resource: name, key: key, fields: fields)
        return Mutation(recorded, writes: store.snapshot.state.writes)
    }

    /// Refuses an id that waits, but for another resource (the store's own check names the
    /// ids that wait when none has it).
    private func ownChange(_ id: UInt64) throws(WriteError) {
        guard let mutation = store.snapshot.state.writes.mutations[id], mutation.source != source || mutation.resource != name else { return }
        throw WriteError("mutation \(id) changes \(mutation.source) \(mutation.resource), not \(source) \(name): retry or discard it through that resource")
    }

    /// An encoded value's members less the key fields that name the item `key` names.
    private func withoutKey(_ key: String, _ members: [(String, JSONValue)]) throws -> [(String, JSONValue)] {
        let fields = try WriteTarget(store.snapshot.state, source: source, resource: name).key
        let resolved = store.snapshot.state.writes.resolved(source, name, key)
        let values = Dictionary(zip(fields, resolved.split(separator: "/", omittingEmptySubsequences: false).map(String.init)), uniquingKeysWith: { a, _ in a })
        return members.filter { field, value in values[field] == nil || values[field] != ItemsView.text(value) }
    }

    /// The fields in name order, each value as JSON (numbers as their exact text).
    static func members(_ fields: [String: any Encodable]) throws(WriteError) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        for name in fields.keys.sorted() {
            members.append((name, try json(fields[name]!, what: name)))
        }
        return members
    }

    /// A value of the caller's type as a JSON object's members (a type that encodes as
    /// something else is refused).
    static func members<Value: Encodable>(encoding value: Value) throws(WriteError) -> [(String, JSONValue)] {
        guard case .object(let members) = try json(value, what: "\(Value.self)") else {
            throw WriteError("\(Value.self) does not encode as a JSON object: give the fields as a struct or a [String: value] dictionary; nothing was recorded")
        }
        return members
    }

    private static func json(_ value: any Encodable, what: String) throws(WriteError) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try JSONValue.parse(bytes: Array(encoder.encode(value)))
        } catch {
            throw WriteError("\(what) does not encode as JSON (\(error)); nothing was recorded")
        }
    }
}
