/// Every resource the log knows, with how current its held body is at one moment: what
/// `fetchlog status` and the shell's `status` show. One builder, so the two front ends
/// cannot disagree about a row.
public struct FreshnessReport: Sendable {
    public struct Row: Sendable {
        public let key: ResourceKey
        public let freshness: Freshness
        public var lastSuccess: Timestamp? { freshness.status.lastSuccess }
        /// The last error, only while the resource is failing (an old, recovered error is not news).
        public var currentError: String? { freshness.isFailing ? freshness.status.lastError : nil }

        /// "stale (failing)", "fresh".
        public var levelText: String { freshness.level.rawValue + (freshness.isFailing ? " (failing)" : "") }

        public var json: JSONValue {
            .object([
                ("resource", .string(key.description)), ("source", .string(key.source)), ("path", .string(key.path)),
                ("freshness", .string(freshness.level.rawValue)), ("failing", .bool(freshness.isFailing)),
                ("lastUpdated", .optional(freshness.lastUpdated?.iso8601)), ("validUntil", .optional(freshness.validUntil?.iso8601)),
                ("lastSuccess", .optional(lastSuccess?.iso8601)), ("lastError", .optional(freshness.status.lastError)),
            ])
        }
    }

    public let now: Timestamp
    /// In `StatusView` order (by source, then path).
    public let rows: [Row]

    public init(state: LogState, policy: FreshnessPolicy, now: Timestamp) {
        self.now = now
        rows = StatusView(state: state).rows.map { Row(key: $0.key, freshness: policy.evaluate($0.key, in: state, now: now)) }
    }

    /// "2h 30m ago", or "never".
    public func age(of timestamp: Timestamp?) -> String {
        timestamp.map { AgeText.describe(milliseconds: now.milliseconds - $0.milliseconds) + " ago" } ?? "never"
    }

    public var json: JSONValue { .object([("now", .string(now.iso8601)), ("resources", .array(rows.map(\.json)))]) }
}
