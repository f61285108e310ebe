import Foundation
import Synchronization

/// Where a fetch's events go.
public enum Recording: Sendable {
    /// The durable log (the default).
    case durable
    /// This session's memory only: for data outside a source's durable window (items past
    /// the first 1,000 of a long list, say). Gone at restart by design.
    case session(SessionLog)
}

/// Events of this session that are not written to the log. Their seq is 0. Observers are
/// called outside the lock.
public final class SessionLog: Sendable {
    private struct State {
        var stored: [Event] = []
        var onAppend: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    public init() {}

    public var events: [Event] { state.withLock { $0.stored } }

    func append(_ event: Event) {
        var event = event
        event.seq = 0
        let observers = state.withLock { state -> [@Sendable () -> Void] in
            state.stored.append(event)
            return state.onAppend
        }
        for observer in observers { observer() }
    }

    /// Called after every append (the store re-folds its overlay).
    public func observe(_ body: @escaping @Sendable () -> Void) { state.withLock { $0.onAppend.append(body) } }
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
