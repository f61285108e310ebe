import Foundation

/// Replaying the log from seq 1 — the check that every view is a pure function of it —
/// and comparing this build's reading with the views an earlier build recorded.
extension StoreMaintenance {
    /// Every view rebuilt from the log alone, up to `seq` (the end when nil), with the
    /// events applied per source. A seq past the end is `MaintenanceError.seqPastEnd`.
    public func replay(to seq: UInt64? = nil, progress: (_ seq: UInt64, _ last: UInt64) -> Void = { _, _ in }) throws -> (state: LogState, events: [String: Int]) {
        if let seq { try checkSeq(seq) }
        return try Store.replay(log, sources: sources, to: seq, progress: progress)
    }

    /// This build's views beside those recorded with the last checkpoint;
    /// `MaintenanceError.noRecordedViews` when none were recorded yet.
    package func replayDiff(progress: (UInt64, UInt64) -> Void = { _, _ in }) throws -> ReplayDiff {
        guard let result = try Store.replayDiff(log, sources: sources, progress: progress) else { throw MaintenanceError.noRecordedViews }
        return result
    }
}
