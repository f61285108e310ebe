import Dispatch
import FetchlogCore
import Synchronization

/// A store's SQL engines, each on a thread of its own: a query runs off the caller's task
/// (it may take seconds; it never holds a cooperative thread), cancelling the calling task
/// interrupts it, and a long query does not hold up the others — up to `width` run at once,
/// each on its own connection (issue 44: a `SELECT 1` waited 8.6 s behind a slow query).
///
/// An engine is made on first use of its lane, so a second connection (and the tables it
/// builds) exists only once two queries have run at the same time; a call takes the
/// lowest free lane, so one query after another always finds the same warm engine.
package final class SQLService: Sendable {
    /// One engine and the queue it is used on.
    private final class Lane: @unchecked Sendable {
        let queue: DispatchQueue
        /// Made on the queue, used only there.
        var engine: SQLEngine?
        init(_ index: Int) { queue = DispatchQueue(label: "fetchlog.sql.\(index)") }
    }

    private let lanes: [Lane]
    private let make: @Sendable () throws -> SQLEngine
    private let free: Mutex<(idle: [Int], waiting: [CheckedContinuation<Int, Never>])>

    /// How many queries a store's service runs at once by default.
    package static let defaultWidth = 3

    /// A service whose engines `make` makes, each on first use of its lane.
    package init(width: Int = 1, make: @escaping @Sendable () throws -> SQLEngine) {
        lanes = (0 ..< max(1, width)).map(Lane.init)
        free = Mutex((Array(lanes.indices), []))
        self.make = make
    }

    /// The store's service (one per store): its engines build the tables of the store's states.
    package static func of(_ store: Store) -> SQLService {
        // A store that asks SQL records its saved views with its checkpoints.
        SavedViewRecording.installed
        return store.attachments.value("sql") {
            SQLService(width: defaultWidth) { [weak store] in try SQLEngine { seq in try store?.eventSummaries(upTo: seq) ?? [] } }
        }
    }

    /// Runs `body` with an engine on its queue; a cancelled task interrupts it, whenever the
    /// cancel comes: before the query starts (it then never runs) or during it.
    package func run<T: Sendable>(_ body: @escaping @Sendable (SQLEngine) throws -> T) async throws -> T {
        let call = Call()
        let index = await acquire()
        defer { release(index) }
        let lane = lanes[index]
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                lane.queue.async { [make] in
                    do {
                        let engine = try lane.engine ?? make()
                        lane.engine = engine
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

    /// The lowest free lane, waiting (first come, first served) while all are busy.
    private func acquire() async -> Int {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            let taken: Int? = free.withLock { state in
                guard !state.idle.isEmpty else {
                    state.waiting.append(continuation)
                    return nil
                }
                return state.idle.removeFirst()
            }
            if let taken { continuation.resume(returning: taken) }
        }
    }

    private func release(_ index: Int) {
        let next: CheckedContinuation<Int, Never>? = free.withLock { state in
            if !state.waiting.isEmpty { return state.waiting.removeFirst() }
            state.idle.append(index)
            state.idle.sort()
            return nil
        }
        next?.resume(returning: index)
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
