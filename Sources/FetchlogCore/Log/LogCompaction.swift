import FetchlogLMDB
import Foundation

/// What `EventLog.compactBodies` did.
package struct BodyCompaction: Sendable, Equatable {
    /// Records whose body was dropped (their headers kept).
    package var events = 0
    /// Their stored size before and after (envelopes; a body stored apart counts as its reference).
    package var recordBytesBefore = 0
    package var recordBytesAfter = 0
    /// Bodies stored apart that no record refers to any more, removed.
    package var bodiesRemoved = 0
    package var bodyBytesRemoved = 0
    /// Body bytes the dropped events carried, as if each held its own copy.
    package var bodyBytesDropped = 0
    /// Bytes freed inside the data file (LMDB reuses them for later writes; `--rewrite`
    /// returns them to the file system).
    package var freedBytes: Int { recordBytesBefore - recordBytesAfter + bodyBytesRemoved }
    package init() {}
}

extension EventLog {
    /// Drops the bodies of the events at `seqs` — every header stays (the audit trail:
    /// when, what, status, validators, size and hash of the body) — then removes each body
    /// stored apart that no record refers to any more. Which events may lose their body is
    /// the caller's decision (`Compaction.plan`: superseded ones); this only rewrites.
    ///
    /// Done in write transactions of `batchSize` records on the writer thread, each a valid
    /// store by itself (a killed compaction leaves some records compacted and some not; a
    /// second run finishes it); the sweep of unreferenced bodies is the last transaction and
    /// looks at every record inside it, so a body an append of another process refers to is
    /// never removed. Records already compacted are skipped. `horizon` is recorded in the
    /// store's metadata (the largest one kept): `--at` before it may lack compacted bodies.
    package func compactBodies(_ seqs: [UInt64], horizon: UInt64, batchSize: Int = 2048,
                              progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }) throws -> BodyCompaction {
        nonisolated(unsafe) var result = BodyCompaction()
        let sorted = seqs.sorted()
        var start = 0
        while start < sorted.count {
            let chunk = Array(sorted[start ..< min(start + batchSize, sorted.count)])
            nonisolated(unsafe) var partial = BodyCompaction()
            _ = try writeExclusive { txn, databases, tally in
                partial = BodyCompaction()
                for seq in chunk {
                    guard let raw = try txn.get(databases.events, seq: seq) else { continue }
                    let event: Event
                    do { event = try EnvelopeCodec.compacting(raw) } catch let error as EnvelopeError { throw StoreError.damagedRecord(seq: seq, reason: error) }
                    guard event.seq == seq else {
                        throw StoreError.damagedRecord(seq: seq, reason: .invalidValue(field: "seq", value: "\(event.seq) stored under key \(seq)"))
                    }
                    // Compacted already (or no body): nothing to drop.
                    guard let compacted = event.compactedBody, EnvelopeCodec.isCompacted(raw) == false else { continue }
                    let before = raw.count
                    let size = EnvelopeCodec.encodedSize(of: event)
                    try SequenceKey.with(seq) { key in
                        try txn.reserve(databases.events, key: key, count: size) { EnvelopeCodec.encode(event, into: $0) }
                    }
                    partial.events += 1
                    partial.recordBytesBefore += before
                    partial.recordBytesAfter += size
                    partial.bodyBytesDropped += compacted.size
                    tally.events += 1
                    tally.bytes += size
                }
                return 0 ..< 0
            }
            result.events += partial.events
            result.recordBytesBefore += partial.recordBytesBefore
            result.recordBytesAfter += partial.recordBytesAfter
            result.bodyBytesDropped += partial.bodyBytesDropped
            start += chunk.count
            progress(start, sorted.count)
        }
        let meta = self.meta
        _ = try writeExclusive { txn, databases, _ in
            var referenced = Set<[UInt8]>()
            try txn.withCursor(databases.events) { cursor in
                var entry = try cursor.get(.first)
                while let current = entry {
                    if let reference = EnvelopeCodec.bodyReference(of: current.value) { referenced.insert(Array(reference.digest)) }
                    entry = try cursor.get(.next)
                }
            }
            var unreferenced: [([UInt8], Int)] = []
            try txn.withCursor(databases.bodies) { cursor in
                var entry = try cursor.get(.first)
                while let current = entry {
                    let key = Array(current.key)
                    if !referenced.contains(key) { unreferenced.append((key, current.value.count)) }
                    entry = try cursor.get(.next)
                }
            }
            for (key, count) in unreferenced {
                _ = try key.withUnsafeBytes { try txn.delete(databases.bodies, key: $0) }
                result.bodiesRemoved += 1
                result.bodyBytesRemoved += count
            }
            let held = try txn.get(meta, key: StoreSchema.Key.compactionHorizon).flatMap { UInt64(String(decoding: $0, as: UTF8.self)) } ?? 0
            if horizon > held { try txn.put(meta, key: StoreSchema.Key.compactionHorizon.text, value: String(horizon)) }
            return 0 ..< 0
        }
        return result
    }

    /// The seq from which `--at` answers with every body (0: nothing was ever compacted).
    package func compactionHorizon() throws -> UInt64 {
        try read { txn in
            try txn.get(meta, key: StoreSchema.Key.compactionHorizon).flatMap { UInt64(String(decoding: $0, as: UTF8.self)) } ?? 0
        }
    }
}
