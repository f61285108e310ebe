import Foundation

/// What one `push()` did, mutation by mutation.
public struct PushReport: Sendable, Equatable {
    /// Mutations the server applied (2xx), by id.
    public internal(set) var confirmed: [UInt64] = []
    /// 412: the server's version changed since.
    public internal(set) var conflicts: [UInt64] = []
    /// 409, 422 or another 4xx.
    public internal(set) var rejected: [UInt64] = []
    /// 401 or 403, or credentials that could not be made.
    public internal(set) var paused: [UInt64] = []
    /// Sent and failed on the way (5xx, 429, timeouts, resets): still pending.
    public internal(set) var failed: [UInt64] = []
    /// Not sent: an earlier mutation of the same item waits (conflict, rejected, failed), its
    /// create is not confirmed yet, or the upstream was unreachable.
    public internal(set) var held: [UInt64] = []
    /// One line a mutation: its id, what was sent and what came back.
    package internal(set) var lines: [String] = []
    /// The push that held the store's claim when this one began and that it waited for
    /// (`pid N, push started TIME`); nil when none did. One pusher at a time per store.
    public internal(set) var waitedFor: String?
}

/// Sending, exactly once (issue 26): in log order per item, each request carrying
/// `Idempotency-Key: STORE:SEQ` (the IETF httpapi draft) and, for an item's update or
/// delete, `If-Match` with the ETag held for it. The attempt is recorded (durably) before
/// the request leaves and the answer after it came back, so a crash in between leaves the
/// mutation in doubt, and the next push sends it again with the same key: the server
/// answers a repeated key with the answer it stored, applying nothing twice.
extension Store {
    /// Sends every mutation this store made that can be sent now, and records each answer.
    /// Only the store that made a mutation sends it (a replica holds it, shown pending).
    /// `source` and `resource`: only the mutations of that source (and resource).
    /// `width`: how many mutations of different items may be in flight at once (an item's
    /// always go one after another, in log order). One, the default, sends in log order
    /// across items too, so the server sees them — and numbers created items — in that order.
    ///
    /// An answer is no error: a conflict, a rejection or a failure is in the report, and the
    /// change waits. Throws ``WriteError`` when the store is offline (`fetching.offline`:
    /// nothing is sent), and `StoreUsageError.noFetcher` when it was opened without fetching.
    @discardableResult
    public func push(source: String? = nil, resource: String? = nil, width: Int = 1) async throws -> PushReport {
        try await push(source: source, resource: resource, automatic: false, width: width)
    }

    /// `automatic` (sending nobody asked for now, such as before a fetch): a mutation that
    /// failed waits for the server's Retry-After, else its backoff. Asked for, it goes at once.
    ///
    /// Sent in batches, so that a mutation costs its request and not two durable commits
    /// and two folds of the whole state: a batch's `write.sending` events are committed
    /// together before any of its requests leaves, and its answers together after the last
    /// came back (a crash in between leaves them in doubt: sent again with the same keys).
    /// A batch holds one mutation of an item at most: the item's next one waits for the
    /// answer (which may name its key, or hold it). The first batch is one mutation alone,
    /// until the upstream has answered once: an unreachable upstream fails one mutation and
    /// holds the others.
    ///
    /// One pusher at a time per store (`PushClaim`): a push waits for one running (here or
    /// in another process; `waiting` is told whom it waits for), then catches up with the
    /// log, so what that one answered is not sent again, and what it left `sending` without
    /// an answer is in doubt (its sender is gone): sent again with the same key.
    package func push(source: String?, resource: String?, automatic: Bool, width: Int = 1,
                      waiting: (@Sendable (PushClaim.Holder) -> Void)? = nil) async throws -> PushReport {
        guard let fetcher else { throw StoreUsageError.noFetcher }
        guard !fetcher.configuration.offline else { throw WriteError("the network is forbidden (offline): nothing was sent") }
        let claim = try await PushClaim.take(log.path, as: PushClaim.Holder(
            pid: getpid(), started: fetcher.configuration.clock.now(),
            doing: (automatic ? "automatic push" : "push") + (source.map { " of \($0)" + (resource.map { " \($0)" } ?? "") } ?? "")),
            waiting: waiting)
        defer { claim.release() }
        try await catchUp()
        let me = log.metadata.storeID
        // Each mutation's report entries, by its id: the report lists them in log order
        // however the answers came back.
        var entries: [UInt64: (tally: WritableKeyPath<PushReport, [UInt64]>, line: String)] = [:]
        var blocked = Set<String>()
        var handled = Set<UInt64>()
        var unreachable: String?
        var answered = false
        func settle(_ seq: UInt64, _ item: String, _ answer: Answer) {
            if answer.status != nil { answered = true }
            let line = "\(seq) \(answer.request): \(answer.outcome)\(answer.status.map { " \($0)" } ?? "")\(answer.message.map { " — " + $0 } ?? "")"
            switch answer.outcome {
            case "confirmed": entries[seq] = (\.confirmed, line)
            case "conflict": entries[seq] = (\.conflicts, line); blocked.insert(item)
            case "rejected": entries[seq] = (\.rejected, line); blocked.insert(item)
            case "paused": entries[seq] = (\.paused, line); blocked.insert(item)
            default:
                entries[seq] = (\.failed, line)
                blocked.insert(item)
                // Nothing came back at all: the rest would fail alike; the next push sends them.
                if answer.status == nil { unreachable = "the upstream did not answer (\(answer.message ?? "no answer"))" }
            }
        }
        func itemOf(_ mutation: PendingMutation, _ state: LogState) -> String {
            WriteState.itemID(mutation.source, mutation.resource, state.writes.itemKey(mutation))
        }
        // Passes over the waiting mutations in log order, until one finds none new (a
        // mutation recorded during the push is sent by it too).
        while true {
            let waiting = durableState.writes.pending.filter {
                !handled.contains($0.seq) && $0.store == me && (source ?? $0.source) == $0.source && (resource ?? $0.resource) == $0.resource
            }.map(\.seq)
            guard !waiting.isEmpty else { break }
            var position = 0
            while position < waiting.count {
                // The next batch, from the state with every earlier answer folded.
                let state = durableState
                var batch: [WriteRequest] = []
                var items = Set<String>()
                var decided: [(mutation: PendingMutation, body: JSONValue)] = []
                while position < waiting.count, batch.count < (answered ? Self.pushBatch : 1) {
                    let seq = waiting[position]
                    guard let next = state.writes.mutations[seq] else {
                        handled.insert(seq)
                        position += 1
                        continue
                    }
                    let item = itemOf(next, state)
                    // The answer to the item's mutation in this batch decides this one (and a
                    // create's answer names the item's key): the next batch.
                    if items.contains(item) { break }
                    handled.insert(seq)
                    position += 1
                    func hold(_ why: String) {
                        blocked.insert(item)
                        entries[next.seq] = (\.held, "\(next.seq) \(next.op.rawValue) \(next.resource) \(state.writes.itemKey(next)): held, \(why)")
                    }
                    if blocked.contains(item) { hold("an earlier change of the item waits"); continue }
                    switch next.state {
                    case .conflict: hold("in conflict with the server's version (retry with force, or discard)"); continue
                    case .rejected: hold("rejected: \(next.lastMessage ?? "the server refused it") (retry or discard)"); continue
                    default: break
                    }
                    if let unreachable { hold(unreachable); continue }
                    if automatic, let notBefore = next.notBefore, fetcher.configuration.clock.now().milliseconds < notBefore {
                        hold("failed \(next.failures) time(s): sent again after \(Timestamp(milliseconds: notBefore).iso8601)")
                        continue
                    }
                    if next.op != .create, let key = next.key, key.hasPrefix("local:"), state.writes.serverKeys[WriteState.itemID(next.source, next.resource, key)] == nil {
                        hold("the item's create is not confirmed yet")
                        continue
                    }
                    switch await prepare(next, item: item, state: state, fetcher: fetcher) {
                    case .send(let request):
                        batch.append(request)
                        items.insert(item)
                    case .decided(let answer, let body):
                        decided.append((next, body))
                        settle(seq, item, answer)
                    }
                }
                guard !batch.isEmpty || !decided.isEmpty else { continue }
                // Durable before any request of the batch leaves.
                try await sendIntents(decided.map { (source: Source($0.mutation.source), label: WriteEvents.answered, body: $0.body) }
                    + batch.map { (source: Source($0.mutation.source), label: WriteEvents.sending, body: $0.sending) }, checkpoint: false)
                // `width` at once, in batch order; none more once the upstream did not answer.
                var results: [(request: WriteRequest, answer: Answer, body: JSONValue)] = []
                try await withThrowingTaskGroup(of: (WriteRequest, Answer, JSONValue).self) { group in
                    var next = 0, inFlight = 0
                    while next < batch.count || inFlight > 0 {
                        if next < batch.count, inFlight < max(width, 1), unreachable == nil {
                            let request = batch[next]
                            next += 1
                            inFlight += 1
                            group.addTask {
                                let (answer, body) = try await self.deliver(request, fetcher: fetcher)
                                return (request, answer, body)
                            }
                            continue
                        }
                        guard let (request, answer, body) = try await group.next() else { break }
                        inFlight -= 1
                        results.append((request, answer, body))
                        if answer.outcome == "failed", answer.status == nil {
                            unreachable = "the upstream did not answer (\(answer.message ?? "no answer"))"
                        }
                        if next >= batch.count || unreachable != nil, inFlight == 0 { break }
                    }
                }
                try await sendIntents(results.map { (source: Source($0.request.mutation.source), label: WriteEvents.answered, body: $0.body) },
                                      checkpoint: false)
                for (request, answer, _) in results { settle(request.mutation.seq, request.item, answer) }
                // Recorded as sending but never sent (the upstream stopped answering): in
                // doubt as after a crash, sent again with the same key by the next push.
                let sent = Set(results.map(\.request.mutation.seq))
                for request in batch where !sent.contains(request.mutation.seq) {
                    blocked.insert(request.item)
                    let mutation = request.mutation
                    entries[mutation.seq] = (\.held, "\(mutation.seq) \(mutation.op.rawValue) \(mutation.resource) \(request.keyText): held, \(unreachable ?? "not sent")")
                }
            }
        }
        // A checkpoint the batches left due is saved by the next catch-up (or open), not
        // here: the push is done once its answers are durable.
        var report = PushReport()
        report.waitedFor = claim.waitedFor?.description
        for seq in entries.keys.sorted() {
            let (tally, line) = entries[seq]!
            report[keyPath: tally].append(seq)
            report.lines.append(line)
        }
        return report
    }

    /// Mutations whose attempts (then answers) are committed together, at most.
    static var pushBatch: Int { 1024 }

    /// Before a fetch of a manifest resource (read your writes): its pending changes made
    /// here are sent first, unless the store is offline or has no fetcher. Their answers are
    /// recorded; one that fails stays pending, and the fetch goes on.
    package func pushBeforeFetch(source: String, resource: String) async throws {
        guard let fetcher, !fetcher.configuration.offline else { return }
        let me = log.metadata.storeID
        guard durableState.writes.mutations.values.contains(where: { $0.store == me && $0.source == source && $0.resource == resource }) else { return }
        _ = try await push(source: source, resource: resource, automatic: true)
    }

    private struct Answer: Sendable {
        var request: String
        var outcome: String
        var status: Int?
        var message: String?
    }

    /// A mutation ready to be sent: its request, and its `write.sending` body.
    private struct WriteRequest: Sendable {
        let mutation: PendingMutation
        /// `SOURCE/RESOURCE/KEY`, the item it changes.
        let item: String
        let keyText: String
        let target: WriteTarget
        let route: RestWrites.Route
        let url: String
        let path: String
        let ifMatch: String?
        let secretHeaders: [(String, String)]
        /// The state it was prepared from.
        let state: LogState
        var request: String { "\(route.method) \(path)" }
        var sending: JSONValue {
            .object([
                ("mutation", .number(mutation.seq)), ("attempt", .number(mutation.attempts + 1)), ("method", .string(route.method)),
                ("path", .string(path)), ("idempotencyKey", .string(mutation.idempotencyKey)), ("ifMatch", .optional(ifMatch)),
            ])
        }
    }

    private enum Prepared {
        case send(WriteRequest)
        /// Answered without sending (no route any more, credentials that cannot be made):
        /// the answer and its `write.answered` body.
        case decided(Answer, JSONValue)
    }

    /// What sending `mutation` takes: its route, URL, credentials and `If-Match`.
    private func prepare(_ mutation: PendingMutation, item itemID: String, state: LogState, fetcher: Fetcher) async -> Prepared {
        let source = Source(mutation.source)
        let keyText = state.writes.itemKey(mutation)
        guard let target = try? WriteTarget(state, source: mutation.source, resource: mutation.resource), let route = target.writes.routes[mutation.op] else {
            let message = "the manifest or plug-in in force declares no \(mutation.op.rawValue) for \(mutation.source) \(mutation.resource) any more"
            return .decided(Answer(request: "\(mutation.op.rawValue) \(mutation.resource)", outcome: "rejected", message: message),
                            Self.answered(mutation, outcome: "rejected", status: nil, message: message))
        }
        let values = keyText.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let path = RestWrites.path(route, key: Dictionary(zip(target.key, values), uniquingKeysWith: { a, _ in a }))
        // The resource's credentials, as its fetches send them (never recorded). One that
        // cannot be made (an `env:` variable not set) pauses the mutation: nothing is sent.
        let credentials: Credentials
        do throws(CredentialsError) {
            credentials = try await fetcher.authorized(target.credentials(environment: fetcher.configuration.environment),
                                                       plugin: target.plugin, source: source)
        } catch {
            let message = error.description + "; nothing was sent"
            return .decided(Answer(request: "\(route.method) \(path)", outcome: "paused", message: message),
                            Self.answered(mutation, outcome: "paused", status: nil, message: message))
        }
        var url = fetcher.configuration.upstream.url(source: source, path: path, realBase: target.plugin.realBase)
        if !credentials.query.isEmpty {
            url += (url.contains("?") ? "&" : "?") + credentials.query.map { "\($0.0)=\(Resource.queryEscape($0.1))" }.joined(separator: "&")
        }
        var ifMatch: String?
        if mutation.op != .create {
            if mutation.force {
                ifMatch = mutation.currentETag
            } else if let answer = state.writes.confirmed[itemID],
                      answer.seq > target.newestPageSeq(state) {
                ifMatch = answer.etag
            } else {
                ifMatch = state.status[ResourceKey(source: mutation.source, path: path)]?.etag
            }
        }
        return .send(WriteRequest(mutation: mutation, item: itemID, keyText: keyText, target: target, route: route, url: url, path: path,
                                  ifMatch: ifMatch, secretHeaders: credentials.headers.map { ($0.name, $0.value) }, state: state))
    }

    /// Sends one prepared mutation (its attempt already recorded) and classifies the
    /// answer: the answer, and the `write.answered` body to record.
    private func deliver(_ prepared: WriteRequest, fetcher: Fetcher) async throws -> (Answer, JSONValue) {
        let (mutation, target, route, url, state) = (prepared.mutation, prepared.target, prepared.route, prepared.url, prepared.state)
        let (keyText, secretHeaders, request) = (prepared.keyText, prepared.secretHeaders, prepared.request)
        func record(_ outcome: String, status: Int?, message: String?, etag: String? = nil, item: JSONValue? = nil, key: String? = nil,
                    current: JSONValue? = nil, currentETag: String? = nil, retryAfter: Int? = nil) -> JSONValue {
            Self.answered(mutation, outcome: outcome, status: status, message: message, etag: etag, item: item, key: key, current: current,
                          currentETag: currentETag, retryAfter: retryAfter)
        }
        let body = mutation.op == .delete ? nil : Array(mutation.fields.canonicalText().utf8)
        let response: (status: Int, headers: [Header], body: [UInt8])
        switch await exchange(fetcher, url: url, method: route.method, body: body, headers: [
            ("Idempotency-Key", mutation.idempotencyKey),
        ] + (prepared.ifMatch.map { [("If-Match", $0)] } ?? []) + secretHeaders, target: target) {
        case .answered(let status, let headers, let body):
            response = (status, headers, body)
        case .failed(let message):
            return (Answer(request: request, outcome: "failed", message: message), record("failed", status: nil, message: message))
        case .refused(let message):
            // Refused before it left (a manifest's base on a non-public address): the change
            // waits, paused, until the user allows it; the next push sends it.
            return (Answer(request: request, outcome: "paused", message: message), record("paused", status: nil, message: message))
        }
        let json = try? JSONValue.parse(bytes: response.body)
        let status = response.status
        let etag = Self.header("ETag", in: response.headers)
        switch status {
        case 200 ..< 300:
            var item = json.flatMap { RestWrites.item(in: $0, route) }
            if item == nil, mutation.op == .update || mutation.op == .replace {
                // No item in the answer (a 204): the server took the fields as sent.
                let held = target.item(state, key: keyText, confirmedOnly: true)
                let base: JSONValue = mutation.op == .update ? (held ?? .object([])) : .object(target.key.map { ($0, held?[$0] ?? .null) })
                item = ItemsView.adding(WriteOverlay.members(mutation.fields), to: base)
            }
            var newKey: String?
            if mutation.op == .create {
                if let item, !target.key.isEmpty, ItemsView.hasKey(item, target.key) {
                    newKey = target.key.map { ItemsView.text(item[$0]) }.joined(separator: "/")
                } else if let location = Self.header("Location", in: response.headers), let last = location.split(separator: "/").last {
                    newKey = String(last)
                }
            }
            return (Answer(request: request, outcome: "confirmed", status: status, message: newKey.map { "key \($0)" }),
                    record("confirmed", status: status, message: nil, etag: etag, item: item, key: newKey))
        case 412:
            // The server's version now, shown beside the user's change: asked for, else the
            // one the refusal carries.
            var current: JSONValue?, currentETag: String?
            if case .answered(200, let headers, let body) = await exchange(fetcher, url: url, method: "GET", body: nil, headers: secretHeaders,
                                                                             target: target),
               let parsed = try? JSONValue.parse(bytes: body) {
                current = RestWrites.item(in: parsed, route) ?? (parsed.memberNames.isEmpty ? nil : parsed)
                currentETag = Self.header("ETag", in: headers)
            }
            if current == nil, case .object? = json?["current"] { current = json?["current"]; currentETag = etag }
            let message = Self.message(json, response.body, status: status)
            return (Answer(request: request, outcome: "conflict", status: status, message: message),
                    record("conflict", status: status, message: message, current: current, currentETag: currentETag))
        case 401, 403:
            let message = Self.message(json, response.body, status: status) + " (fix the source's credentials, then push)"
            return (Answer(request: request, outcome: "paused", status: status, message: message), record("paused", status: status, message: message))
        case 408, 429, 500...:
            var message = Self.message(json, response.body, status: status)
            let after = Self.header("Retry-After", in: response.headers)
            if let after { message += " (Retry-After \(after))" }
            // Seconds or an HTTP date, read as the fetcher reads it (the gateway's one rule).
            let wait = after.flatMap { fetcher.gateway.retryAfter($0) }.map { Int(($0.seconds).rounded(.up)) }
            return (Answer(request: request, outcome: "failed", status: status, message: message),
                    record("failed", status: status, message: message, retryAfter: wait))
        default:
            let message = Self.message(json, response.body, status: status)
            return (Answer(request: request, outcome: "rejected", status: status, message: message), record("rejected", status: status, message: message))
        }
    }

    /// A `write.answered` event's body.
    private static func answered(_ mutation: PendingMutation, outcome: String, status: Int?, message: String?, etag: String? = nil,
                                 item: JSONValue? = nil, key: String? = nil, current: JSONValue? = nil, currentETag: String? = nil,
                                 retryAfter: Int? = nil) -> JSONValue {
        .object([
            ("mutation", .number(mutation.seq)), ("outcome", .string(outcome)), ("status", .optional(status)),
            ("message", .optional(message)), ("etag", .optional(etag)), ("item", item ?? .null), ("key", .optional(key)),
            ("current", current ?? .null), ("currentEtag", .optional(currentETag)), ("retryAfter", .optional(retryAfter)),
        ])
    }

    /// A response header's value, by name in any case.
    private static func header(_ name: String, in headers: [Header]) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The server's words: a JSON body's `error`, `message`, `detail` or `title`, else its text.
    static func message(_ json: JSONValue?, _ body: [UInt8], status: Int) -> String {
        for name in ["error", "message", "detail", "title"] {
            if let text = json?[name]?.stringValue, !text.isEmpty { return text }
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "HTTP \(status)" : text
    }

    /// One request and its whole answer, through the gateway (the address policy for a
    /// manifest's base, redirects, the deadline and minimum rate over the whole answer, the
    /// body limit). Not sent, or no whole answer: a failure with its reason, never a status.
    private func exchange(_ fetcher: Fetcher, url: String, method: String, body: [UInt8]?, headers: [(String, String)],
                          target: WriteTarget) async -> Exchange {
        let gateway = fetcher.gateway
        var sending = headers.map { Header($0.0, $0.1) }
        if body != nil { sending.append(Header("Content-Type", "application/json")) }
        let answer = await gateway.send(HTTPGateway.Request(
            url: url, method: method, body: body, headers: sending,
            addressRule: gateway.firstHopRule(url: url, asset: false, basesAreData: target.plugin.basesAreData),
            keptHeaders: ["location"], redirects: method == "GET" ? .follow : .keepingTheMethod))
        switch answer {
        case .response(let status, let headers, let body):
            return .answered(status: Int(status), headers: headers, body: body)
        case .failure(_, let message, let status, _, _):
            // A status with a failure: the answer began and did not end whole (cut off at the
            // deadline, the minimum rate or the body limit). What the server did is unknown.
            return .failed(status.map { "HTTP \($0), " + message } ?? message)
        case .refused(_, let message, _, _):
            return .refused(message)
        }
    }

    /// How one exchange ended.
    private enum Exchange {
        case answered(status: Int, headers: [Header], body: [UInt8])
        /// Sent, and no whole answer came: the mutation stays pending (in doubt for the server).
        case failed(String)
        /// Not sent by Fetchlog's own rules (the address policy, a scheme): the user must act.
        case refused(String)
    }
}
