/// What the log says about offline writes (`WriteEvents`): the mutations still waiting, the
/// keys the server gave created items, and the server's answers. A pure fold of the write
/// events: live, replayed, `--at` and replicas agree.
package struct WriteState: Sendable, Equatable {
    /// Mutations neither confirmed nor discarded, by seq (their id).
    package internal(set) var mutations: [UInt64: PendingMutation] = [:] {
        didSet {
            mutationsToken = ChangeTokens.fresh()
            added = nil
        }
    }
    /// Fresh whenever `mutations` changes (never handed out twice in this process): two
    /// states with the same token hold the same mutations. Not part of the value.
    package private(set) var mutationsToken = ChangeTokens.fresh()
    /// When the last change of `mutations` was a new one recorded (`write.mutation`): the
    /// token before it and its seq — so the optimistic view folds it on the last view
    /// (`WriteOverlay.Kept`) without comparing every pending mutation. Not part of the value.
    package private(set) var added: (before: UInt64, seq: UInt64)?
    /// `SOURCE/RESOURCE/local:SEQ` → the key the server gave the item that create made.
    package internal(set) var serverKeys: [String: String] = [:]
    /// The server's answers, by `SOURCE/RESOURCE/KEY`: the item it holds now (nil: deleted).
    package internal(set) var confirmed: [String: ConfirmedItem] = [:]

    package init() {}

    /// The mutations, keys and answers (the tokens are not part of the value).
    package static func == (a: WriteState, b: WriteState) -> Bool {
        a.mutations == b.mutations && a.serverKeys == b.serverKeys && a.confirmed == b.confirmed
    }

    /// The waiting mutations in log order.
    package var pending: [PendingMutation] { mutations.keys.sorted().map { mutations[$0]! } }

    /// The key `key` stands for now: a created item's local key becomes the server's once known.
    package func resolved(_ source: String, _ resource: String, _ key: String) -> String {
        serverKeys[source + "/" + resource + "/" + key] ?? key
    }

    /// The key a mutation's item has now (a create's: its local key until the server named one).
    package func itemKey(_ mutation: PendingMutation) -> String {
        resolved(mutation.source, mutation.resource, mutation.key ?? mutation.localKey)
    }

    static func itemID(_ source: String, _ resource: String, _ key: String) -> String { source + "/" + resource + "/" + key }

    /// Folds one write event (an intent whose label is one of `WriteEvents.labels`).
    static func apply(_ event: Event, to state: inout WriteState) {
        guard let bytes = event.body, let body = try? JSONValue.parse(bytes: bytes) else { return }
        if event.label == WriteEvents.mutation {
            let fields = body["fields"] ?? .object([])
            guard let op = body["op"]?.stringValue.flatMap(RestWrites.Operation.init(rawValue:)),
                  let resource = body["resource"]?.stringValue, case .object = fields else { return }
            let before = state.mutationsToken, new = event.seq > 0 && state.mutations[event.seq] == nil
            defer { if new { state.added = (before, event.seq) } }
            state.mutations[event.seq] = PendingMutation(
                seq: event.seq, idempotencySeq: event.origin?.seq ?? event.seq, store: body["store"]?.stringValue ?? "",
                source: event.source, resource: resource, op: op, key: body["key"]?.stringValue, fields: fields,
                recordedAt: event.recordedAt)
            return
        }
        guard case .number(let text)? = body["mutation"], let id = UInt64(text), var mutation = state.mutations[id] else { return }
        switch event.label {
        case WriteEvents.sending:
            mutation.attempts += 1
            mutation.state = .sending
            mutation.sentSeq = event.seq
            mutation.sentAt = event.recordedAt
        case WriteEvents.answered:
            let outcome = body["outcome"]?.stringValue ?? "failed"
            // A failure is sent again by automatic sending only after the server's
            // Retry-After, else after a backoff doubling from a second (five minutes at most).
            if outcome == "failed" {
                mutation.failures += 1
                let wait = body["retryAfter"]?.intValue.map { Int64($0) * 1000 } ?? min(Int64(1000) << Int64(min(mutation.failures - 1, 9)), 300_000)
                mutation.notBefore = event.recordedAt.milliseconds + wait
            } else {
                mutation.failures = 0
                mutation.notBefore = nil
            }
            mutation.lastStatus = body["status"]?.intValue
            mutation.lastMessage = body["message"]?.stringValue
            mutation.answerLost = outcome == "failed" && body["inDoubt"]?.boolValue == true
            if outcome == "confirmed" {
                let key: String
                if mutation.op == .create {
                    key = body["key"]?.stringValue ?? mutation.localKey
                    state.serverKeys[itemID(mutation.source, mutation.resource, mutation.localKey)] = key
                } else {
                    key = state.itemKey(mutation)
                }
                let item = body["item"].flatMap { $0.isNull ? nil : $0 }
                state.confirmed[itemID(mutation.source, mutation.resource, key)] = ConfirmedItem(
                    item: mutation.op == .delete ? nil : item, etag: body["etag"]?.stringValue, seq: event.seq)
                state.mutations[id] = nil
                return
            }
            mutation.state = MutationState(rawValue: outcome) ?? .failed
            if mutation.state == .conflict {
                mutation.current = body["current"].flatMap { $0.isNull ? nil : $0 }
                mutation.currentETag = body["currentEtag"]?.stringValue
                // The version the server holds now is its latest word on the item: the
                // confirmed reading shows it (and a discard leaves it).
                if let current = mutation.current {
                    state.confirmed[itemID(mutation.source, mutation.resource, state.itemKey(mutation))] =
                        ConfirmedItem(item: current, etag: mutation.currentETag, seq: event.seq)
                }
            }
        case WriteEvents.retry:
            // After a definitive answer the server stored that answer under the key: a new
            // round needs a new key. In doubt (sending, failed) the key stays: exactly once.
            if [.conflict, .rejected, .paused].contains(mutation.state) { mutation.round = event.seq }
            mutation.force = body["force"]?.boolValue ?? false
            mutation.state = .queued
            mutation.notBefore = nil
            // A person asked: no longer in doubt (sent again with the same key).
            mutation.answerLost = false
        case WriteEvents.discarded:
            state.mutations[id] = nil
            return
        default:
            return
        }
        state.mutations[id] = mutation
    }

    // MARK: Checkpoint form

    /// The checkpoint's `writes` member.
    var json: JSONValue {
        .object([
            ("mutations", .array(pending.map(\.json))),
            ("serverKeys", .object(serverKeys.keys.sorted().map { ($0, .string(serverKeys[$0]!)) })),
            ("confirmed", .object(confirmed.keys.sorted().map { key in
                let c = confirmed[key]!
                return (key, .object([("item", c.item ?? .null), ("etag", .optional(c.etag)), ("seq", .number(c.seq))]))
            })),
        ])
    }

    /// From a checkpoint's `writes` member: empty when there is none (a checkpoint saved
    /// before writes existed has no write events behind it), nil when it does not read.
    init?(checkpoint json: JSONValue?) {
        guard let json, !json.isNull else { return }
        guard case .object(let keys)? = json["serverKeys"], case .object(let confirmed)? = json["confirmed"],
              let mutations = json["mutations"]?.arrayValue else { return nil }
        for (name, value) in keys {
            guard let key = value.stringValue else { return nil }
            serverKeys[name] = key
        }
        for (name, value) in confirmed {
            guard case .number(let text)? = value["seq"], let seq = UInt64(text) else { return nil }
            self.confirmed[name] = ConfirmedItem(item: value["item"].flatMap { $0.isNull ? nil : $0 }, etag: value["etag"]?.stringValue, seq: seq)
        }
        for value in mutations {
            guard let mutation = PendingMutation(json: value) else { return nil }
            self.mutations[mutation.seq] = mutation
        }
    }
}

/// The server's word on an item, from a write's answer.
package struct ConfirmedItem: Sendable, Equatable {
    /// The item as the server answered it; nil when it was deleted (or the answer held none).
    package let item: JSONValue?
    package let etag: String?
    /// The answer's seq: a page fetched after it is newer.
    package let seq: UInt64
}

/// One waiting mutation and how it stands.
package struct PendingMutation: Sendable, Equatable {
    /// Its id: the seq of its `write.mutation` event.
    package let seq: UInt64
    /// The seq in the store that made it (its origin's, when merged from another log).
    package let idempotencySeq: UInt64
    /// The store that made it: only that store sends it.
    package let store: String
    /// The manifest source and resource it changes.
    package let source: String
    package let resource: String
    /// What it does to the item.
    package let op: RestWrites.Operation
    /// The item's key as given (nil for a create).
    package let key: String?
    /// The fields written, as a JSON object.
    package let fields: JSONValue
    /// When it was recorded.
    package let recordedAt: Timestamp
    /// How it stands now.
    package internal(set) var state: MutationState = .queued
    /// Requests sent for it so far.
    package internal(set) var attempts = 0
    /// The last answer's status (nil: none, or nothing came back) and message.
    package internal(set) var lastStatus: Int?
    package internal(set) var lastMessage: String?
    /// A conflict's server version and its ETag.
    package internal(set) var current: JSONValue?
    package internal(set) var currentETag: String?
    /// `retry --force`: sent over the conflict's version.
    package internal(set) var force = false
    /// The `write.retry` that started this round of sending (0: the first round).
    package internal(set) var round: UInt64 = 0
    /// Failures in a row, and when automatic sending may send it again (ms since the epoch).
    package internal(set) var failures = 0
    package internal(set) var notBefore: Int64?
    /// The last `write.sending`'s seq and time: while `sending`, when the request whose
    /// answer is not recorded left (`pending` names it; in doubt once its sender is gone).
    package internal(set) var sentSeq: UInt64?
    package internal(set) var sentAt: Timestamp?
    /// The last attempt failed with no whole answer after its request may have reached the
    /// server (a timeout, a reset: `write.answered`'s `inDoubt`).
    package internal(set) var answerLost = false

    /// What the server did with it is unknown: sent (its attempt recorded) with no answer
    /// recorded, or failed with no whole answer after its request may have arrived. An
    /// unattended push (`PushMode.unattended`) sends it again only when that is safe.
    package var inDoubt: Bool { state == .sending || (state == .failed && answerLost) }

    /// A created item's key until the server names one.
    package var localKey: String { "local:\(seq)" }

    /// `STORE:SEQ` (the IETF httpapi draft's key), `STORE:SEQ-rN` for a later round.
    package var idempotencyKey: String { round == 0 ? "\(store):\(idempotencySeq)" : "\(store):\(idempotencySeq)-r\(round)" }

    init(seq: UInt64, idempotencySeq: UInt64, store: String, source: String, resource: String, op: RestWrites.Operation,
         key: String?, fields: JSONValue, recordedAt: Timestamp) {
        self.seq = seq
        self.idempotencySeq = idempotencySeq
        self.store = store
        self.source = source
        self.resource = resource
        self.op = op
        self.key = key
        self.fields = fields
        self.recordedAt = recordedAt
    }

    var json: JSONValue {
        .object([
            ("seq", .number(seq)), ("idempotencySeq", .number(idempotencySeq)), ("store", .string(store)), ("source", .string(source)),
            ("resource", .string(resource)), ("op", .string(op.rawValue)), ("key", .optional(key)), ("fields", fields),
            ("recordedAt", .number(recordedAt.milliseconds)), ("state", .string(state.rawValue)), ("attempts", .number(attempts)),
            ("lastStatus", .optional(lastStatus)), ("lastMessage", .optional(lastMessage)), ("current", current ?? .null),
            ("currentEtag", .optional(currentETag)), ("force", .bool(force)), ("round", .number(round)),
            ("failures", .number(failures)), ("notBefore", notBefore.map { .number($0) } ?? .null),
            ("sentSeq", sentSeq.map { .number($0) } ?? .null), ("sentAt", sentAt.map { .number($0.milliseconds) } ?? .null),
            ("answerLost", .bool(answerLost)),
        ])
    }

    init?(json: JSONValue) {
        func u64(_ name: String) -> UInt64? { if case .number(let t)? = json[name] { UInt64(t) } else { nil } }
        guard let seq = u64("seq"), let idempotencySeq = u64("idempotencySeq"), let store = json["store"]?.stringValue,
              let source = json["source"]?.stringValue, let resource = json["resource"]?.stringValue,
              let op = json["op"]?.stringValue.flatMap(RestWrites.Operation.init(rawValue:)), let fields = json["fields"],
              case .number(let ms)? = json["recordedAt"], let millis = Int64(ms),
              let state = json["state"]?.stringValue.flatMap(MutationState.init(rawValue:)), let round = u64("round") else { return nil }
        self.init(seq: seq, idempotencySeq: idempotencySeq, store: store, source: source, resource: resource, op: op,
                  key: json["key"]?.stringValue, fields: fields, recordedAt: Timestamp(milliseconds: millis))
        self.state = state
        attempts = json["attempts"]?.intValue ?? 0
        lastStatus = json["lastStatus"]?.intValue
        lastMessage = json["lastMessage"]?.stringValue
        current = json["current"].flatMap { $0.isNull ? nil : $0 }
        currentETag = json["currentEtag"]?.stringValue
        force = json["force"]?.boolValue ?? false
        self.round = round
        failures = json["failures"]?.intValue ?? 0
        if case .number(let text)? = json["notBefore"] { notBefore = Int64(text) }
        // Absent from a checkpoint saved before issue 33: unknown.
        sentSeq = u64("sentSeq")
        if case .number(let text)? = json["sentAt"], let millis = Int64(text) { sentAt = Timestamp(milliseconds: millis) }
        answerLost = json["answerLost"]?.boolValue ?? false
    }
}
