import FetchlogLMDB

/// What `log stats` reports.
public struct LogStatistics: Sendable, Equatable {
    public var events = 0
    public var byKind: [String: Int] = [:]
    public var bySource: [String: Int] = [:]
    /// Stored record bytes (envelopes included) and the bodies within them.
    public var recordBytes = 0
    public var bodyBytes = 0
    public var firstSeq: UInt64 = 0
    public var lastSeq: UInt64 = 0
    public var firstRecordedAt: Timestamp?
    public var lastRecordedAt: Timestamp?
}

/// What `log verify` found.
public struct VerifyReport: Sendable {
    public struct Problem: Sendable, CustomStringConvertible {
        public let seq: UInt64
        public let reason: String
        public var description: String { "seq \(seq): \(reason)" }
    }
    public var checked = 0
    public var lastSeq: UInt64 = 0
    /// Every problem found, in log order (the first is the one to look at).
    public var problems: [Problem] = []
    public var isHealthy: Bool { problems.isEmpty }
}

extension EventLog {
    public func statistics() throws -> LogStatistics {
        var stats = LogStatistics()
        try scan(batchSize: 512) { event in
            stats.events += 1
            stats.byKind[event.kind.name, default: 0] += 1
            stats.bySource[event.source, default: 0] += 1
            stats.bodyBytes += event.body?.count ?? 0
            stats.recordBytes += EnvelopeCodec.encodedSize(of: event)
            if stats.firstSeq == 0 { stats.firstSeq = event.seq; stats.firstRecordedAt = event.recordedAt }
            stats.lastSeq = event.seq
            stats.lastRecordedAt = event.recordedAt
            return true
        }
        return stats
    }

    /// Reads every record: key width, seq order from 1 with no gap, checksum,
    /// decodability, and that each record's own seq matches its key.
    public func verify() throws -> VerifyReport {
        var report = VerifyReport()
        var expected: UInt64 = 1
        try scanRaw { key, record in
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
                let event = try EnvelopeCodec.decode(record)
                if event.seq != seq { report.problems.append(.init(seq: seq, reason: "the record says seq \(event.seq)")) }
            } catch {
                report.problems.append(.init(seq: seq, reason: "\(error)"))
            }
            return true
        }
        return report
    }
}
