/// Runs only the last of a burst of calls: a call superseded within `interval` by a newer
/// one returns nil without running (a search typed quickly sends one request).
public actor Debouncer {
    public let interval: Duration
    private var generation = 0

    public init(interval: Duration = .milliseconds(200)) {
        self.interval = interval
    }

    public func submit<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws -> T? {
        generation += 1
        let mine = generation
        try? await Task.sleep(for: interval)
        guard mine == generation else { return nil }
        return try await operation()
    }
}
