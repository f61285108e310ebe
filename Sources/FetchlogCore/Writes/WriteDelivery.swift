import Foundation

/// A mutation's way out and back: its request made from the manifest or plug-in in force
/// (route, URL, credentials, `If-Match`), sent through the gateway, and the answer read into
/// what the log records (`write.answered`).
extension WritePush {
    struct Answer: Sendable {
        var request: String
        var outcome: String
        var status: Int?
        var message: String?
    }

    /// A mutation ready to be sent: its request, and its `write.sending` body.
    struct WriteRequest: Sendable {
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

    enum Prepared {
        case send(WriteRequest)
        /// Answered without sending (no route any more, credentials that cannot be made):
        /// the answer and its `write.answered` body.
        case decided(Answer, JSONValue)
    }

    /// What sending `mutation` takes: its route, URL, credentials and `If-Match`.
    func prepare(_ mutation: PendingMutation, item itemID: String, state: LogState) async -> Prepared {
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
            credentials = try await channel.authorized(target.credentials(environment: channel.configuration.environment),
                                                       plugin: target.plugin, source: source)
        } catch {
            let message = error.description + "; nothing was sent"
            return .decided(Answer(request: "\(route.method) \(path)", outcome: "paused", message: message),
                            Self.answered(mutation, outcome: "paused", status: nil, message: message))
        }
        var url = channel.configuration.upstream.url(source: source, path: path, realBase: target.plugin.realBase)
        if !credentials.query.isEmpty {
            url += (url.contains("?") ? "&" : "?") + credentials.query.map { "\($0.0)=\(Resource.queryEscape($0.1))" }.joined(separator: "&")
        }
        let ifMatch = Self.ifMatch(mutation, item: itemID, path: path, target: target, state: state)
        return .send(WriteRequest(mutation: mutation, item: itemID, keyText: keyText, target: target, route: route, url: url, path: path,
                                  ifMatch: ifMatch, secretHeaders: credentials.headers.map { ($0.name, $0.value) }, state: state))
    }

    /// The `If-Match` sending `mutation` (of `item`, at `path`) carries: a forced retry's
    /// the conflict's ETag, else the newest the store holds for the item; none for a create.
    static func ifMatch(_ mutation: PendingMutation, item itemID: String, path: String, target: WriteTarget, state: LogState) -> String? {
        guard mutation.op != .create else { return nil }
        if mutation.force { return mutation.currentETag }
        if let answer = state.writes.confirmed[itemID], answer.seq > target.newestPageSeq(state) { return answer.etag }
        return state.status[ResourceKey(source: mutation.source, path: path)]?.etag
    }

    /// False when `mutation` is in doubt and an unattended push would hold it (see
    /// `unsafeToResend`): what `sync`'s plan leaves out of the writes it waits to send, so it
    /// never wakes for one. True otherwise (a mutation whose route is gone is sent to be
    /// answered so).
    package static func unattendedMaySend(_ mutation: PendingMutation, state: LogState) -> Bool {
        doubt(mutation, state: state)?.waitsForAPerson != true
    }

    /// A mutation in doubt, as `pending` shows it.
    package struct Doubt: Sendable {
        /// True when unattended pushes (`sync`, the shell's) do not send it again by
        /// themselves; `why` says so (its method, the manifest's word).
        package var waitsForAPerson: Bool
        package var why: String?
        /// The server's item as the store holds it now (its last fetch or confirmed answer):
        /// nil when none is held (a create's item, or one never fetched).
        package var serverItem: JSONValue?
    }

    /// How `mutation` stands when it is in doubt (`PendingMutation.inDoubt`), else nil.
    package static func doubt(_ mutation: PendingMutation, state: LogState) -> Doubt? {
        guard mutation.inDoubt else { return nil }
        guard let target = try? WriteTarget(state, source: mutation.source, resource: mutation.resource),
              let route = target.writes.routes[mutation.op] else { return Doubt(waitsForAPerson: false, why: nil, serverItem: nil) }
        let keyText = state.writes.itemKey(mutation)
        let values = keyText.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let path = RestWrites.path(route, key: Dictionary(zip(target.key, values), uniquingKeysWith: { a, _ in a }))
        let ifMatch = ifMatch(mutation, item: WriteState.itemID(mutation.source, mutation.resource, keyText), path: path, target: target, state: state)
        let why = unsafeToResend(mutation.seq, method: route.method, ifMatch: ifMatch, honoured: target.writes.idempotencyKeyHonoured)
        return Doubt(waitsForAPerson: why != nil, why: why.map { _ in
            "a \(route.method)\(route.method == "PATCH" ? " without If-Match" : ""), and the manifest does not say the upstream honours Idempotency-Key"
        }, serverItem: target.item(state, key: keyText, confirmedOnly: true))
    }

    /// Sends one prepared mutation (its attempt already recorded) and classifies the
    /// answer: the answer, and the `write.answered` body to record.
    func deliver(_ prepared: WriteRequest) async throws -> (Answer, JSONValue) {
        let (mutation, target, route, url, state) = (prepared.mutation, prepared.target, prepared.route, prepared.url, prepared.state)
        let (keyText, secretHeaders, request) = (prepared.keyText, prepared.secretHeaders, prepared.request)
        func record(_ outcome: String, status: Int?, message: String?, etag: String? = nil, item: JSONValue? = nil, key: String? = nil,
                    current: JSONValue? = nil, currentETag: String? = nil, retryAfter: Int? = nil, inDoubt: Bool = false) -> JSONValue {
            Self.answered(mutation, outcome: outcome, status: status, message: message, etag: etag, item: item, key: key, current: current,
                          currentETag: currentETag, retryAfter: retryAfter, inDoubt: inDoubt)
        }
        let body = mutation.op == .delete ? nil : Array(mutation.fields.canonicalText().utf8)
        let response: (status: Int, headers: [Header], body: [UInt8])
        switch await exchange(url: url, method: route.method, body: body, headers: [
            ("Idempotency-Key", mutation.idempotencyKey),
        ] + (prepared.ifMatch.map { [("If-Match", $0)] } ?? []) + secretHeaders, target: target) {
        case .answered(let status, let headers, let body):
            response = (status, headers, body)
        case .failed(let message, let mayHaveArrived):
            // No whole answer: when the request may have reached the server, what it did is
            // unknown (in doubt: unattended pushes send it again only when that is safe).
            return (Answer(request: request, outcome: "failed", message: message),
                    record("failed", status: nil, message: message, inDoubt: mayHaveArrived))
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
            if case .answered(200, let headers, let body) = await exchange(url: url, method: "GET", body: nil, headers: secretHeaders,
                                                                             target: target),
               let parsed = try? JSONValue.parse(bytes: body) {
                current = RestWrites.item(in: parsed, route) ?? (parsed.memberNames.isEmpty ? nil : parsed)
                currentETag = Self.header("ETag", in: headers)
            }
            if current == nil, case .object? = json?["current"] { current = json?["current"]; currentETag = etag }
            let message = Self.message(json, response.body, status: status)
            return (Answer(request: request, outcome: "conflict", status: status, message: message),
                    record("conflict", status: status, message: message, current: current, currentETag: currentETag))
        case 404, 410 where mutation.op == .delete && route.method == "DELETE" && mutation.inDoubt:
            // A DELETE sent again in doubt: the first may have removed the item. Gone is what
            // was asked (RFC 9110 §9.2.2), whoever removed it.
            return (Answer(request: request, outcome: "confirmed", status: status, message: "already gone"),
                    record("confirmed", status: status, message: nil))
        case 401, 403:
            let message = Self.message(json, response.body, status: status) + " (fix the source's credentials, then push)"
            return (Answer(request: request, outcome: "paused", status: status, message: message), record("paused", status: status, message: message))
        case 408, 429, 500...:
            var message = Self.message(json, response.body, status: status)
            let after = Self.header("Retry-After", in: response.headers)
            if let after { message += " (Retry-After \(after))" }
            // Seconds or an HTTP date, read as the fetcher reads it (the gateway's one rule).
            let wait = after.flatMap { channel.gateway.retryAfter($0) }.map { Int(($0.seconds).rounded(.up)) }
            return (Answer(request: request, outcome: "failed", status: status, message: message),
                    record("failed", status: status, message: message, retryAfter: wait))
        default:
            let message = Self.message(json, response.body, status: status)
            return (Answer(request: request, outcome: "rejected", status: status, message: message), record("rejected", status: status, message: message))
        }
    }

    /// A `write.answered` event's body.
    static func answered(_ mutation: PendingMutation, outcome: String, status: Int?, message: String?, etag: String? = nil,
                                 item: JSONValue? = nil, key: String? = nil, current: JSONValue? = nil, currentETag: String? = nil,
                                 retryAfter: Int? = nil, inDoubt: Bool = false) -> JSONValue {
        .object([
            ("mutation", .number(mutation.seq)), ("outcome", .string(outcome)), ("status", .optional(status)),
            ("message", .optional(message)), ("etag", .optional(etag)), ("item", item ?? .null), ("key", .optional(key)),
            ("current", current ?? .null), ("currentEtag", .optional(currentETag)), ("retryAfter", .optional(retryAfter)),
        ] + (inDoubt ? [("inDoubt", .bool(true))] : []))
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
    private func exchange(url: String, method: String, body: [UInt8]?, headers: [(String, String)],
                          target: WriteTarget) async -> Exchange {
        let gateway = channel.gateway
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
            // deadline, the minimum rate or the body limit). What the server did is unknown,
            // unless the request never left (refused, not resolved, not connected).
            return .failed(status.map { "HTTP \($0), " + message } ?? message, mayHaveArrived: !HTTPGateway.neverLeft(message, status: status))
        case .refused(_, let message, _, _):
            return .refused(message)
        }
    }

    /// How one exchange ended.
    enum Exchange {
        case answered(status: Int, headers: [Header], body: [UInt8])
        /// No whole answer came: the mutation stays pending; `mayHaveArrived` when the request
        /// may have reached the server (in doubt), false when it never left.
        case failed(String, mayHaveArrived: Bool)
        /// Not sent by Fetchlog's own rules (the address policy, a scheme): the user must act.
        case refused(String)
    }
}
