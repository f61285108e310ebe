import Foundation

/// Sending, exactly once (issue 26): in log order per item, each request carrying
/// `Idempotency-Key: STORE:SEQ` (the IETF httpapi draft) and, for an item's update or
/// delete, `If-Match` with the ETag held for it. The attempt is recorded (durably) before
/// the request leaves and the answer after it came back, so a crash in between leaves the
/// mutation in doubt, and the next push sends it again with the same key: the server
/// answers a repeated key with the answer it stored, applying nothing twice.
///
/// The sending itself is `WritePush`'s, a client of the store: it reads the state, records
/// attempts and answers as intents through the store, and sends through the one gateway
/// (`WriteChannel`). These members are the store's door to it.
extension Store {
    /// Sends every mutation this store made that can be sent now, and records each answer.
    /// Only the store that made a mutation sends it (a replica holds it, shown pending).
    /// `source` and `resource`: only the mutations of that source (and resource).
    /// `width`: how many mutations of different items may be in flight at once (an item's
    /// always go one after another, in log order). One, the default, sends in log order
    /// across items too, so the server sees them — and numbers created items — in that order.
    ///
    /// An answer is no error: a conflict, a rejection or a failure is in the report, and the
    /// change waits. Throws ``WriteError`` when the store is offline (`fetching.offline`:
    /// nothing is sent), and `StoreUsageError.noFetcher` when it was opened without fetching.
    ///
    /// `who`: ``PushMode/person`` (the default: someone asked for this push now) sends a
    /// mutation left in doubt again, with the same key; ``PushMode/unattended`` (a loop of
    /// the app's own) sends it again only when that cannot apply it twice.
    @discardableResult
    public func push(source: String? = nil, resource: String? = nil, width: Int = 1, who: PushMode = .person) async throws -> PushReport {
        try await push(source: source, resource: resource, automatic: false, who: who, width: width)
    }

    /// `automatic`: sending nobody asked for now (before a fetch); a mutation that failed
    /// waits for its Retry-After or backoff. `who`: whether a mutation in doubt may be sent
    /// again whatever its method (`PushMode`), decided by the door. How a push sends is
    /// `WritePush.run`'s.
    package func push(source: String?, resource: String?, automatic: Bool, who: PushMode, width: Int = 1,
                      waiting: (@Sendable (PushClaim.Holder) -> Void)? = nil) async throws -> PushReport {
        guard let fetcher else { throw StoreUsageError.noFetcher }
        guard !fetcher.configuration.offline else { throw WriteError("the network is forbidden (offline): nothing was sent") }
        let push = WritePush(store: self, channel: WriteChannel(fetcher: fetcher), storeID: log.metadata.storeID)
        return try await push.run(source: source, resource: resource, automatic: automatic, who: who, width: width, claimPath: log.path,
                                  waiting: waiting)
    }

    /// Before a fetch of a manifest resource (read your writes): its pending changes made
    /// here are sent first, unless the store is offline or has no fetcher. Their answers are
    /// recorded; one that fails stays pending, and the fetch goes on. Nobody asked for this
    /// sending: unattended (a mutation in doubt waits unless it is safe to send again).
    package func pushBeforeFetch(source: String, resource: String) async throws {
        guard let fetcher, !fetcher.configuration.offline else { return }
        let me = log.metadata.storeID
        guard durableState.writes.mutations.values.contains(where: { $0.store == me && $0.source == source && $0.resource == resource }) else { return }
        _ = try await push(source: source, resource: resource, automatic: true, who: .unattended)
    }
}

/// Who a push sends for (issue 44), decided once by each door and passed down: what it
/// does with a mutation in doubt (``MutationState/sending`` with its sender gone, or failed
/// with no whole answer after its request may have arrived — the server may have applied it).
public enum PushMode: Sendable, Equatable {
    /// Someone asked for this push now (`fetchlog push`, `POST /api/push`, the shell's
    /// `push`, ``Store/push(source:resource:width:who:)``): a mutation in doubt is sent again
    /// with the same `Idempotency-Key`.
    case person
    /// Nobody asked now (`sync`, `serve --sync`, `SyncService`'s loop, the shell's
    /// background push, a fetch's or a write's push first): a mutation in doubt is sent again
    /// only when that cannot apply it twice — its request is idempotent (PUT, DELETE, a PATCH
    /// with `If-Match`) or the manifest says the upstream honours `Idempotency-Key`
    /// (`fetchlog.writes.idempotency_key: "honoured"`). Otherwise it stays in doubt, shown by
    /// `pending`, until a person retries (`pending retry ID`, `push`) or discards it.
    case unattended
}
