import FetchlogLMDB

/// What `log stats` reports.
package struct LogStatistics: Sendable, Equatable {
    package var events = 0
    package var byKind: [String: Int] = [:]
    package var bySource: [String: Int] = [:]
    /// Stored record bytes (envelopes included; a body stored apart counts as its 36-byte
    /// reference) and the bytes of every event's body, as if each held its own copy.
    package var recordBytes = 0
    package var bodyBytes = 0
    /// Bodies stored once, by SHA-256 (format 2): how many, and their bytes.
    package var distinctBodies = 0
    package var distinctBodyBytes = 0
    /// Body bytes held by reference rather than in records: what storing bodies once saved
    /// (referenced bytes minus the distinct bytes stored).
    package var bodyBytesSaved = 0
    /// Events whose body `log compact` dropped, and those bodies' bytes as received.
    package var compactedEvents = 0
    package var compactedBodyBytes = 0
    /// Events merged from other stores (`log import` keeps their origin).
    package var mergedEvents = 0
    package var firstSeq: UInt64 = 0
    package var lastSeq: UInt64 = 0
    package var firstRecordedAt: Timestamp?
    package var lastRecordedAt: Timestamp?
}

/// What `log verify` found.
package struct VerifyReport: Sendable {
    package struct Problem: Sendable, CustomStringConvertible {
        package let seq: UInt64
        package let reason: String
        package var description: String { "seq \(seq): \(reason)" }
    }
    package var checked = 0
    package var lastSeq: UInt64 = 0
    /// Every problem found, in log order (the first is the one to look at).
    package var problems: [Problem] = []
    package var isHealthy: Bool { problems.isEmpty }
}

extension EventLog {
    package func statistics() throws -> LogStatistics {
        var stats = LogStatistics()
        var referenced = 0
        // Counting needs no body stored apart: its size is in the record's reference, so a
        // store with one unreadable body is still described (`log verify` names that body).
        try scanStored(batchSize: 512, lookingUpBodies: false) { stored in
            let reference = stored.record.withUnsafeBytes { EnvelopeCodec.bodyReference(of: $0)?.length }
            let event: Event
            do {
                // `compacting` reads a referenced body's size without looking the body up.
                event = try reference == nil ? stored.decode() : stored.record.withUnsafeBytes { raw throws(EnvelopeError) in try EnvelopeCodec.compacting(raw) }
            } catch let error as EnvelopeError { throw StoreError.damagedRecord(seq: stored.seq, reason: error) }
            stats.events += 1
            stats.byKind[event.kind.name, default: 0] += 1
            stats.bySource[event.source, default: 0] += 1
            stats.bodyBytes += reference ?? event.body?.count ?? 0
            stats.recordBytes += stored.size
            if let reference { referenced += reference }
            if reference == nil, let compacted = event.compactedBody {
                stats.compactedEvents += 1
                stats.compactedBodyBytes += compacted.size
            }
            if event.origin != nil { stats.mergedEvents += 1 }
            if stats.firstSeq == 0 { stats.firstSeq = event.seq; stats.firstRecordedAt = event.recordedAt }
            stats.lastSeq = event.seq
            stats.lastRecordedAt = event.recordedAt
            return true
        }
        try read { txn in
            try txn.withCursor(bodies) { cursor in
                var entry = try cursor.get(.first)
                while let current = entry {
                    stats.distinctBodies += 1
                    stats.distinctBodyBytes += current.value.count
                    entry = try cursor.get(.next)
                }
            }
        }
        stats.bodyBytesSaved = max(0, referenced - stats.distinctBodyBytes)
        return stats
    }

    /// Reads every record: key width, seq order from 1 with no gap, checksum,
    /// decodability, that each record's own seq matches its key, and that the body a record
    /// refers to is held and hashes to its reference.
    package func verify() throws -> VerifyReport {
        var report = VerifyReport()
        var expected: UInt64 = 1
        try scanRaw { key, record, lookup in
            report.checked += 1
            guard let seq = SequenceKey.decode(key) else {
                report.problems.append(.init(seq: expected, reason: "a key of \(key.count) bytes, not an 8-byte seq"))
                return true
            }
            if seq != expected {
                report.problems.append(.init(seq: seq, reason: seq > expected
                    ? (seq - expected == 1 ? "gap: seq \(expected) is missing" : "gap: seqs \(expected)…\(seq - 1) are missing")
                    : "out of order after \(expected - 1)"))
            }
            expected = seq + 1
            report.lastSeq = seq
            do {
                let event = try EnvelopeCodec.decode(record, body: lookup)
                if event.seq != seq { report.problems.append(.init(seq: seq, reason: "the record says seq \(event.seq)")) }
                if let reference = EnvelopeCodec.bodyReference(of: record), let body = event.body,
                   SHA256.digest(body) != Array(reference.digest) {
                    report.problems.append(.init(seq: seq, reason: "its body (sha256 \(SHA256.hex(digest: Array(reference.digest)))) is damaged: the bytes held hash to \(SHA256.hex(body))"))
                }
            } catch {
                report.problems.append(.init(seq: seq, reason: "\(error)"))
            }
            return true
        }
        return report
    }
}
