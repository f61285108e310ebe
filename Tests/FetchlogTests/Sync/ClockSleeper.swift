import Synchronization
@testable import FetchlogCore

/// Moves the clock to each time the loop asks to sleep until, running `between` first
/// (with the clock still at the pass just made): what happens upstream while sync sleeps.
/// The `stopAfter`th sleep ends the loop, as SIGTERM would.
final class ClockSleeper: SyncSleeper {
    let clock: FixedClock
    let stopAfter: Int
    let between: @Sendable (Int) async throws -> Void
    let asked = Mutex<[Timestamp?]>([])

    init(clock: FixedClock, stopAfter: Int, between: @escaping @Sendable (Int) async throws -> Void = { _ in }) {
        self.clock = clock
        self.stopAfter = stopAfter
        self.between = between
    }

    func sleep(until: Timestamp?, planned _: Set<SyncWriteMark>, clock _: any WallClock) async throws {
        let count = asked.withLock { $0.append(until); return $0.count }
        try await between(count - 1)
        guard count < stopAfter, let until else { throw CancellationError() }
        clock.set(until)
    }
}
