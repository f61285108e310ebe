/// Offline writes are events (issue 26): intents of the manifest source they change, so
/// they replay, survive restarts and replicate like every other choice a user makes.
///
/// - `write.mutation` `{"store":ID,"op":"create|update|replace|delete","resource":R,"key":K|null,"fields":{…}}`:
///   the user's change; its seq is its id. A create has no key: until the server names one
///   the item's key is `local:SEQ`, and later mutations may name it so.
/// - `write.sending` `{"mutation":SEQ,"attempt":N,"method":M,"path":P,"idempotencyKey":K,"ifMatch":E|null}`:
///   recorded (durably) before the request leaves, so a crash between the two leaves a
///   mutation "in doubt", sent again with the same `Idempotency-Key`.
/// - `write.answered` `{"mutation":SEQ,"outcome":O,"status":S|null,"message":T|null,"etag":E|null,"item":{…}|null,"key":K|null,"current":{…}|null,"currentEtag":E|null,"retryAfter":SECONDS|null[,"inDoubt":true]}`:
///   O one of `confirmed` (2xx: `item` the server's, `key` a created item's), `conflict`
///   (412: `current` the server's version), `rejected` (409, 422, other 4xx), `paused`
///   (401, 403) and `failed` (5xx, 429, timeouts, resets: sent again by the next push;
///   automatic sending waits for `retryAfter`, else a backoff doubling from a second).
///   `inDoubt` (a failure with no whole answer whose request may have reached the server: a
///   timeout, a reset): what the server did is unknown, as for a `write.sending` with no
///   answer — unattended pushes send it again only when that is safe (`PushMode`).
/// - `write.retry` `{"mutation":SEQ,"force":B}`: send again; after a definitive answer a new
///   round with a new key (`STORE:SEQ-rRETRYSEQ`), `force` sends over a conflict's version.
/// - `write.discarded` `{"mutation":SEQ}`: the change is dropped, never sent again.
package enum WriteEvents {
    package static let mutation = "write.mutation"
    package static let sending = "write.sending"
    package static let answered = "write.answered"
    package static let retry = "write.retry"
    package static let discarded = "write.discarded"
    package static let labels: Set<String> = [mutation, sending, answered, retry, discarded]
}

/// How a mutation stands.
public enum MutationState: String, Sendable, Equatable, CaseIterable {
    /// Waiting to be sent (never sent, or asked to be sent again).
    case queued
    /// Sent, no answer recorded: the answer may have been lost. In doubt once its sender is
    /// gone: `push` sends it again with the same key; `sync` only when that is safe (`PushMode`).
    case sending
    /// The last attempt failed on the way (5xx, 429, a timeout, a reset): the next push sends it again.
    case failed
    /// 412: the server's version changed since; `retry --force` or `discard`.
    case conflict
    /// 409, 422 or another 4xx: the server refused it (its message kept); fix and retry, or discard.
    case rejected
    /// 401 or 403: the credentials need fixing; the next push sends it again.
    case paused
}
