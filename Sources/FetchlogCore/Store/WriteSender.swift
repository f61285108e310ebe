import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

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
    public internal(set) var lines: [String] = []
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
    package func push(source: String?, resource: String?, automatic: Bool, width: Int = 1) async throws -> PushReport {
        guard let fetcher else { throw StoreUsageError.noFetcher }
        guard !fetcher.configuration.offline else { throw WriteError("the network is forbidden (offline): nothing was sent") }
        try await catchUp()
        let me = log.metadata.storeID
        // Each mutation's report entries, by its id: the report lists them in log order
        // however the answers came back.
        var entries: [UInt64: (tally: WritableKeyPath<PushReport, [UInt64]>, line: String)] = [:]
        var blocked = Set<String>()
        var handled = Set<UInt64>()
        var unreachable: String?
        // Different items' mutations are sent `width` at once (their events made durable
        // together by the log's group commit); an item's next mutation waits for the answer
        // to the one before it. One goes alone until the upstream has answered once: an
        // unreachable upstream fails one mutation and holds the others.
        var inFlight = Set<String>()
        var answered = false
        try await withThrowingTaskGroup(of: (UInt64, String, Answer).self) { group in
            func settle() async throws {
                guard let result = try await group.next() else { return }
                let (seq, item, answer) = result
                inFlight.remove(item)
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
                for seq in waiting {
                    handled.insert(seq)
                    guard let waited = durableState.writes.mutations[seq] else { continue }
                    // The answer to the item's mutation in flight decides this one (and a
                    // create's answer names the item's key).
                    while inFlight.contains(itemOf(waited, durableState)) || inFlight.count >= (answered ? max(width, 1) : 1) {
                        try await settle()
                    }
                    let state = durableState
                    guard let next = state.writes.mutations[seq] else { continue }
                    let item = itemOf(next, state)
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
                    inFlight.insert(item)
                    group.addTask { (next.seq, item, try await self.send(next, state: state, fetcher: fetcher)) }
                }
                while !inFlight.isEmpty { try await settle() }
            }
        }
        var report = PushReport()
        for seq in entries.keys.sorted() {
            let (tally, line) = entries[seq]!
            report[keyPath: tally].append(seq)
            report.lines.append(line)
        }
        return report
    }

    /// Before a fetch of a manifest resource (read your writes): its pending changes made
    /// here are sent first, unless the store is offline or has no fetcher. Their answers are
    /// recorded; one that fails stays pending, and the fetch goes on.
    package func pushBeforeFetch(source: String, resource: String) async throws {
        guard let fetcher, !fetcher.configuration.offline else { return }
        let me = log.metadata.storeID
        guard durableState.writes.mutations.values.contains(where: { $0.store == me && $0.source == source && $0.resource == resource }) else { return }
        try await push(source: source, resource: resource, automatic: true)
    }

    private struct Answer: Sendable {
        var request: String
        var outcome: String
        var status: Int?
        var message: String?
    }

    /// Sends one mutation: records the attempt, sends, classifies and records the answer.
    private func send(_ mutation: PendingMutation, state: LogState, fetcher: Fetcher) async throws -> Answer {
        let source = Source(mutation.source)
        let keyText = state.writes.itemKey(mutation)
        guard let target = try? WriteTarget(state, source: mutation.source, resource: mutation.resource), let route = target.writes.routes[mutation.op] else {
            let message = "the manifest or plug-in in force declares no \(mutation.op.rawValue) for \(mutation.source) \(mutation.resource) any more"
            try await record(mutation, outcome: "rejected", status: nil, message: message)
            return Answer(request: "\(mutation.op.rawValue) \(mutation.resource)", outcome: "rejected", message: message)
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
            try await record(mutation, outcome: "paused", status: nil, message: message)
            return Answer(request: "\(route.method) \(path)", outcome: "paused", message: message)
        }
        var url = fetcher.configuration.upstream.url(source: source, path: path, realBase: target.plugin.realBase)
        if !credentials.query.isEmpty {
            url += (url.contains("?") ? "&" : "?") + credentials.query.map { "\($0.0)=\(Resource.queryEscape($0.1))" }.joined(separator: "&")
        }
        let secretHeaders = credentials.headers.map { ($0.name, $0.value) }
        let itemID = WriteState.itemID(mutation.source, mutation.resource, keyText)
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
        let body = mutation.op == .delete ? nil : Array(mutation.fields.canonicalText().utf8)
        let request = "\(route.method) \(path)"
        try await sendIntent(source: source, label: WriteEvents.sending, body: .object([
            ("mutation", .number(mutation.seq)), ("attempt", .number(mutation.attempts + 1)), ("method", .string(route.method)),
            ("path", .string(path)), ("idempotencyKey", .string(mutation.idempotencyKey)), ("ifMatch", .optional(ifMatch)),
        ]))
        let response: (status: Int, headers: HTTPHeaders, body: [UInt8])
        do {
            response = try await exchange(fetcher, url: url, method: route.method, body: body, headers: [
                ("Idempotency-Key", mutation.idempotencyKey),
            ] + (ifMatch.map { [("If-Match", $0)] } ?? []) + secretHeaders)
        } catch {
            let message = Fetcher.describe(error).1
            try await record(mutation, outcome: "failed", status: nil, message: message)
            return Answer(request: request, outcome: "failed", message: message)
        }
        let json = try? JSONValue.parse(bytes: response.body)
        let status = response.status
        let etag = response.headers.first(name: "ETag")
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
                } else if let location = response.headers.first(name: "Location"), let last = location.split(separator: "/").last {
                    newKey = String(last)
                }
            }
            try await record(mutation, outcome: "confirmed", status: status, message: nil, etag: etag, item: item, key: newKey)
            return Answer(request: request, outcome: "confirmed", status: status, message: newKey.map { "key \($0)" })
        case 412:
            // The server's version now, shown beside the user's change: asked for, else the
            // one the refusal carries.
            var current: JSONValue?, currentETag: String?
            if let fetched = try? await exchange(fetcher, url: url, method: "GET", body: nil, headers: secretHeaders), fetched.status == 200,
               let parsed = try? JSONValue.parse(bytes: fetched.body) {
                current = RestWrites.item(in: parsed, route) ?? (parsed.memberNames.isEmpty ? nil : parsed)
                currentETag = fetched.headers.first(name: "ETag")
            }
            if current == nil, case .object? = json?["current"] { current = json?["current"]; currentETag = etag }
            let message = Self.message(json, response.body, status: status)
            try await record(mutation, outcome: "conflict", status: status, message: message, current: current, currentETag: currentETag)
            return Answer(request: request, outcome: "conflict", status: status, message: message)
        case 401, 403:
            let message = Self.message(json, response.body, status: status) + " (fix the source's credentials, then push)"
            try await record(mutation, outcome: "paused", status: status, message: message)
            return Answer(request: request, outcome: "paused", status: status, message: message)
        case 408, 429, 500...:
            var message = Self.message(json, response.body, status: status)
            let after = response.headers.first(name: "Retry-After")
            if let after { message += " (Retry-After \(after))" }
            try await record(mutation, outcome: "failed", status: status, message: message,
                             retryAfter: after.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
            return Answer(request: request, outcome: "failed", status: status, message: message)
        default:
            let message = Self.message(json, response.body, status: status)
            try await record(mutation, outcome: "rejected", status: status, message: message)
            return Answer(request: request, outcome: "rejected", status: status, message: message)
        }
    }

    /// The `write.answered` event.
    private func record(_ mutation: PendingMutation, outcome: String, status: Int?, message: String?, etag: String? = nil,
                        item: JSONValue? = nil, key: String? = nil, current: JSONValue? = nil, currentETag: String? = nil,
                        retryAfter: Int? = nil) async throws {
        try await sendIntent(source: Source(mutation.source), label: WriteEvents.answered, body: .object([
            ("mutation", .number(mutation.seq)), ("outcome", .string(outcome)), ("status", .optional(status)),
            ("message", .optional(message)), ("etag", .optional(etag)), ("item", item ?? .null), ("key", .optional(key)),
            ("current", current ?? .null), ("currentEtag", .optional(currentETag)), ("retryAfter", .optional(retryAfter)),
        ]))
    }

    /// The server's words: a JSON body's `error`, `message`, `detail` or `title`, else its text.
    static func message(_ json: JSONValue?, _ body: [UInt8], status: Int) -> String {
        for name in ["error", "message", "detail", "title"] {
            if let text = json?[name]?.stringValue, !text.isEmpty { return text }
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "HTTP \(status)" : text
    }

    /// One request and its whole answer.
    private func exchange(_ fetcher: Fetcher, url: String, method: String, body: [UInt8]?,
                          headers: [(String, String)]) async throws -> (status: Int, headers: HTTPHeaders, body: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "User-Agent", value: fetcher.configuration.userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await fetcher.client.execute(request, deadline: .now() + .nanoseconds(fetcher.configuration.deadline.nanoseconds))
        var bytes: [UInt8] = []
        for try await chunk in response.body {
            bytes.append(contentsOf: chunk.readableBytesView)
            if bytes.count > 16 << 20 { break }
        }
        return (Int(response.status.code), response.headers, bytes)
    }
}
