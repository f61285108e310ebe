import Foundation

/// Offline writes through the store (issue 26): a mutation is checked against the
/// manifest and the items held, then recorded as an event before the call returns —
/// durable whether the upstream is reachable or not. `push()` sends what waits.
extension Store {
    /// Records a change to an item of a resource and returns it (pending). The resource's
    /// writes are declared by its manifest (`fetchlog.writes`), else by its plug-in
    /// (`SourcePlugin.writes(for:)`). Values must have the kinds the resource's fields have
    /// (its `columns`, else the held items' values); an unknown field, a wrong kind, a
    /// resource without that declared write or an item not held is refused with a
    /// `WriteError`, and nothing is recorded.
    ///
    /// `key`: the item's primary key (fields joined by `/`), or a created item's `local:SEQ`;
    /// nil for a create.
    @discardableResult
    package func write(_ op: RestWrites.Operation, source: String, resource: String, key: String? = nil,
                      fields: [(String, JSONValue)] = []) async throws -> PendingMutation {
        try await recordWrite(op, source: source, resource: resource, key: key, fields: fields.map { ($0.0, .json($0.1)) })
    }

    /// `write` with values as typed on a command line (`FIELD=VALUE`), read as each field's kind says.
    @discardableResult
    package func write(_ op: RestWrites.Operation, source: String, resource: String, key: String? = nil,
                       assignments: [String]) async throws -> PendingMutation {
        var fields: [(String, WriteInput)] = []
        for text in assignments {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw WriteError("'\(text)' is not FIELD=VALUE (title=\"buy bread\", priority=2)")
            }
            fields.append((String(text[..<equals]), .text(String(text[text.index(after: equals)...]))))
        }
        return try await recordWrite(op, source: source, resource: resource, key: key, fields: fields)
    }

    /// Every mutation waiting, in log order, with its state and last answer.
    package var pendingMutations: [PendingMutation] { snapshot.state.writes.pending }

    /// Asks for a mutation to be sent again by the next push: after a failure, a rejection
    /// or a pause as it is; after a conflict only with `force` (sent over the server's
    /// version shown beside it).
    package func retryMutation(_ id: UInt64, force: Bool = false) async throws {
        try await catchUp()
        let mutation = try waiting(id)
        if mutation.state == .conflict, !force {
            throw WriteError("mutation \(id) conflicts with the server's version (changed since): retry it with force to send yours over it, or discard it")
        }
        try await sendIntent(source: Source(mutation.source), label: WriteEvents.retry,
                             body: .object([("mutation", .number(id)), ("force", .bool(force))]))
    }

    /// Drops a mutation: never sent again, gone from the views. Discarding a create drops
    /// the later mutations of the item it made (they could never be sent).
    package func discardMutation(_ id: UInt64) async throws {
        try await catchUp()
        let mutation = try waiting(id)
        var ids = [id]
        if mutation.op == .create {
            ids += durableState.writes.pending.filter { $0.source == mutation.source && $0.resource == mutation.resource && $0.key == mutation.localKey }.map(\.seq)
        }
        for one in ids {
            try await sendIntent(source: Source(mutation.source), label: WriteEvents.discarded, body: .object([("mutation", .number(one))]))
        }
    }

    private func waiting(_ id: UInt64) throws(WriteError) -> PendingMutation {
        guard let mutation = durableState.writes.mutations[id] else {
            let ids = durableState.writes.pending.map { String($0.seq) }
            throw WriteError("no mutation \(id) is waiting" + (ids.isEmpty ? ": nothing is pending" : ": waiting are \(ids.joined(separator: ", "))"))
        }
        return mutation
    }

    private func recordWrite(_ op: RestWrites.Operation, source: String, resource name: String, key: String?,
                             fields: [(String, WriteInput)]) async throws -> PendingMutation {
        try await catchUp()
        let state = durableState
        // The manifest's declaration first, then the plug-in's.
        let target = try WriteTarget(state, source: source, resource: name)
        let writes = target.writes
        guard writes.routes[op] != nil else {
            throw WriteError("\(source) \(name) declares no \(op.rawValue): it declares \(writes.operations.map(\.rawValue).joined(separator: ", "))")
        }
        // The schema and the lookup, read from the kept members and fold when they serve (a
        // write at 100k items held no longer reads them all), else from the items.
        let checking = target.checking(state)
        let primaryKey = target.key
        var itemKey: String?
        if op != .create {
            guard let key else { throw WriteError("\(op.rawValue) names an item: give its key (\(primaryKey.joined(separator: "/")))") }
            let resolved = state.writes.resolved(source, name, key)
            guard checking.holds(resolved) else {
                throw WriteError("no \(name) item with \(primaryKey.joined(separator: "/")) \(key) is held"
                    + (target.rest == nil ? ": fetch the resource that holds it first" : ": items \(source) \(name) lists them"))
            }
            itemKey = resolved
        }
        let schema = checking.schema
        if op == .delete, !fields.isEmpty { throw WriteError("delete takes no fields") }
        if op != .delete, fields.isEmpty { throw WriteError("\(op.rawValue) takes one or more FIELD=VALUE") }
        var members: [(String, JSONValue)] = []
        for (field, input) in fields {
            if members.contains(where: { $0.0 == field }) { throw WriteError("\(field) is given twice") }
            if op != .create, primaryKey.contains(field) {
                throw WriteError("\(field) is part of the item's key: it cannot be changed")
            }
            switch input {
            case .json(let value):
                try schema.check(field, value, resource: name)
                members.append((field, value))
            case .text(let text):
                members.append((field, try schema.value(field, text: text, resource: name)))
            }
        }
        var body: [(String, JSONValue)] = [("store", .string(log.metadata.storeID)), ("op", .string(op.rawValue)), ("resource", .string(name))]
        body.append(("key", itemKey.map(JSONValue.string) ?? .null))
        body.append(("fields", .object(members)))
        let before = durableState.seq
        try await sendIntent(source: Source(source), label: WriteEvents.mutation, body: .object(body))
        let recorded = durableState.writes.pending.last {
            $0.seq > before && $0.source == source && $0.resource == name && $0.op == op && $0.key == itemKey
        }
        guard let recorded else { throw WriteError("the mutation was recorded but is not in the state (another process discarded it?)") }
        return recorded
    }
}

/// A field's value as given: JSON already (the library), or text to type by the schema.
enum WriteInput {
    case json(JSONValue)
    case text(String)
}
