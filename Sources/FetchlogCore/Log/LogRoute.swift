import FetchlogLMDB
import Foundation
import Synchronization

/// Where a log's appends go when the log is not the one total order: a store attached to a
/// replicated stream publishes each event (the stream's ack commits it) and takes it back
/// in the stream's order, so its local seq is the stream's (FetchlogReplication's
/// `StreamAppends`). The route is the only change: the store (for its intents and its
/// fetches' attempts) calls `EventLog.append` as ever and gets the event's seq once it is
/// in this log (read-your-writes).
package protocol AppendRoute: AnyObject, Sendable {
    /// Commits `events` and returns once each is in `log`, with the seqs from the first to
    /// the last of them there (events of other writers may sit between them).
    func append(_ events: [Event], to log: EventLog) async throws -> Range<UInt64>
}

/// The route a log's appends take (none: its own writer).
final class AppendRouting: Sendable {
    private let current = Mutex<(any AppendRoute)?>(nil)
    var route: (any AppendRoute)? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}

extension EventLog {
    /// Sends every later `append` through `route` (nil: back to this log's own writer).
    package func routeAppends(through route: (any AppendRoute)?) { routing.route = route }

    /// Whether appends go through a route (a replicated store).
    package var isRouted: Bool { routing.route != nil }

    /// The route appends go through, nil for this log's own writer.
    package var appendRoute: (any AppendRoute)? { routing.route }

    /// Applies events that already have their seqs in the one total order (a stream's): in
    /// one transaction, events this log already holds (another process of this store
    /// applied them first) are skipped, the rest appended at exactly their seqs. A seq past
    /// the next one is refused (nothing is applied): the log stays gap-free. Returns how
    /// many were appended. This store's own events leave the outbox in the same
    /// transaction. Blocking; never from the writer thread.
    package func applyOrdered(_ events: [Event]) throws -> Int {
        try validate(events)
        let store = metadata.storeID
        let range = try writeExclusive { txn, databases, tally in
            let last = try txn.withCursor(databases.events) { cursor in try cursor.get(.last).flatMap { SequenceKey.decode($0.key) } } ?? 0
            var next = last + 1
            for event in events where event.seq >= next {
                guard event.seq == next else { throw OrderedApplyError(expected: next, got: event.seq) }
                tally.bytes += try databases.append(event, in: &txn)
                // This store's own event back from the stream: it leaves the outbox now.
                if let origin = event.origin, origin.store == store { try self.outboxRemove(origin.seq, in: &txn) }
                tally.events += 1
                next += 1
            }
            return last + 1 ..< next
        }
        return range.count
    }
}

/// An ordered apply found a gap: the log ends before `expected` and the next event is `got`.
package struct OrderedApplyError: Error, CustomStringConvertible, Equatable {
    package let expected: UInt64
    package let got: UInt64
    package var description: String { "the log ends at seq \(expected - 1) and the next event to apply is seq \(got): a gap" }
}
