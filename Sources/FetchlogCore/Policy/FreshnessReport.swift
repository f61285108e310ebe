/// Every resource the log knows, with how current its held body is at one moment: what
/// `fetchlog status` and the shell's `status` show. One builder, so the two front ends
/// cannot disagree about a row.
package struct FreshnessReport: Sendable {
    package struct Row: Sendable {
        package let key: ResourceKey
        package let freshness: Freshness
        package var lastSuccess: Timestamp? { freshness.status.lastSuccess }
        /// The last error, only while the resource is failing (an old, recovered error is not news).
        package var currentError: String? { freshness.isFailing ? freshness.status.lastError : nil }

        /// "stale (failing)", "fresh".
        package var levelText: String { freshness.level.rawValue + (freshness.isFailing ? " (failing)" : "") }

        package var json: JSONValue {
            .object([
                ("resource", .string(key.description)), ("source", .string(key.source)), ("path", .string(key.path)),
                ("freshness", .string(freshness.level.rawValue)), ("failing", .bool(freshness.isFailing)),
                ("lastUpdated", .optional(freshness.lastUpdated?.iso8601)), ("validUntil", .optional(freshness.validUntil?.iso8601)),
                ("lastSuccess", .optional(lastSuccess?.iso8601)), ("lastError", .optional(freshness.status.lastError)),
            ])
        }
    }

    package let now: Timestamp
    /// In `StatusView` order (by source, then path).
    package let rows: [Row]

    package init(state: LogState, policy: FreshnessPolicy, now: Timestamp) {
        self.now = now
        rows = StatusView(state: state).rows.map { Row(key: $0.key, freshness: policy.evaluate($0.key, in: state, now: now)) }
    }

    /// "2h 30m ago", or "never".
    package func age(of timestamp: Timestamp?) -> String {
        timestamp.map { AgeText.describe(milliseconds: now.milliseconds - $0.milliseconds) + " ago" } ?? "never"
    }

    package var json: JSONValue { .object([("now", .string(now.iso8601)), ("resources", .array(rows.map(\.json)))]) }
}
