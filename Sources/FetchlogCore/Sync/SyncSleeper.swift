import Foundation

/// How `run` waits for the next due time: the real one sleeps; a test's advances its clock.
package protocol SyncSleeper: Sendable {
    /// Returns once `clock` reads `until` or later (nil: never; only cancellation ends it),
    /// or earlier when a write the plan did not hold (`planned`) is recorded. Throws
    /// `CancellationError` when the task is cancelled.
    func sleep(until: Timestamp?, planned: Set<SyncWriteMark>, clock: any WallClock) async throws
}

/// Sleeps on the task (cancelled at once by SIGINT or SIGTERM): one wake-up per due time.
///
/// Given the store, it also wakes when a write sync sends is recorded while it sleeps — in
/// this process (the shell, `serve`'s `POST /api/items`, the app), or in another once the
/// store has caught up with it (`Store.followAppends`): such a write is due at once, and
/// waiting for the next resource's lifetime to end could take a day. The wake-up is an
/// observation of the store's snapshots, not a poll.
package struct TaskSleeper: SyncSleeper {
    package let store: Store?

    package init(store: Store? = nil) {
        self.store = store
    }

    /// What ended a sleep.
    package enum Wake: Sendable, Equatable {
        /// The time asked for came.
        case due
        /// A write the plan did not hold was recorded.
        case write
    }

    package func sleep(until: Timestamp?, planned: Set<SyncWriteMark>, clock: any WallClock) async throws {
        _ = try await wake(until: until, planned: planned, clock: clock)
    }

    /// `sleep`, saying what ended it.
    package func wake(until: Timestamp?, planned: Set<SyncWriteMark>, clock: any WallClock) async throws -> Wake {
        guard let store else {
            try await Self.timer(until: until, clock: clock)
            return .due
        }
        let me = store.maintenance.metadata.storeID
        let marks: @Sendable (LogState) -> Set<SyncWriteMark> = { state in Set(SyncPlan.sendable(state, storeID: me).map(SyncWriteMark.init)) }
        let wake = try await withThrowingTaskGroup(of: Wake.self) { group in
            group.addTask {
                try await Self.timer(until: until, clock: clock)
                return .due
            }
            group.addTask {
                // Against what the plan saw, not what the store holds as the sleep begins: a
                // write recorded in between still wakes it.
                for await now in store.observe(marks) where !now.isSubset(of: planned) { return .write }
                // The store closed: only the timer (or a signal) ends the wait.
                try await Self.timer(until: until, clock: clock)
                return .due
            }
            let first = try await group.next() ?? .due
            group.cancelAll()
            return first
        }
        try Task.checkCancellation()
        return wake
    }

    /// Sleeps until `clock` reads `until` (nil: until cancelled).
    static func timer(until: Timestamp?, clock: any WallClock) async throws {
        guard let until else {
            // Nothing falls due by age: only a signal (or a write) ends the wait.
            while true { try await Task.sleep(for: .seconds(86_400)) }
        }
        let wait = until.milliseconds - clock.now().milliseconds
        if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }
        try Task.checkCancellation()
    }
}
