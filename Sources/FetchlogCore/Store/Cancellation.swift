/// Thrown by `Store.replay` / `Store.fullReplay` when cancelled (Ctrl-C during `replay`,
/// `diff`, `at`, an export at a past seq): the fold stopped partway. A replay only reads,
/// so nothing in the log changed.
package struct ReplayCancelled: Error, CustomStringConvertible, Sendable, Equatable {
    /// The event the replay had reached.
    package let seq: UInt64
    /// The log's last seq at that moment.
    package let last: UInt64

    /// A replay stopped at `seq` of `last`.
    package init(seq: UInt64, last: UInt64) {
        self.seq = seq
        self.last = last
    }

    /// Says where the replay stopped and that nothing was written.
    package var description: String { "cancelled: the replay stopped at seq \(seq) of \(last); nothing was written" }
}

/// Thrown by `EventLog.exportNDJSON` when cancelled: what was written so far is a
/// complete prefix of the log (whole lines, seqs `from`…`lastWritten`).
package struct ExportCancelled: Error, CustomStringConvertible, Sendable, Equatable {
    /// The last event written, or nil if none was.
    package let lastWritten: UInt64?

    /// An export that stopped after `lastWritten` (nil: before any event).
    package init(lastWritten: UInt64?) { self.lastWritten = lastWritten }

    /// Says how far the export got, so the user knows what the file holds.
    package var description: String {
        guard let lastWritten else { return "cancelled: the export stopped before writing any event" }
        return "cancelled: the export stopped after seq \(lastWritten); what was written holds whole events up to it"
    }
}
