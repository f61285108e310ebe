import Foundation

/// What a sync reports as it goes.
package enum SyncEvent: Sendable {
    case started(at: Timestamp, due: Int, of: Int)
    case attempt(FetchReport)
    case outcome(SyncRow)
    case passed(SyncPass)
    case sleeping(until: Timestamp?)
}

/// How `run` waits for the next due time: the real one sleeps; a test's advances its clock.
package protocol SyncSleeper: Sendable {
    /// Returns once `clock` reads `until` or later (nil: never; only cancellation ends it).
    /// Throws `CancellationError` when the task is cancelled.
    func sleep(until: Timestamp?, clock: any WallClock) async throws
}

/// Sleeps on the task (cancelled at once by SIGINT or SIGTERM): one wake-up per due time.
package struct TaskSleeper: SyncSleeper {
    package init() {}

    package func sleep(until: Timestamp?, clock: any WallClock) async throws {
        guard let until else {
            // Nothing falls due by age: only a signal ends the wait.
            while true { try await Task.sleep(for: .seconds(86_400)) }
        }
        let wait = until.milliseconds - clock.now().milliseconds
        if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }
        try Task.checkCancellation()
    }
}
