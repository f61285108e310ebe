import FetchlogCore
import FetchlogNATS
import Foundation
import Synchronization

/// The appends of a store attached to a stream. Each event goes to the store's outbox
/// first (durable, under the store's next own count `n`, before any network), then is
/// published on the store's own subject with message id `store:n`, and applied when the
/// stream gives it back, leaving the outbox in the same transaction. The caller gets the
/// stream seq once the event is in the local log (read-your-writes).
///
/// Offline first: with the stream unreachable (no server answers, or the stream elects no
/// leader within `patience`) the events stay in the outbox, the append returns without a
/// seq (the store shows them on top of the log, pending sync) and `onPending` says so.
/// The next append, or `publishOutbox` (`fetchlog follow`), publishes them in order.
///
/// Exactly once, whatever the outage: one writer per subject — each publish expects the
/// subject's last message to be this store's previous one
/// (`Nats-Expected-Last-Subject-Sequence`) — and a flush resumes after the last own count
/// the stream holds on the subject, so an entry whose publish landed but whose ack was
/// lost is never sent again, even after the stream's duplicate window has passed. Another
/// process of the same store publishing in between makes the stream refuse; the position
/// is read again and the flush goes on after it.
///
/// The connection is made on the first append, so commands that only read never wait on
/// the network. Publishing and applying run on one serial queue, off the cooperative pool
/// (nats.c's calls block).
///
/// `@unchecked Sendable`: `connection` and `position` are touched only on `queue`;
/// `patience`, `onRetry` and `onPending` are set before the first append.
public final class StreamAppends: AppendRoute, @unchecked Sendable {
    public let attachment: Replication.Attachment
    public let storeID: String
    let subject: String
    private let queue = DispatchQueue(label: "fetchlog.stream-appends")
    private let connect: @Sendable () throws -> NATSConnection
    private var connection: NATSConnection?
    /// The stream seq of this store's last message on its subject, and its own count.
    private var position: (lastSubjectSeq: UInt64, published: UInt64)?

    /// How long a publish or the apply after it keeps retrying through a leader election
    /// or a lost connection before the events are left pending in the outbox.
    public var patience: Duration = .seconds(60)
    /// Said once per outage: what failed and that it is retried.
    public var onRetry: @Sendable (String) -> Void = { _ in }
    /// Said when events are left in the outbox, pending sync.
    public var onPending: @Sendable (String) -> Void = { _ in }

    public init(attachment: Replication.Attachment, storeID: String,
                connect: @escaping @Sendable () throws -> NATSConnection) {
        self.attachment = attachment
        self.storeID = storeID
        self.subject = Replication.subjectPrefix + Replication.subjectToken(storeID)
        self.connect = connect
    }

    package func append(_ events: [Event], to log: EventLog) async throws -> Range<UInt64> {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.commit(events, to: log) }) }
        }
    }

    /// Publishes what waits in the outbox and applies it; returns how many entries were
    /// published by this call. Throws when the stream is unreachable (the entries stay).
    package func publishOutbox(_ log: EventLog) throws -> Int {
        try queue.sync {
            let nats = try connected()
            return try patiently { try flush(log, nats: nats) }.count
        }
    }

    /// Publishes the outbox and applies everything the stream holds now: (published, applied).
    /// Each stream call that can meet a leader election or a lost connection (the last
    /// message on the subject, stream info, a consumer, a fetch) is retried as a write is,
    /// for up to `patience`, said once (`onRetry`); what was applied before stays applied.
    package func sync(_ log: EventLog) throws -> (published: Int, applied: Int) {
        try queue.sync {
            let nats = try connected()
            var said = false
            let published = try patiently(said: &said) { try flush(log, nats: nats) }.count
            let applied = try patiently(said: &said) { try Replication.catchUp(log, nats: nats, stream: attachment.stream) }
            return (published, applied)
        }
    }

    /// Keeps `log` current in the background (the shell): every `interval`, `sync`. A
    /// failure is said once (`onProblem`) and retried at the next tick; `onBack` says when it
    /// passes. Returns the stop function.
    package func follow(_ log: EventLog, every interval: Duration = .seconds(1), onProblem: @escaping @Sendable (String) -> Void,
                       onBack: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let stopped = StopFlag()
        let thread = Thread { [self] in
            var failing = false
            while !stopped.isSet {
                do {
                    _ = try sync(log)
                    if failing { onBack(); failing = false }
                } catch {
                    if !failing { onProblem("stream \(attachment.stream): \((error as? NATSError)?.description ?? "\(error)"); retrying every \(interval)") }
                    failing = true
                }
                Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
            }
        }
        thread.start()
        return { stopped.set() }
    }

    private func connected() throws -> NATSConnection {
        if let connection { return connection }
        let made = try connect()
        connection = made
        return made
    }

    private func commit(_ events: [Event], to log: EventLog) throws -> Range<UInt64> {
        guard !events.isEmpty else { let next = try log.lastSeq() + 1; return next ..< next }
        // Durable before any network: a crash, a full outage or a refusal loses nothing.
        let owns = try log.outboxAdd(events)
        let acks: [UInt64: UInt64]
        do {
            let nats = try connected()
            acks = try patiently { try flush(log, nats: nats) }
        } catch let error as NATSError {
            let waiting = (try? log.outboxCount()) ?? owns.count
            onPending("stream \(attachment.stream) is unreachable (\(error.description)): \(waiting) event\(waiting == 1 ? "" : "s") pending sync in this store's outbox; `fetchlog follow --once` publishes \(waiting == 1 ? "it" : "them") once the stream is back")
            return 0 ..< 0
        }
        var seqs: [UInt64] = []
        for own in owns {
            // Published by another process of this store (same outbox): found in the log.
            guard let seq = try acks[own] ?? seq(ofOwn: own, in: log) else {
                throw ReplicationError("event \(storeID):\(own) left the outbox but is not in the log: another process of this store is applying it; run `fetchlog follow --once`")
            }
            seqs.append(seq)
        }
        return seqs.min()! ..< seqs.max()! + 1
    }

    /// The local seq of this store's own event `own`, looked for in the newest events.
    private func seq(ofOwn own: UInt64, in log: EventLog) throws -> UInt64? {
        let last = try log.lastSeq()
        var found: UInt64?
        try log.scan(from: last > 4096 ? last - 4096 : 1) { event in
            if event.origin == Event.Origin(store: storeID, seq: own) { found = event.seq }
            return found == nil
        }
        return found
    }

    /// Runs `body`, retrying what passes (a leader election, a reconnection) with backoff for
    /// up to `patience`. A publish is retried with the same message id and expected position,
    /// so one whose ack was lost lands once.
    private func patiently<T>(_ body: () throws -> T) throws -> T {
        var said = false
        return try patiently(said: &said, body)
    }

    /// `patiently`, saying the retry only if `said` is false (one line for several calls).
    private func patiently<T>(said: inout Bool, _ body: () throws -> T) throws -> T {
        let deadline = ContinuousClock.now + patience
        var delay = Duration.milliseconds(100)
        while true {
            do {
                return try body()
            } catch let error as NATSError where error.isTransient && ContinuousClock.now + delay < deadline {
                if !said { onRetry("stream \(attachment.stream): \(error.description); retrying"); said = true }
                Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
                delay = min(delay * 2, .seconds(2))
            }
        }
    }

    /// Publishes every outbox entry past what the stream holds, in own-count order, then
    /// applies through this store's last message (its entries leave the outbox as they are
    /// applied). Returns the stream seq of each entry this call published.
    private func flush(_ log: EventLog, nats: NATSConnection) throws -> [UInt64: UInt64] {
        var acks: [UInt64: UInt64] = [:]
        var refusals = 0
        while true {
            let entries = try log.outboxEntries()
            guard !entries.isEmpty else { return acks }
            var (lastSubjectSeq, published) = try position ?? resume(nats)
            var refused = false
            for (own, event) in entries where own > published {
                let record = EnvelopeCodec.encode(event)
                let id = "\(storeID):\(own)"
                let (data, chunked) = try Chunks.prepare(record: record, id: id, events: attachment.stream, nats: nats)
                // (A Result, not a do/catch: the typed-throws catch with a condition crashed Swift 6.3's SIL verifier.)
                let sent = Result { () throws(NATSError) -> NATSConnection.PublishAck in
                    try nats.publish(subject: subject, data: data,
                                     headers: chunked,
                                     messageID: id, expectedLastSubjectSeq: lastSubjectSeq)
                }
                switch sent {
                case .success(let ack):
                    // A duplicate id is ours only if the stream holds these very bytes (a retry
                    // after a lost ack); else the count was used by a copy of this store.
                    if ack.duplicate, try nats.message(stream: attachment.stream, seq: ack.seq).map({ try Chunks.record(of: $0, events: attachment.stream, nats: nats) }) != record {
                        throw ReplicationError("stream \(attachment.stream) holds another event under id \(id): a copy of this store's directory published with the same store id; attach a new store")
                    }
                    (lastSubjectSeq, published) = (ack.seq, own)
                    position = (ack.seq, own)
                    acks[own] = ack.seq
                case .failure(let error):
                    // Another process of this store published in between: go on after it.
                    guard error.jetStreamCode == NATSError.wrongLastSequence else { throw error }
                    position = nil
                    refused = true
                }
                if refused { break }
            }
            if refused {
                refusals += 1
                guard refusals < 20 else {
                    throw ReplicationError("stream \(attachment.stream) refused 20 publishes on \(subject) in a row: another process of this store keeps publishing; try again")
                }
                continue
            }
            // Everything up to this store's last message, other writers' events before it included.
            try Replication.catchUp(log, nats: nats, stream: attachment.stream, through: lastSubjectSeq)
            // Entries left are ones another thread or process added meanwhile: another round.
            if try log.outboxEntries().allSatisfy({ $0.own <= published }) { return acks }
        }
    }

    /// Where this store's subject stands in the stream: its last message, and the own count
    /// in it (0 when it is the seeding's: own counts start past the seeded seqs).
    private func resume(_ nats: NATSConnection) throws -> (lastSubjectSeq: UInt64, published: UInt64) {
        guard let last = try nats.lastMessage(stream: attachment.stream, subject: subject) else { return (0, 0) }
        let origin = try Replication.event(from: last, stream: attachment.stream, nats: nats).origin
        return (last.seq, origin?.store == storeID ? origin!.seq : 0)
    }
}

extension Replication {
    /// Routes `log`'s appends through its stream when the store is attached to one (the
    /// connection is made on the first append); returns the route, nil when not attached.
    @discardableResult
    package static func routeAppendsIfAttached(_ log: EventLog, onRetry: @escaping @Sendable (String) -> Void = { _ in },
                                              onPending: @escaping @Sendable (String) -> Void = { _ in }) throws -> StreamAppends? {
        guard let attachment = try attachment(of: log) else { return nil }
        // A server lost while a command writes is said at once (`onRetry`), whether or not a
        // call then fails: nats.c reconnects by itself, and the command may wait for it.
        let stream = attachment.stream
        let route = StreamAppends(attachment: attachment, storeID: log.metadata.storeID) {
            try attachment.connect { onRetry("stream \(stream): \($0)") }
        }
        route.onRetry = onRetry
        route.onPending = onPending
        log.routeAppends(through: route)
        return route
    }
}

/// A flag one thread sets and another reads.
final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
