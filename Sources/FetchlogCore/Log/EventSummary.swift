/// One event in a line: what `log tail --format json` prints for it, and what the SQL table
/// `events` holds as its row (issue 35) — one definition for both, so they cannot drift.
package enum EventSummary {
    /// The members, in this order: `seq`, `recordedAt`, `kind`, `source`, `label`, `outcome`,
    /// `status`, `bodyBytes`, `method`, `url`.
    package static let memberNames = ["seq", "recordedAt", "kind", "source", "label", "outcome", "status", "bodyBytes", "method", "url"]

    /// The event's summary object (members in `memberNames` order).
    package static func record(of event: Event) -> JSONValue {
        .object([
            ("seq", .number(Int(event.seq))), ("recordedAt", .string(event.recordedAt.iso8601)), ("kind", .string(event.kind.name)),
            ("source", .string(event.source)), ("label", .string(event.label)), ("outcome", .string(outcome(of: event))),
            ("status", event.response.map { .number(Int($0.status)) } ?? .null),
            ("bodyBytes", event.body.map { .number($0.count) } ?? .null),
            ("method", event.request.map { .string($0.method) } ?? .null), ("url", event.request.map { .string($0.url) } ?? .null),
        ])
    }

    /// `200`, `304`, `http 503`, a failure's class (`timeout`), or `-` for an intent.
    package static func outcome(of event: Event) -> String {
        if let failure = event.failure {
            if failure.failureClass == .httpStatus, let status = event.response?.status { return "http \(status)" }
            return failure.failureClass.name
        }
        if let status = event.response?.status { return String(status) }
        return "-"
    }
}
