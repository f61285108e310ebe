import Foundation
import Synchronization

/// Thrown by `Fetcher.fetch` (and so by the paged fetches built on it) when the calling
/// task is cancelled, e.g. by Ctrl-C: the request in flight is abandoned, no retry is
/// made, and the abandoned attempt is not recorded — nothing came back from the upstream,
/// the user stopped it, so it is not an upstream failure. Everything recorded before the
/// cancellation stays in the log (appends are never interrupted halfway).
///
/// It says what was recorded: `completed` holds the fetches that finished within the
/// enclosing `FetchLedger.collecting` scope (the earlier pages of a paged fetch, the
/// earlier resources of a command), `interrupted` the fetch that was stopped, with the
/// attempts it had already recorded (failed attempts before a retry).
public struct FetchCancelled: Error, CustomStringConvertible, Sendable {
    /// Fetches that ended before the cancellation, every attempt of them recorded.
    public var completed: [FetchReport]
    /// The fetch that was stopped (nil when the cancellation came between fetches).
    public var interrupted: FetchReport?
    /// Whether a request was on the wire when the cancellation came (rather than a retry
    /// wait, or the gap between two fetches).
    public var requestInFlight: Bool

    /// Records what a cancelled fetch had done, for the caller to report.
    package init(completed: [FetchReport], interrupted: FetchReport?, requestInFlight: Bool) {
        self.completed = completed
        self.interrupted = interrupted
        self.requestInFlight = requestInFlight
    }

    /// Every attempt that was recorded, in order.
    package var recordedAttempts: [FetchReport.Attempt] {
        completed.flatMap(\.attempts) + (interrupted?.attempts ?? [])
    }

    /// `cancelled: 2 events were recorded (seq 14…15); the request in flight was not recorded`
    public var description: String {
        let attempts = recordedAttempts
        let durable = attempts.map(\.seq).filter { $0 > 0 }
        let sessionOnly = attempts.count - durable.count
        var parts: [String] = []
        if attempts.isEmpty {
            parts.append("no event was recorded")
        } else {
            var text = "\(attempts.count) event\(attempts.count == 1 ? " was" : "s were") recorded"
            if let first = durable.min(), let last = durable.max() {
                text += first == last ? " (seq \(first))" : " (seq \(first)…\(last))"
            }
            // Events of the durable window's far side go to the session log, seq 0.
            if sessionOnly > 0 { text += durable.isEmpty ? " (this session only)" : ", \(sessionOnly) for this session only" }
            parts.append(text)
        }
        parts.append(requestInFlight ? "the request in flight was not recorded" : "no request was in flight")
        return "cancelled: " + parts.joined(separator: "; ")
    }
}

/// Collects the reports of the fetches that finish in a task (and the tasks it starts),
/// so that a cancellation can say everything that was recorded before it.
package final class FetchLedger: Sendable {
    private let stored = Mutex<[FetchReport]>([])

    package init() {}

    package var reports: [FetchReport] { stored.withLock { $0 } }

    func add(_ report: FetchReport) { stored.withLock { $0.append(report) } }

    /// The ledger of the running task, if any.
    @TaskLocal package static var current: FetchLedger?

    /// Runs `body` with a fresh ledger: every fetch that finishes inside it is noted, and a
    /// `FetchCancelled` thrown inside it lists them in `completed`.
    package static func collecting<T>(_ body: () async throws -> T) async rethrows -> T {
        try await $current.withValue(FetchLedger()) { try await body() }
    }
}

/// How many callers wait on each in-flight fetch: a cancelled caller stops the shared
/// request only when no other caller is left waiting for its answer.
final class FetchWaiters: Sendable {
    private let counts = Mutex<[Resource: Int]>([:])

    /// One caller's place in the count; leaving twice counts once (the cancellation
    /// handler and the end of the call may both leave).
    final class Ticket: Sendable {
        private let waiters: FetchWaiters
        private let resource: Resource
        private let left = Mutex(false)

        fileprivate init(_ waiters: FetchWaiters, _ resource: Resource) {
            self.waiters = waiters
            self.resource = resource
        }

        /// How many callers still wait after this one left; nil if it had left already.
        @discardableResult
        func leave() -> Int? {
            // The flag is claimed first, so only one leaving takes a count away.
            let first = left.withLock { left in
                defer { left = true }
                return !left
            }
            guard first else { return nil }
            return waiters.counts.withLock { counts in
                let remaining = max(0, (counts[resource] ?? 0) - 1)
                counts[resource] = remaining == 0 ? nil : remaining
                return remaining
            }
        }
    }

    /// How many callers wait on the fetch of `resource` now.
    func count(for resource: Resource) -> Int { counts.withLock { $0[resource] ?? 0 } }

    func join(_ resource: Resource) -> Ticket {
        counts.withLock { $0[resource, default: 0] += 1 }
        return Ticket(self, resource)
    }
}
