import Foundation
import Synchronization

/// One attempt of a fetch as the fetcher hands it over: the event to record and, for a
/// body that decoded, the document (so the fold does not decode it again).
package struct FetchOutcome: Sendable {
    /// The attempt (seq 0: the recorder gives it its place).
    package var event: Event
    /// The body as the source decoded it on arrival; nil unless the attempt fetched one.
    package var decoded: (any SourceDocument)?
}

/// Where a fetch's attempts go: the store's side of the fetcher, which records nothing
/// itself. The fetcher hands each attempt's outcome to `record` as the attempt ends —
/// before any wait for a retry — so the attempts are recorded in order and a cancelled
/// fetch leaves the ones before it recorded; `record` says where the event went.
package struct FetchRecorder: Sendable {
    /// True for the durable log: the seq says where the event is, and 0 means it waits in a
    /// replicated store's outbox (pending sync) — unless the store kept that one attempt for
    /// this session after all (`RecordedPlace.sessionOnly`: a `no-store` answer). False for
    /// this session only: always 0.
    package let isDurable: Bool
    package let record: @Sendable (FetchOutcome) async throws -> RecordedPlace

    package init(isDurable: Bool, record: @escaping @Sendable (FetchOutcome) async throws -> RecordedPlace) {
        self.isDurable = isDurable
        self.record = record
    }
}

/// Where a recorder put one attempt's event.
package struct RecordedPlace: Sendable, Equatable {
    /// The event's seq in the log; 0 for one kept for this session, or waiting in a
    /// replicated store's outbox.
    package var seq: UInt64
    /// Why the event was kept for this session only; nil when it went to the log (or outbox).
    package var sessionOnly: SessionOnlyReason?

    package init(seq: UInt64, sessionOnly: SessionOnlyReason? = nil) {
        self.seq = seq
        self.sessionOnly = sessionOnly
    }
}

/// Why an attempt was kept in this session's memory and not written to the log.
package enum SessionOnlyReason: Sendable, Equatable {
    /// A page past its list's durable window (`fetchlog.durable_items`).
    case durableWindow
    /// The upstream said `Cache-Control: no-store` (RFC 9111 §5.2.2.5) and the resource does
    /// not opt in to keeping such answers (`fetchlog.keep_no_store`).
    case noStore
}

/// Events of this session that are not written to the log. Their seq is 0. Observers are
/// called outside the lock.
package final class SessionLog: Sendable {
    private struct State {
        var stored: [Event] = []
        var onAppend: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    package init() {}

    package var events: [Event] { state.withLock { $0.stored } }

    /// Keeps `event` for this session. `replacing`: the resource's earlier events go (a
    /// new body supersedes them), so a resource asked again and again — a `no-store`
    /// answer in a long sync — holds one body in memory, not one per request.
    func append(_ event: Event, replacing: Bool = false) {
        var event = event
        event.seq = 0
        let observers = state.withLock { state -> [@Sendable () -> Void] in
            if replacing { state.stored.removeAll { $0.source == event.source && $0.label == event.label } }
            state.stored.append(event)
            return state.onAppend
        }
        for observer in observers { observer() }
    }

    /// Drops the events of one resource (a durable answer superseded them).
    func remove(source: String, label: String) {
        let (removed, observers) = state.withLock { state -> (Bool, [@Sendable () -> Void]) in
            let before = state.stored.count
            state.stored.removeAll { $0.source == source && $0.label == label }
            return (state.stored.count != before, state.onAppend)
        }
        if removed { for observer in observers { observer() } }
    }

    /// Called after every append or removal (the store re-folds its overlay).
    package func observe(_ body: @escaping @Sendable () -> Void) { state.withLock { $0.onAppend.append(body) } }
}

/// One task per resource being fetched; later callers share it.
final class InFlight: Sendable {
    private let tasks = Mutex<[Resource: Task<FetchReport, any Error>]>([:])

    /// The running task for `resource`, or a new one from `make`. `shared` is true when
    /// an existing task was returned.
    func task(for resource: Resource, make: () -> Task<FetchReport, any Error>) -> (Task<FetchReport, any Error>, shared: Bool) {
        tasks.withLock { tasks in
            if let running = tasks[resource] { return (running, true) }
            let task = make()
            tasks[resource] = task
            return (task, false)
        }
    }

    func finish(_ resource: Resource) { _ = tasks.withLock { $0.removeValue(forKey: resource) } }
}
