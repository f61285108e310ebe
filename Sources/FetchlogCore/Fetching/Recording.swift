import Foundation

/// Where a fetch's events go.
package enum Recording: Sendable {
    /// The durable log (the default).
    case durable
    /// This session's memory only: for data outside a source's durable window (items past
    /// the first 1,000 of a long list, say). Gone at restart by design.
    case session(SessionLog)
}

/// Events of this session that are not written to the log. Their seq is 0.
///
/// `@unchecked Sendable`: events and observers are guarded by `lock`; observers are called outside it.
package final class SessionLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Event] = []
    private var onAppend: [@Sendable () -> Void] = []

    package init() {}

    package var events: [Event] { lock.withLock { stored } }

    func append(_ event: Event) {
        var event = event
        event.seq = 0
        let observers = lock.withLock { () -> [@Sendable () -> Void] in
            stored.append(event)
            return onAppend
        }
        for observer in observers { observer() }
    }

    /// Called after every append (the store re-folds its overlay).
    package func observe(_ body: @escaping @Sendable () -> Void) { lock.withLock { onAppend.append(body) } }
}

/// One task per resource being fetched; later callers share it.
///
/// `@unchecked Sendable`: the task table is guarded by `lock`.
final class InFlight: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [Resource: Task<FetchReport, any Error>] = [:]

    /// The running task for `resource`, or a new one from `make`. `shared` is true when
    /// an existing task was returned.
    func task(for resource: Resource, make: () -> Task<FetchReport, any Error>) -> (Task<FetchReport, any Error>, shared: Bool) {
        lock.withLock {
            if let running = tasks[resource] { return (running, true) }
            let task = make()
            tasks[resource] = task
            return (task, false)
        }
    }

    func finish(_ resource: Resource) { _ = lock.withLock { tasks.removeValue(forKey: resource) } }
}
