import FetchlogCore
import FetchlogNATS
import Foundation

/// The log replicated through a NATS JetStream stream: the stream is the one total order,
/// and a store attached to it holds a copy whose seqs are the stream's (local seq = stream
/// seq), so `replay`, `--at`, exports and checkpoints agree on every replica at one seq.
///
/// A message is one event: its binary record (magic, version, fields, CRC-32C — the same
/// bytes the store writes, body inline) with its origin set, so a replica knows each event
/// as the store that first recorded it did. No headers but what a publish needs: seeding
/// expects the stream's last seq (a repeat fails instead of landing twice); a store's own
/// writes carry `Nats-Msg-Id` `store:n` and the expected last seq of their subject. (Two
/// informational headers per message cost a quarter of the seeding rate: 0.73–0.75 of raw
/// `js_PublishMsgAsync` without them, 0.45–0.64 with.)
///
/// Attaching a store (seeding an empty stream from its log, or becoming a replica of a
/// stream), following the stream, and writing through it (`StreamAppends`: an attached
/// store's appends are published and applied when they come back). Records over the
/// server's `max_payload` travel in chunks (`Chunks`). The offline outbox comes next.
public enum Replication {
    public static let defaultStream = "FETCHLOG"
    /// Every store publishes on a subject of its own under this prefix.
    public static let subjectPrefix = "fetchlog.events."

    enum MetaKey {
        static let stream = "replication-stream"
        static let servers = "replication-servers"
        static let domain = "replication-domain"
    }

    /// What a store remembers of its stream (`meta`), so later commands need no flag.
    public struct Attachment: Sendable, Equatable {
        public let stream: String
        public let servers: [String]
        /// The JetStream domain (a store on a leaf node addresses the hub's).
        public var domain: String? = nil

        /// A connection to the servers, in the domain; `onConnectionLost` is told once if
        /// the connection is lost.
        public func connect(onConnectionLost: (@Sendable (String) -> Void)? = nil) throws(NATSError) -> NATSConnection {
            var options = NATSConnection.Options()
            options.domain = domain
            options.onConnectionLost = onConnectionLost
            return try NATSConnection(servers: servers, options: options)
        }
    }

    package static func attachment(of log: EventLog) throws -> Attachment? {
        guard let stream = try log.metaValue(MetaKey.stream), let servers = try log.metaValue(MetaKey.servers) else { return nil }
        let domain = try log.metaValue(MetaKey.domain).flatMap { $0.isEmpty ? nil : $0 }
        return Attachment(stream: stream, servers: servers.split(separator: ",").map(String.init), domain: domain)
    }

    /// What attaching did.
    public enum Attached: Sendable, Equatable {
        /// The stream was empty: the store's log was published into it, in order.
        case seeded(events: Int)
        /// The store was empty: it is a replica of the stream, `behind` events to catch up.
        case replica(behind: UInt64)
        /// The store was attached before, to this stream: nothing to do.
        case already
    }

    /// Attaches `log` to `stream` (created with `replicas` when missing): into an empty
    /// stream the log is published in order (each publish expecting the stream to end just
    /// before it, so stream seq = local seq); otherwise the store must be empty and becomes
    /// a replica. The stream and servers are remembered in the store.
    package static func attach(_ log: EventLog, nats: NATSConnection, stream: String = defaultStream, replicas: Int = 1,
                              duplicateWindow: Duration = .seconds(120),
                              progress: (Int, Int) -> Void = { _, _ in }) throws -> Attached {
        if let held = try attachment(of: log) {
            guard held.stream == stream else {
                throw ReplicationError("this store is attached to stream \(held.stream), not \(stream): a store follows one stream")
            }
            return .already
        }
        let info = try nats.ensureStream(name: stream, subjects: [subjectPrefix + ">"], replicas: replicas, duplicateWindow: duplicateWindow)
        guard info.subjects.contains(subjectPrefix + ">") else {
            throw ReplicationError("stream \(stream) is not Fetchlog's (its subjects are \(info.subjects.joined(separator: ", ")), not \(subjectPrefix)>): choose another --stream")
        }
        let last = try log.lastSeq()
        let attached: Attached
        // Seeding from seq 1 into an empty stream, or on from where a seeding that was
        // stopped left it (the stream ends with this store's event at that seq, byte for
        // byte; every message before it expected its predecessor, so the rest is ours too).
        var seedFrom: UInt64?
        if info.lastSeq == 0 {
            seedFrom = 1
        } else if last >= info.lastSeq, let tail = try nats.message(stream: stream, seq: info.lastSeq),
                  let mine = try log.event(at: info.lastSeq),
                  try Chunks.record(of: tail, events: stream, nats: nats) == message(for: mine, store: log.metadata.storeID).data {
            seedFrom = info.lastSeq + 1
        }
        if let seedFrom {
            var published = 0
            let subject = subjectPrefix + subjectToken(log.metadata.storeID)
            // Pipelined: each publish expects the stream to end just before it, so a refusal
            // stops everything after it too, and what the stream holds is always a prefix.
            // Reading and encoding the log (a thread of its own) overlaps publishing.
            let store = log.metadata.storeID
            try Handoff<[(seq: UInt64, record: [UInt8], id: String)]>.pipeline(capacity: 4, produce: { handoff in
                var batch: [(seq: UInt64, record: [UInt8], id: String)] = []
                try log.scan(from: seedFrom) { event in
                    let (record, id) = message(for: event, store: store)
                    batch.append((event.seq, record, id))
                    if batch.count == 256 {
                        handoff.put(batch)
                        batch.removeAll(keepingCapacity: true)
                    }
                    return !handoff.isClosed
                }
                if !batch.isEmpty { handoff.put(batch) }
            }, consume: { messages in
                for message in messages {
                    let (data, chunked) = try Chunks.prepare(record: message.record, id: message.id, events: stream, nats: nats)
                    // No `Nats-Msg-Id` here: the expected last seq already makes a repeated
                    // publish fail rather than land twice, and the server skips its duplicate
                    // table (seeding ran at 0.45–0.64 of raw with it).
                    try nats.publishAsync(subject: subject, data: data, headers: chunked, messageID: nil,
                                          expectedLastSeq: message.seq - 1)
                }
                published += messages.count
                progress(published, Int(last))
            })
            try nats.completeAsyncPublishes()
            let after = try nats.streamInfo(stream).lastSeq
            guard after == last else {
                throw ReplicationError("stream \(stream) ends at seq \(after) after seeding, where this store's log ends at \(last): another writer published into it meanwhile; choose another --stream")
            }
            // Own counts up to the last seeded seq are the seeded events' (their origin seq is
            // their seq): the outbox's counts start past them.
            try log.outboxReserve(through: last)
            attached = .seeded(events: published)
        } else {
            guard last == 0 else {
                throw ReplicationError("stream \(stream) already holds \(info.lastSeq) events and this store holds \(last) of its own: only an empty store becomes a replica (merge this store's events with `log export` and `log import` into a replica instead)")
            }
            // The first message must be Fetchlog's before the store is tied to the stream.
            if let first = try nats.message(stream: stream, seq: info.firstSeq) { _ = try event(from: first, stream: stream, nats: nats) }
            attached = .replica(behind: info.lastSeq)
        }
        try log.setMetaValues([(MetaKey.stream, stream), (MetaKey.servers, nats.servers.joined(separator: ",")), (MetaKey.domain, nats.domain ?? "")])
        return attached
    }

    /// Applies what the stream holds past the store's last seq, in order, up to `through`
    /// (default: the stream's last seq when this started); returns how many events this
    /// call applied. Another process of this store applying the same messages at the same
    /// time is harmless (`EventLog.applyOrdered` skips what is held). Refuses a message that
    /// is not a Fetchlog event, or a gap (a seq the stream no longer holds), naming the seq.
    @discardableResult
    package static func catchUp(_ log: EventLog, nats: NATSConnection, stream: String, through: UInt64? = nil, batch: Int = 1024,
                               progress: (UInt64, UInt64) -> Void = { _, _ in }) throws -> Int {
        let target = try through ?? nats.streamInfo(stream).lastSeq
        let next = try log.lastSeq() + 1
        guard next <= target else { return 0 }
        var applied = 0
        // A few messages (a writer taking its own event back): fetched one by one, which
        // costs less than setting up a consumer.
        if target - next < 8 {
            var events: [Event] = []
            do {
                for seq in next ... target {
                    guard let message = try nats.message(stream: stream, seq: seq) else { throw gap(stream, at: seq) }
                    events.append(try event(from: message, stream: stream, nats: nats))
                }
            } catch {
                // What came before the message that cannot be applied is applied.
                _ = try apply(events, to: log, stream: stream)
                throw error
            }
            applied = try apply(events, to: log, stream: stream)
            progress(target, target)
            return applied
        }
        // Fetching and checking the next batch (a thread of its own) overlaps applying this
        // one (an LMDB commit each): two batches at most wait between them. Each fetch is
        // bounded in messages and bytes (`NATSConnection.fetchBytes`). A seq that does not
        // come (dropped on the way, a consumer that stalled) is a gap only when the server
        // says the stream no longer holds it; otherwise a new consumer reads on from it. A
        // lost connection or an unanswered call is a `NATSError` (transient: the caller
        // says so and retries; what was applied stays).
        let first = next
        try Handoff<[Event]>.pipeline(capacity: 2, produce: { handoff in
            var next = first
            var reader = try nats.reader(stream: stream, subject: subjectPrefix + ">", from: next)
            // Consumers in a row that brought nothing past `next`.
            var fruitless = 0
            while next <= target, !handoff.isClosed {
                // No more than the stream holds up to the target: a fetch short of its batch
                // and its bytes waits out its expiry.
                let wanted = Int(min(UInt64(batch), target - next + 1))
                var messages: [NATSConnection.StoredMessage] = []
                // (A Result, not a do/catch: the typed-throws catch with a condition crashed Swift 6.3's SIL verifier.)
                let fetched = Result { () throws(NATSError) -> [NATSConnection.StoredMessage] in try reader.next(batch: wanted, wait: .seconds(2)) }
                switch fetched {
                case .success(let received): messages = received
                // Dropped on the way to this process, not from the stream: read on below.
                case .failure(let error) where error.isSlowConsumer: break
                case .failure(let error): throw error
                }
                var events: [Event] = []
                events.reserveCapacity(messages.count)
                var stopped = false
                do {
                    for message in messages where message.seq >= next && message.seq <= target {
                        guard message.seq == next + UInt64(events.count) else { stopped = true; break }
                        events.append(try event(from: message, stream: stream, nats: nats))
                    }
                } catch {
                    // What came before the message that cannot be applied is applied.
                    handoff.put(events)
                    throw error
                }
                if let last = events.last {
                    handoff.put(events)
                    next = last.seq + 1
                    fruitless = 0
                }
                guard next <= target, stopped || events.isEmpty else { continue }
                // `next` did not come: removed from the stream, or lost on the way.
                if try isRemoved(next, from: stream, nats: nats) { throw gap(stream, at: next) }
                fruitless += 1
                if fruitless > 10 {
                    throw ReplicationError("stream \(stream) holds seq \(next) but sent nothing past seq \(next - 1) to 10 consumers in a row (its last seq is \(target)): the server may be overloaded; run `fetchlog follow` again")
                }
                reader = try nats.reader(stream: stream, subject: subjectPrefix + ">", from: next)
            }
        }, consume: { events in
            guard let last = events.last else { return }
            applied += try apply(events, to: log, stream: stream)
            progress(last.seq, target)
        })
        return applied
    }

    /// Whether the stream no longer holds `seq`, as the server says: below its first seq
    /// (purged, or past its limits), or not found by a direct get (deleted).
    private static func isRemoved(_ seq: UInt64, from stream: String, nats: NATSConnection) throws -> Bool {
        let info = try nats.streamInfo(stream)
        if seq < info.firstSeq { return true }
        return try nats.message(stream: stream, seq: seq) == nil
    }

    private static func gap(_ stream: String, at seq: UInt64) -> ReplicationError {
        ReplicationError("stream \(stream) has no seq \(seq): messages were removed from it, and a replica cannot be gap-free; attach a new store")
    }

    /// Applies events at their stream seqs (skipping those another process applied first).
    private static func apply(_ events: [Event], to log: EventLog, stream: String) throws -> Int {
        do {
            return try log.applyOrdered(events)
        } catch let error as OrderedApplyError {
            throw ReplicationError("the store's log is not a copy of stream \(stream) (\(error)): events were appended to it outside the stream; attach a new store")
        }
    }

    /// The message for `event`: its record with its origin, and the id its chunks are named
    /// by (`store:originSeq`).
    static func message(for event: Event, store: String) -> (data: [UInt8], id: String) {
        var copy = event
        let origin = event.origin ?? Event.Origin(store: store, seq: event.seq)
        copy.origin = origin
        return (EnvelopeCodec.encode(copy), "\(origin.store):\(origin.seq)")
    }

    /// The event a message carries (its record, or its chunks reassembled), checked (magic,
    /// CRC-32C, fields); its seq is the stream's.
    static func event(from message: NATSConnection.StoredMessage, stream: String, nats: NATSConnection) throws -> Event {
        let record = try Chunks.record(of: message, events: stream, nats: nats)
        do {
            var event = try record.withUnsafeBytes { try EnvelopeCodec.decode($0) }
            event.seq = message.seq
            return event
        } catch {
            throw ReplicationError("stream \(stream) holds a message that is not a Fetchlog event at seq \(message.seq) (subject \(message.subject): \(error)): it is not Fetchlog's stream; choose another --stream")
        }
    }

    /// A subject token from a store id (letters, digits, - and _ kept; anything else as _).
    static func subjectToken(_ id: String) -> String {
        String(id.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
    }
}

/// Why replication could not go on: what happened, and what to do.
public struct ReplicationError: Error, CustomStringConvertible, Equatable, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Batches handed from one thread to another, at most `capacity` waiting; the producer ends
/// it with `finish` (an error or nil), the consumer stops it early with `close`.
///
/// `@unchecked Sendable`: every field is guarded by `condition` (an `NSCondition`, not a
/// `Mutex`: each side waits on it for the other); `Item`s pass from the producer's thread to
/// the consumer's, each used by one side at a time.
final class Handoff<Item>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Item] = []
    private var finished = false
    private var failure: (any Error)?
    private var closed = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Runs `produce` on a thread of its own, its batches handed to `consume` on this one
    /// as they come (at most `capacity` waiting): reading overlaps writing. An error of
    /// either ends both; the producer's comes after the batches it handed over first.
    static func pipeline(capacity: Int, produce: @escaping @Sendable (Handoff<Item>) throws -> Void,
                         consume: (Item) throws -> Void) throws {
        let handoff = Handoff<Item>(capacity: capacity)
        let thread = Thread {
            do {
                try produce(handoff)
                handoff.finish(nil)
            } catch {
                handoff.finish(error)
            }
        }
        thread.start()
        defer { handoff.close() }
        while let item = try handoff.take() { try consume(item) }
    }

    var isClosed: Bool { condition.withLock { closed } }

    /// Waits for room (not after `close`).
    func put(_ item: Item) {
        condition.withLock {
            while items.count >= capacity && !closed { condition.wait() }
            guard !closed else { return }
            items.append(item)
            condition.broadcast()
        }
    }

    func finish(_ error: (any Error)?) {
        condition.withLock {
            finished = true
            failure = error
            condition.broadcast()
        }
    }

    func close() {
        condition.withLock {
            closed = true
            items.removeAll()
            condition.broadcast()
        }
    }

    /// The next item; nil once finished and drained; throws the producer's error after the
    /// items before it.
    func take() throws -> Item? {
        try condition.withLock {
            while items.isEmpty && !finished { condition.wait() }
            if !items.isEmpty {
                condition.broadcast()
                return items.removeFirst()
            }
            if let failure { throw failure }
            return nil
        }
    }
}
