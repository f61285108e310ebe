import Foundation

/// `Cache-Control: no-store` (RFC 9111 §5.2.2.5) as the store applies it to a fetch: "a
/// cache MUST NOT intentionally store any part of either the immediate request or
/// response". The durable log is this client's cache, so a `no-store` answer is kept in
/// this session's memory only (seq 0, as a page past a list's durable window), unless the
/// resource opts in with `fetchlog.keep_no_store` — the user's own call for data that is
/// theirs to keep.
///
/// What the log keeps instead is a marker with no part of the request or response in it
/// (no status, no header, no body; only the resource's label, which the manifest already
/// names, and the time of asking): an intent `not-stored`. Without it nothing durable
/// would say the resource was just asked, so a sync would find it missing, due at once, and
/// ask again on every pass; with it the reducer keeps the time (`ResourceStatus.notStoredAt`)
/// and `SyncPlan` waits the resource's lifetime (its `ttl` or its source's), never less
/// than `SyncTiming.minimumInterval` — a pure function of the log and the clock, so replay
/// plans the same.
package enum NoStore {
    /// The marker's intent label.
    package static let markerLabel = "not-stored"

    /// Whether RFC 9111 forbids keeping this answer: a GET's successful answer saying
    /// `no-store` — unless `must-understand` accompanies it with a status this cache
    /// understands, which §5.2.2.3 says overrides `no-store` (as `HTTPCachePolicy.isStorable`
    /// reads it). Only a success is kept for the session: a failure's record is what the
    /// backoff and `Retry-After` replay from, and it is never reused as a response.
    package static func forbidsStoring(_ event: Event) -> Bool {
        guard event.kind == .fetched, let response = event.response, event.request?.method.uppercased() ?? "GET" == "GET" else { return false }
        let control = CacheControl(response.headers)
        guard control.noStore else { return false }
        return !(control.mustUnderstand && HTTPCachePolicy.understoodStatusCodes.contains(Int(response.status)))
    }

    /// The durable marker of `event`, kept for the session only: its source, its time,
    /// and the label of the resource asked.
    package static func marker(of event: Event) -> Event {
        let body: JSONValue = .object([("path", .string(event.label))])
        return Event(recordedAt: event.recordedAt, kind: .intent, source: event.source, label: markerLabel, body: Array(body.canonicalText().utf8))
    }
}
