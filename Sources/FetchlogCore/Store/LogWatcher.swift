import Foundation

/// Runs `tick` every `interval` on a thread of its own until stopped (or until `tick`
/// returns false). Waking does not depend on the cooperative pool, which a busy app — a
/// shell decoding a large page, a test run — can keep saturated for longer than the
/// second within which another process's appends must show up.
///
/// `@unchecked Sendable`: `stopped`, `finished` and `waiter` are guarded by `condition` (an
/// `NSCondition`, not a `Mutex`: the watcher's thread sleeps on it between ticks, and
/// `stop` wakes it); the tick runs on the watcher's own thread.
final class LogWatcher: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false
    private var finished = false
    private var waiter: CheckedContinuation<Void, Never>?
    private let interval: Duration
    private let tick: @Sendable () -> Bool

    init(interval: Duration, tick: @escaping @Sendable () -> Bool) {
        self.interval = interval
        self.tick = tick
    }

    func start() {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        let thread = Thread { [self] in
            while tick() {
                condition.lock()
                if !stopped { _ = condition.wait(until: Date(timeIntervalSinceNow: seconds)) }
                let stop = stopped
                condition.unlock()
                if stop { break }
            }
            finish()
        }
        thread.name = "fetchlog-watch"
        thread.start()
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// Returns when the thread has ended.
    func ended() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            if finished {
                condition.unlock()
                continuation.resume()
            } else {
                waiter = continuation
                condition.unlock()
            }
        }
    }

    private func finish() {
        condition.lock()
        finished = true
        let waiting = waiter
        waiter = nil
        condition.unlock()
        waiting?.resume()
    }
}
