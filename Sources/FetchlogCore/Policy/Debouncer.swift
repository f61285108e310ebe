/// Runs only the last of a burst of calls: a call superseded within `interval` by a newer
/// one returns nil without running (a search typed quickly sends one request).
///
/// The wait is measured on an injected clock, so tests type their keystrokes on a manual
/// clock instead of racing real time.
package actor Debouncer {
    package let interval: Duration
    private let clock: any _Concurrency.Clock<Duration>
    private var generation = 0

    package init(interval: Duration = .milliseconds(200), clock: any _Concurrency.Clock<Duration> = ContinuousClock()) {
        self.interval = interval
        self.clock = clock
    }

    package func submit<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws -> T? {
        generation += 1
        let mine = generation
        try? await clock.sleep(for: interval)
        guard mine == generation else { return nil }
        return try await operation()
    }
}
