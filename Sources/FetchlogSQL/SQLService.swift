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
    private let store: Store
    private let stop = Mutex<(@Sendable () -> Void)?>(nil)

    init(store: Store) { self.store = store }

    /// The store's service (one per store).
    package static func of(_ store: Store) -> SQLService {
        store.attachments.value("sql") { SQLService(store: store) }
    }

    /// Runs `body` with the engine on the service's queue; a cancelled task interrupts it.
    package func run<T: Sendable>(_ body: @escaping @Sendable (SQLEngine) throws -> T) async throws -> T {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                queue.async { [self] in
                    do {
                        let engine = try self.engine ?? self.makeEngine()
                        self.engine = engine
                        stop.withLock { $0 = engine.interrupter }
                        defer { stop.withLock { $0 = nil } }
                        continuation.resume(returning: try body(engine))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            stop.withLock { $0?() }
        }
    }

    private func makeEngine() throws -> SQLEngine {
        let log = store.log
        return try SQLEngine { seq in
            var rows: [JSONValue] = []
            try log.scan(from: 1, batchSize: 256) { event in
                guard event.seq <= seq else { return false }
                rows.append(EventSummary.record(of: event))
                return true
            }
            return rows
        }
    }
}
