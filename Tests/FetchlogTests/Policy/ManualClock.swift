import Foundation

/// A clock that moves only when a test says so. Sleepers wake, earliest deadline first,
/// when `advance(by:)` passes their deadline — so "five keystrokes 50 ms apart" is the
/// same test on an idle laptop and a loaded CI machine.
final class ManualClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [(deadline: Instant, wake: CheckedContinuation<Void, Never>)] = []

    var now: Instant { lock.withLock { current } }
    var minimumResolution: Duration { .zero }

    /// How many callers are asleep on this clock right now.
    var sleeping: Int { lock.withLock { sleepers.count } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        await withCheckedContinuation { (wake: CheckedContinuation<Void, Never>) in
            let due = lock.withLock { () -> Bool in
                if deadline <= current { return true }
                sleepers.append((deadline, wake))
                return false
            }
            if due { wake.resume() }
        }
    }

    func advance(by duration: Duration) {
        let due = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            current = current.advanced(by: duration)
            let woken = sleepers.filter { $0.deadline <= current }.sorted { $0.deadline < $1.deadline }
            sleepers.removeAll { $0.deadline <= current }
            return woken.map(\.wake)
        }
        for wake in due { wake.resume() }
    }

    /// Waits (in real time, without a deadline of its own) until `count` callers sleep here.
    func waitForSleepers(_ count: Int) async {
        while sleeping < count { await Task.yield() }
    }
}
