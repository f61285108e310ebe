import Foundation

/// Which bodies `log compact` may drop, and why that leaves every view at the head as it was.
///
/// The state holds, per resource, the last `fetched` body that decoded; every earlier one
/// it replaced. So the body of a `fetched` event is superseded — nothing at the head reads
/// it — when a later `fetched` event of the same resource decoded and is the body the head
/// holds. Only bodies that decoded themselves are dropped: the reducer reads a compacted
/// `fetched` event as the success it was (its status, validators and times), so replay
/// gives the same state at the head, hash for hash. Intents, 304s, failures and the last
/// body of each resource are never touched, nor are the bodies the saved checkpoint names.
package enum Compaction {
    /// A planned compaction: the events whose body goes, by resource.
    public struct Plan: Sendable, Equatable {
        public struct Resource: Sendable, Equatable {
            public let key: ResourceKey
            /// Seqs of the events whose body goes, in order.
            public var seqs: [UInt64] = []
            /// Their body bytes (each counted as if it held its own copy).
            public var bodyBytes = 0
            /// The seq of the body the head holds for this resource.
            public var heldSeq: UInt64 = 0
            /// The first body after the last one dropped: from there `--at` holds this resource.
            public var nextBodySeq: UInt64 = 0
        }
        public var resources: [Resource] = []
        /// Every event read, and the `fetched` events that carry a body.
        public var eventsRead = 0
        public var bodiesRead = 0
        /// The seq from which `--at` answers with every body again: the largest `nextBodySeq`.
        public var horizon: UInt64 = 0
        /// Superseded bodies kept because the saved checkpoint restores from them.
        public var keptForCheckpoint = 0
        public var seqs: [UInt64] { resources.flatMap(\.seqs) }
        public var events: Int { resources.reduce(0) { $0 + $1.seqs.count } }
        public var bodyBytes: Int { resources.reduce(0) { $0 + $1.bodyBytes } }
    }

    /// Which events to compact: those before `before` (a seq) and recorded before
    /// `recordedBefore` (a time), when given, whose body is superseded.
    ///
    /// One pass over the log reading headers only; a body is decoded only when it differs
    /// from the last one seen for its resource (a year of identical 200s decodes once).
    public static func plan(_ log: EventLog, sources: SourceRegistry, before: UInt64? = nil, recordedBefore: Timestamp? = nil,
                            isCancelled: () -> Bool = { Task.isCancelled }) throws -> Plan {
        struct Seen {
            var digest: [UInt8]
            var manifestSeq: UInt64?
            var decodes: Bool
        }
        var state = LogState(sources: sources)
        var lastSeen: [ResourceKey: Seen] = [:]
        /// Per resource, the decoded `fetched` events (seq, body bytes, candidate?) in order.
        var decoded: [ResourceKey: [(seq: UInt64, bytes: Int, candidate: Bool)]] = [:]
        var held: [ResourceKey: UInt64] = [:]
        var plan = Plan()
        try log.scanStored(batchSize: 1024, lookingUpBodies: false) { stored in
            plan.eventsRead += 1
            if stored.seq % 1024 == 0, isCancelled() { throw CompactionCancelled() }
            let key = ResourceKey(source: stored.source, path: stored.label)
            switch stored.kind {
            case .intent:
                // Intents define manifest sources, which decide how later bodies decode.
                LogReducer.apply(try wholeEvent(stored, log: log), to: &state)
            case .endOfList:
                held[key] = nil
            case .fetched:
                let (digest, size, compacted) = try bodyIdentity(stored, log: log)
                guard let digest else { return true }
                if compacted {
                    // Compacted earlier: it decoded then, and it is no body to keep.
                    held[key] = stored.seq
                    return true
                }
                plan.bodiesRead += 1
                let manifestSeq = state.manifests[stored.source]?.seq
                let decodes: Bool
                if let seen = lastSeen[key], seen.digest == digest, seen.manifestSeq == manifestSeq {
                    decodes = seen.decodes
                } else {
                    decodes = try Self.decodes(stored.seq, key: key, log: log, state: state)
                    lastSeen[key] = Seen(digest: digest, manifestSeq: manifestSeq, decodes: decodes)
                }
                guard decodes else { return true }
                held[key] = stored.seq
                let inHorizon = (before.map { stored.seq < $0 } ?? true) && (recordedBefore.map { stored.recordedAt < $0 } ?? true)
                decoded[key, default: []].append((stored.seq, size, inHorizon))
            default:
                break
            }
            return true
        }
        // The saved checkpoint restores documents from the bodies it names: those stay,
        // so opening the store does not fall back to a replay (the next checkpoint frees them).
        let pinned = (try log.loadCheckpoint()).map(Checkpoint.referencedSeqs) ?? []
        plan.keptForCheckpoint = 0
        for key in decoded.keys.sorted() {
            guard let heldSeq = held[key], let list = decoded[key] else { continue }
            var resource = Plan.Resource(key: key)
            resource.heldSeq = heldSeq
            for (index, entry) in list.enumerated() where entry.candidate && entry.seq < heldSeq {
                if pinned.contains(entry.seq) {
                    plan.keptForCheckpoint += 1
                    continue
                }
                resource.seqs.append(entry.seq)
                resource.bodyBytes += entry.bytes
                resource.nextBodySeq = list[index + 1].seq
            }
            guard !resource.seqs.isEmpty else { continue }
            plan.horizon = max(plan.horizon, resource.nextBodySeq)
            plan.resources.append(resource)
        }
        return plan
    }

    /// The SHA-256 and size of a `fetched` event's body (nil digest: no body), and whether
    /// it is compacted already. A body stored apart is named by its record; one held in the
    /// record is hashed.
    private static func bodyIdentity(_ stored: StoredEvent, log: EventLog) throws -> (digest: [UInt8]?, size: Int, compacted: Bool) {
        let found: (digest: [UInt8]?, size: Int, compacted: Bool)? = stored.record.withUnsafeBytes { raw in
            if let reference = EnvelopeCodec.bodyReference(of: raw) { return (Array(reference.digest), reference.length, false) }
            return nil
        }
        if let found { return found }
        let event: Event
        do { event = try stored.decode() } catch { throw StoreError.damagedRecord(seq: stored.seq, reason: error) }
        if let compacted = event.compactedBody { return (compacted.sha256, compacted.size, true) }
        guard let body = event.body else { return (nil, 0, false) }
        return (SHA256.digest(body), body.count, false)
    }

    /// The event with its body (looked up when it is stored apart).
    private static func wholeEvent(_ stored: StoredEvent, log: EventLog) throws -> Event {
        let apart = stored.record.withUnsafeBytes { EnvelopeCodec.bodyReference(of: $0) != nil }
        if apart, let event = try log.event(at: stored.seq) { return event }
        do { return try stored.decode() } catch { throw StoreError.damagedRecord(seq: stored.seq, reason: error) }
    }

    /// Whether the body of the `fetched` event at `seq` decodes as its source says at that point.
    private static func decodes(_ seq: UInt64, key: ResourceKey, log: EventLog, state: LogState) throws -> Bool {
        guard let event = try log.event(at: seq), let body = event.body,
              let resource = state.resource(source: key.source, label: key.path) else { return false }
        return (try? state.decode(resource, body: body)) != nil
    }
}

/// `log compact` stopped by Ctrl-C while planning: nothing was changed.
public struct CompactionCancelled: Error, CustomStringConvertible {
    public var description: String { "cancelled while planning: nothing was compacted" }
}
