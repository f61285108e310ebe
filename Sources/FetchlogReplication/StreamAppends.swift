import FetchlogCore
import FetchlogNATS
import Foundation

/// The appends of a store attached to a stream: each event is published on the store's own
/// subject (the stream's ack commits it) and applied when it comes back, so the local seq
/// is the stream's and the caller gets it only once the event is in the local log
/// (read-your-writes: the next snapshot holds it).
///
/// One writer per subject: each publish expects the subject's last message to be this
/// store's previous one (`Nats-Expected-Last-Subject-Sequence`). Another process of the
/// same store publishing in between makes the stream refuse; the position is then read
/// again from the stream and the publish retried. Every message of a store has a
/// `Nats-Msg-Id` of `store:n` (n counts the store's own events), so a publish retried after
/// a lost ack lands once; a duplicate ack is checked against the bytes the stream holds.
///
/// The connection is made on the first append, so commands that only read never wait on
/// the network. Publishing and applying run on one serial queue of this object, off the
/// cooperative pool (nats.c's calls block).
///
/// `@unchecked Sendable`: `connection` and `position` are touched only on `queue`.
public final class StreamAppends: AppendRoute, @unchecked Sendable {
    public let attachment: Replication.Attachment
    public let storeID: String
    let subject: String
    private let queue = DispatchQueue(label: "fetchlog.stream-appends")
    private let connect: @Sendable () throws -> NATSConnection
    private var connection: NATSConnection?
    /// The stream seq of this store's last message on its subject, and the next own count.
    private var position: (lastSubjectSeq: UInt64, nextOwn: UInt64)?

    public init(attachment: Replication.Attachment, storeID: String,
                connect: @escaping @Sendable () throws -> NATSConnection) {
        self.attachment = attachment
        self.storeID = storeID
        self.subject = Replication.subjectPrefix + Replication.subjectToken(storeID)
        self.connect = connect
    }

    public func append(_ events: [Event], to log: EventLog) async throws -> Range<UInt64> {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.commit(events, to: log) }) }
        }
    }

    private func commit(_ events: [Event], to log: EventLog) throws -> Range<UInt64> {
        guard !events.isEmpty else { let next = try log.lastSeq() + 1; return next ..< next }
        let nats: NATSConnection
        do {
            nats = try connection ?? connect()
        } catch let error as NATSError {
            throw ReplicationError("stream \(attachment.stream) is unreachable (\(error.description)): nothing was recorded; check the servers (\(attachment.servers.joined(separator: ","))) and try again")
        }
        connection = nats
        var seqs: [UInt64] = []
        for event in events { seqs.append(try patiently { try publishOnce(event, nats: nats) }) }
        // Everything up to this store's last event, other writers' events before it included.
        try patiently { try Replication.catchUp(log, nats: nats, stream: attachment.stream, through: seqs.max()!) }
        return seqs.min()! ..< seqs.max()! + 1
    }

    /// How long a publish or the apply after it keeps retrying through a leader election
    /// or a lost connection. Set before the first append.
    public var patience: Duration = .seconds(60)
    /// Said once per outage: what failed and that it is retried. Set before the first append.
    public var onRetry: @Sendable (String) -> Void = { _ in }

    /// Runs `body`, retrying what passes (a leader election, a reconnection) with backoff for
    /// up to `patience`. A publish is retried with the same message id and expected position,
    /// so one whose ack was lost lands once.
    private func patiently<T>(_ body: () throws -> T) throws -> T {
        let deadline = ContinuousClock.now + patience
        var delay = Duration.milliseconds(100)
        var said = false
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

    private func publishOnce(_ event: Event, nats: NATSConnection) throws -> UInt64 {
        var refusals = 0
        while true {
            let (lastSubjectSeq, own) = try position ?? resume(nats)
            var copy = event
            copy.origin = Event.Origin(store: storeID, seq: own)
            let record = EnvelopeCodec.encode(copy)
            let id = "\(storeID):\(own)"
            let (data, chunked) = try Chunks.prepare(record: record, id: id, events: attachment.stream, nats: nats)
            // (A Result, not a do/catch: the typed-throws catch with a condition crashed Swift 6.3's SIL verifier.)
            let published = Result { () throws(NATSError) -> NATSConnection.PublishAck in
                try nats.publish(subject: subject, data: data,
                                 headers: [("Fetchlog-Store", storeID), ("Fetchlog-Origin-Seq", String(own))] + chunked,
                                 messageID: id, expectedLastSubjectSeq: lastSubjectSeq)
            }
            switch published {
            case .success(let ack):
                // A duplicate id is ours only if the stream holds these very bytes (a retry
                // after a lost ack); else another process of this store used the count.
                if ack.duplicate, try nats.message(stream: attachment.stream, seq: ack.seq).map({ try Chunks.record(of: $0, events: attachment.stream, nats: nats) }) != record {
                    position = nil
                } else {
                    position = (ack.seq, own + 1)
                    return ack.seq
                }
            case .failure(let error):
                // Another process of this store published in between: go on after it.
                guard error.jetStreamCode == NATSError.wrongLastSequence else { throw error }
                position = nil
            }
            refusals += 1
            guard refusals < 20 else {
                throw ReplicationError("stream \(attachment.stream) refused 20 publishes on \(subject) in a row: another process of this store keeps publishing; try again")
            }
        }
    }

    /// Where this store's subject stands in the stream: its last message and the own count in it.
    private func resume(_ nats: NATSConnection) throws -> (lastSubjectSeq: UInt64, nextOwn: UInt64) {
        guard let last = try nats.lastMessage(stream: attachment.stream, subject: subject) else { return (0, 1) }
        // After an own publish the last message is this store's own; before any, it is the
        // seeding's last, whose stream seq bounds every own count the seeding used (an own
        // event seeded from local seq k has count k, and local seq = stream seq).
        let origin = try Replication.event(from: last, stream: attachment.stream, nats: nats).origin
        let own = origin?.store == storeID ? origin!.seq : last.seq
        return (last.seq, own + 1)
    }
}

extension Replication {
    /// Routes `log`'s appends through its stream when the store is attached to one (the
    /// connection is made on the first append); returns whether it is.
    @discardableResult
    public static func routeAppendsIfAttached(_ log: EventLog, onRetry: @escaping @Sendable (String) -> Void = { _ in }) throws -> Bool {
        guard let attachment = try attachment(of: log) else { return false }
        let servers = attachment.servers
        let route = StreamAppends(attachment: attachment, storeID: log.metadata.storeID) { try NATSConnection(servers: servers) }
        route.onRetry = onRetry
        log.routeAppends(through: route)
        return true
    }
}
