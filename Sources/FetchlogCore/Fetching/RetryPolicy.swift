/// How often and how long to wait between attempts. Every attempt is an event.
public struct RetryPolicy: Sendable {
    /// Retries after the first attempt (3: at most 4 attempts).
    public var retries = 3
    /// The first backoff ceiling; it doubles each retry (full jitter: a uniform draw
    /// between 0 and the ceiling).
    public var baseDelay: Duration = .milliseconds(250)
    /// The ceiling the doubling backoff stops growing at.
    public var maxDelay: Duration = .seconds(8)
    /// Retry-After is honoured up to this; a longer wait is cut to it.
    public var retryAfterCap: Duration = .seconds(30)

    /// Three retries, backoff from 250 ms up to 8 s, `Retry-After` honoured up to 30 s.
    public init() {}

    /// Statuses worth another try: 5xx, 408 and 429. Other 4xx mean the request itself
    /// is wrong and would fail again.
    package static func isRetryable(status: UInt16) -> Bool {
        status >= 500 || status == 408 || status == 429
    }

    /// The wait before retry number `retry` (1-based), given the server's Retry-After.
    package func delay(beforeRetry retry: Int, retryAfter: Duration?, random: inout some RandomNumberGenerator) -> Duration {
        let ceiling = min(maxDelay, baseDelay * (1 << min(retry - 1, 20)))
        let ceilingNanos = max(Int64(0), ceiling.components.seconds * 1_000_000_000 + ceiling.components.attoseconds / 1_000_000_000)
        let jitter = Duration.nanoseconds(ceilingNanos == 0 ? 0 : Int64.random(in: 0 ... ceilingNanos, using: &random))
        guard let retryAfter else { return jitter }
        return max(jitter, min(retryAfter, retryAfterCap))
    }
}
