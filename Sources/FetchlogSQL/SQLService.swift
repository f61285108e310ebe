import Dispatch
import FetchlogCore
import Synchronization

/// A store's SQL engine on a thread of its own: queries run one at a time off the caller's
/// task (a query may take seconds; it never holds a cooperative thread), and cancelling the
/// calling task interrupts the query.
package final class SQLService: @unchecked Sendable {
    private let queue = DispatchQueue(label: "fetchlog.sql")
    /// Made on the queue, used only there.
    private var engine: SQLEngine?
    private let make: @Sendable () throws -> SQLEngine

    /// A service whose engine `make` makes on first use.
    package init(make: @escaping @Sendable () throws -> SQLEngine) { self.make = make }

    /// The store's service (one per store): its engine builds the tables of the store's states.
    package static func of(_ store: Store) -> SQLService {
        // A store that asks SQL records its saved views with its checkpoints.
        SavedViewRecording.installed
        return store.attachments.value("sql") {
            SQLService { [weak store] in try SQLEngine { seq in try store?.eventSummaries(upTo: seq) ?? [] } }
        }
    }

    /// Runs `body` with the engine on the service's queue; a cancelled task interrupts it,
    /// whenever the cancel comes: before the query starts (it then never runs) or during it.
    package func run<T: Sendable>(_ body: @escaping @Sendable (SQLEngine) throws -> T) async throws -> T {
        let call = Call()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                queue.async { [self] in
                    do {
                        let engine = try self.engine ?? self.make()
                        self.engine = engine
                        engine.resetStop()
                        guard call.start(engine.interrupter) else { throw SQLError(.interrupted, "interrupted: the query was stopped") }
                        defer { call.finish() }
                        continuation.resume(returning: try body(engine))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            call.cancel()
        }
    }

    /// One call's cancellation: the stop of the engine running it, once it runs.
    private final class Call: Sendable {
        private let state = Mutex<(cancelled: Bool, stop: (@Sendable () -> Void)?)>((false, nil))
        /// Records `stop`; false when the call was cancelled already.
        func start(_ stop: @escaping @Sendable () -> Void) -> Bool {
            state.withLock { s in
                if s.cancelled { return false }
                s.stop = stop
                return true
            }
        }
        func finish() { state.withLock { $0.stop = nil } }
        func cancel() {
            let stop = state.withLock { s in
                s.cancelled = true
                return s.stop
            }
            stop?()
        }
    }

}
