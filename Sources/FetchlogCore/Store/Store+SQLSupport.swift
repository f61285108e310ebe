/// What the SQL layer (`FetchlogSQL`, issue 35) reads of the log, through the store layer:
/// the `events` table's rows, and the stamp its read model is checked against.
extension Store {
    /// Each event's `log tail` summary (`EventSummary`), seq 1 through `seq`.
    package func eventSummaries(upTo seq: UInt64) throws -> [JSONValue] {
        try Self.eventSummaries(of: log, upTo: seq)
    }

    /// `log`'s events up to `seq` as the `events` table's rows.
    static func eventSummaries(of log: EventLog, upTo seq: UInt64) throws -> [JSONValue] {
        var rows: [JSONValue] = []
        try log.scan(from: 1, batchSize: 256) { event in
            guard event.seq <= seq else { return false }
            rows.append(EventSummary.record(of: event))
            return true
        }
        return rows
    }
}

extension StoreMaintenance {
    /// The log's last seq (or `seq`) and the CRC-32C of that record's stored bytes: one read,
    /// enough to tell a derived file made for this log at this point from one made for
    /// another (a log rewritten under the same seq has another last record).
    package func recordStamp(at seq: UInt64? = nil) throws -> (seq: UInt64, checksum: UInt32) {
        let seq = try seq ?? log.lastSeq()
        let record = try seq == 0 ? [] : log.rawRecord(at: seq) ?? []
        return (seq, record.withUnsafeBytes { EnvelopeCodec.checksum(of: $0) })
    }
}

extension StoreMaintenance {
    /// Per source, the seq of its last event up to `seq`: one pass over the records' headers
    /// (no body read). What the SQL read model keys its tables by, so a table whose sources'
    /// events did not move is copied from the last read model, not built again.
    package func lastSeqBySource(upTo seq: UInt64) throws -> [String: UInt64] {
        var last: [String: UInt64] = [:]
        try log.scanStored(batchSize: 1024, lookingUpBodies: false) { stored in
            guard stored.seq <= seq else { return false }
            last[stored.source] = stored.seq
            return true
        }
        return last
    }
}
