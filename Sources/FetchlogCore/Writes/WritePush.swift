import Foundation

/// One push: every mutation this store made that can be sent now, sent exactly once (see
/// `Store.push`), its attempts and answers recorded through the store. A client of the
/// store, not a part of it: it reads the state the store folds, records intents through
/// `Store.sendIntents`, and sends through the one gateway (`WriteChannel`); it never holds
/// the log or the fetcher.
package struct WritePush: Sendable {
    let store: Store
    let channel: WriteChannel
    /// The store's id: only the mutations it made are sent by it (a replica's are shown pending).
    let storeID: String

    /// Sends and records. `automatic` (sending nobody asked for now, such as before a
    /// fetch): a mutation that failed waits for the server's Retry-After, else its backoff.
    /// Asked for, it goes at once.
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
    /// One pusher at a time per store (`PushClaim`, taken at `claimPath`): a push waits for
    /// one running (here or in another process; `waiting` is told whom it waits for), then
    /// catches up with the log, so what that one answered is not sent again, and what it left `sending` without
    /// an answer is in doubt (its sender is gone): sent again with the same key.
    ///
    /// `who` (`PushMode`): unattended, a mutation in doubt whose resending could apply it
    /// twice is held (`WritePush.unsafeToResend`), and `pending` shows it in doubt.
    package func run(source: String?, resource: String?, automatic: Bool, who: PushMode, width: Int,
                     claimPath: String, waiting: (@Sendable (PushClaim.Holder) -> Void)?) async throws -> PushReport {
        let claim = try await PushClaim.take(claimPath, as: PushClaim.Holder(
            pid: getpid(), started: channel.configuration.clock.now(),
            doing: (automatic ? "automatic push" : "push") + (source.map { " of \($0)" + (resource.map { " \($0)" } ?? "") } ?? "")),
            waiting: waiting)
        defer { claim.release() }
        _ = try await store.catchUp()
        var progress = PushProgress()
        // Passes over the waiting mutations in log order, until one finds none new (a
        // mutation recorded during the push is sent by it too).
        while true {
            let waiting = store.durableState.writes.pending.filter {
                !progress.handled.contains($0.seq) && $0.store == storeID && (source ?? $0.source) == $0.source && (resource ?? $0.resource) == $0.resource
            }.map(\.seq)
            guard !waiting.isEmpty else { break }
            var position = 0
            while position < waiting.count {
                // The next batch, from the state with every earlier answer folded.
                let state = store.durableState
                var batch: [WriteRequest] = []
                var items = Set<String>()
                var decided: [(mutation: PendingMutation, body: JSONValue)] = []
                while position < waiting.count, batch.count < (progress.answered ? Self.batchLimit : 1) {
                    let seq = waiting[position]
                    guard let next = state.writes.mutations[seq] else {
                        progress.handled.insert(seq)
                        position += 1
                        continue
                    }
                    let item = WriteState.itemID(next.source, next.resource, state.writes.itemKey(next))
                    // The answer to the item's mutation in this batch decides this one (and a
                    // create's answer names the item's key): the next batch.
                    if items.contains(item) { break }
                    progress.handled.insert(seq)
                    position += 1
                    if let why = holdReason(next, item: item, state: state, automatic: automatic, progress: progress) {
                        progress.hold(next, item: item, keyText: state.writes.itemKey(next), why)
                        continue
                    }
                    switch await prepare(next, item: item, state: state) {
                    case .send(let request):
                        if who == .unattended, next.inDoubt, let why = Self.unsafeToResend(
                            next.seq, method: request.route.method, ifMatch: request.ifMatch, honoured: request.target.writes.idempotencyKeyHonoured) {
                            progress.hold(next, item: item, keyText: request.keyText, why)
                            continue
                        }
                        batch.append(request)
                        items.insert(item)
                    case .decided(let answer, let body):
                        decided.append((next, body))
                        progress.settle(seq, item, answer)
                    }
                }
                guard !batch.isEmpty || !decided.isEmpty else { continue }
                // Durable before any request of the batch leaves.
                try await store.sendIntents(decided.map { (source: Source($0.mutation.source), label: WriteEvents.answered, body: $0.body) }
                    + batch.map { (source: Source($0.mutation.source), label: WriteEvents.sending, body: $0.sending) }, checkpoint: false)
                let results = try await deliver(batch, width: width, progress: &progress)
                try await store.sendIntents(results.map { (source: Source($0.request.mutation.source), label: WriteEvents.answered, body: $0.body) },
                                            checkpoint: false)
                for (request, answer, _) in results { progress.settle(request.mutation.seq, request.item, answer) }
                // Recorded as sending but never sent (the upstream stopped answering): in
                // doubt as after a crash, sent again with the same key by the next push.
                let sent = Set(results.map(\.request.mutation.seq))
                for request in batch where !sent.contains(request.mutation.seq) {
                    progress.hold(request.mutation, item: request.item, keyText: request.keyText, progress.unreachable ?? "not sent")
                }
            }
        }
        // A checkpoint the batches left due is saved by the next catch-up (or open), not
        // here: the push is done once its answers are durable.
        return progress.report(waitedFor: claim.waitedFor?.description)
    }

    /// Why `next` is not sent by this push (held, with its reason), or nil to send it.
    private func holdReason(_ next: PendingMutation, item: String, state: LogState, automatic: Bool, progress: PushProgress) -> String? {
        if progress.blocked.contains(item) { return "an earlier change of the item waits" }
        switch next.state {
        case .conflict: return "in conflict with the server's version (retry with force, or discard)"
        case .rejected: return "rejected: \(next.lastMessage ?? "the server refused it") (retry or discard)"
        default: break
        }
        if let unreachable = progress.unreachable { return unreachable }
        if automatic, let notBefore = next.notBefore, channel.configuration.clock.now().milliseconds < notBefore {
            return "failed \(next.failures) time(s): sent again after \(Timestamp(milliseconds: notBefore).iso8601)"
        }
        if next.op != .create, let key = next.key, key.hasPrefix("local:"), state.writes.serverKeys[WriteState.itemID(next.source, next.resource, key)] == nil {
            return "the item's create is not confirmed yet"
        }
        return nil
    }

    /// Why sending `request` again (its mutation in doubt: the server may have applied it)
    /// could apply it twice, or nil when it cannot: its method is idempotent (PUT, DELETE,
    /// a PATCH with `If-Match`), or the manifest says the upstream honours `Idempotency-Key`.
    static func unsafeToResend(_ seq: UInt64, method: String, ifMatch: String?, honoured: Bool) -> String? {
        if honoured || ["PUT", "DELETE"].contains(method) || (method == "PATCH" && ifMatch != nil) { return nil }
        return "in doubt (sent, no answer recorded: the upstream may have applied it); a \(method)"
            + (method == "PATCH" ? " without If-Match" : "")
            + " is not sent again by itself, and the manifest does not say the upstream honours Idempotency-Key"
            + " — pending retry \(seq) sends it, pending discard \(seq) drops it"
    }

    /// Sends a batch whose attempts are recorded: `width` at once, in batch order, none more
    /// once the upstream did not answer (`progress.unreachable`). The answers that came back.
    private func deliver(_ batch: [WriteRequest], width: Int, progress: inout PushProgress) async throws
        -> [(request: WriteRequest, answer: Answer, body: JSONValue)] {
        var results: [(request: WriteRequest, answer: Answer, body: JSONValue)] = []
        var unreachable = progress.unreachable
        try await withThrowingTaskGroup(of: (WriteRequest, Answer, JSONValue).self) { group in
            var next = 0, inFlight = 0
            while next < batch.count || inFlight > 0 {
                if next < batch.count, inFlight < max(width, 1), unreachable == nil {
                    let request = batch[next]
                    next += 1
                    inFlight += 1
                    group.addTask {
                        let (answer, body) = try await self.deliver(request)
                        return (request, answer, body)
                    }
                    continue
                }
                guard let (request, answer, body) = try await group.next() else { break }
                inFlight -= 1
                results.append((request, answer, body))
                if answer.outcome == "failed", answer.status == nil {
                    unreachable = PushProgress.noAnswer(answer)
                }
                if next >= batch.count || unreachable != nil, inFlight == 0 { break }
            }
        }
        progress.unreachable = unreachable
        return results
    }

    /// Mutations whose attempts (then answers) are committed together, at most.
    static var batchLimit: Int { 1024 }
}

/// What one push has done so far: each mutation's report line, the items whose later
/// mutations must wait, and whether the upstream has answered (or stopped answering).
struct PushProgress {
    /// Each mutation's report entry, by its id: the report lists them in log order however
    /// the answers came back.
    private var entries: [UInt64: (tally: WritableKeyPath<PushReport, [UInt64]>, line: String)] = [:]
    /// Items (`SOURCE/RESOURCE/KEY`) with a mutation that waits: their later ones are held.
    private(set) var blocked = Set<String>()
    /// Mutations this push looked at (sent, decided or held).
    var handled = Set<UInt64>()
    /// Why nothing more is sent: nothing came back at all for a request.
    var unreachable: String?
    /// The upstream answered at least once: batches may grow past one mutation.
    private(set) var answered = false

    static func noAnswer(_ answer: WritePush.Answer) -> String {
        "the upstream did not answer (\(answer.message ?? "no answer"))"
    }

    /// Records `answer` to mutation `seq` of `item`.
    mutating func settle(_ seq: UInt64, _ item: String, _ answer: WritePush.Answer) {
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
            if answer.status == nil { unreachable = Self.noAnswer(answer) }
        }
    }

    /// `mutation` is not sent by this push, for `why`; the item's later mutations wait too.
    mutating func hold(_ mutation: PendingMutation, item: String, keyText: String, _ why: String) {
        blocked.insert(item)
        entries[mutation.seq] = (\.held, "\(mutation.seq) \(mutation.op.rawValue) \(mutation.resource) \(keyText): held, \(why)")
    }

    /// The report, mutation by mutation in log order.
    func report(waitedFor: String?) -> PushReport {
        var report = PushReport()
        report.waitedFor = waitedFor
        for seq in entries.keys.sorted() {
            let (tally, line) = entries[seq]!
            report[keyPath: tally].append(seq)
            report.lines.append(line)
        }
        return report
    }
}
