/// Why a maintenance action (`StoreMaintenance`) did not run or stopped, each changing
/// nothing unless it says so. The descriptions are whole sentences a user can act on; a
/// client maps the cases to its own exit statuses.
public enum MaintenanceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `event(at:)` on a seq the log does not hold.
    case noEvent(seq: UInt64, lastSeq: UInt64)
    /// A seq past the end of the log (time travel, replay `to:`).
    case seqPastEnd(seq: UInt64, lastSeq: UInt64)
    /// An import into a replica: its events come from its stream only.
    case attachedToStream
    /// The export to merge is refused as a whole (malformed, out of order, another history).
    case importRefused(String)
    /// A file could not be read.
    case unreadable(file: String, reason: String)
    /// `replayDiff` on a store that recorded no views yet.
    case noRecordedViews
    /// `salvage` of a directory without a data file.
    case nothingToSalvage(dataFile: String)
    /// Planning or replaying was cancelled (Ctrl-C): nothing was changed.
    case cancelled(String)
    /// The rewrite was refused (the store open elsewhere, no store, no room).
    case rewriteRefused(String)

    /// What happened and what to do, in one sentence.
    public var description: String {
        switch self {
        case .noEvent(let seq, let last):
            last == 0 ? "no event \(seq): the log is empty" : "no event \(seq): the log holds 1…\(last)"
        case .seqPastEnd(let seq, let last): "seq \(seq) is past the end of the log (the last is \(last))"
        case .attachedToStream:
            "this store is attached to a stream: its events come from the stream only. Import into the store that seeds the stream before `replicate init`, or into a store of its own"
        case .importRefused(let reason): reason
        case .unreadable(let file, let reason): "cannot read \(file): \(reason)"
        case .noRecordedViews:
            "no views are recorded in this store yet: they are saved with each checkpoint (the shell saves one when it ends); run a build's shell once, then \(FrontEndTerm.replayDiff) with the next build"
        case .nothingToSalvage(let dataFile): "\(dataFile) does not exist: there is nothing to salvage"
        case .cancelled(let reason): reason
        case .rewriteRefused(let reason): reason
        }
    }
}
