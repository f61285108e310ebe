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
    @discardableResult
    public func push(source: String? = nil, resource: String? = nil, width: Int = 1) async throws -> PushReport {
        try await push(source: source, resource: resource, automatic: false, width: width)
    }

    /// `automatic`: sending nobody asked for now (before a fetch); a mutation that failed
    /// waits for its Retry-After or backoff. How a push sends is `WritePush.run`'s.
    package func push(source: String?, resource: String?, automatic: Bool, width: Int = 1,
                      waiting: (@Sendable (PushClaim.Holder) -> Void)? = nil) async throws -> PushReport {
        guard let fetcher else { throw StoreUsageError.noFetcher }
        guard !fetcher.configuration.offline else { throw WriteError("the network is forbidden (offline): nothing was sent") }
        let push = WritePush(store: self, channel: WriteChannel(fetcher: fetcher), storeID: log.metadata.storeID)
        return try await push.run(source: source, resource: resource, automatic: automatic, width: width, claimPath: log.path, waiting: waiting)
    }

    /// Before a fetch of a manifest resource (read your writes): its pending changes made
    /// here are sent first, unless the store is offline or has no fetcher. Their answers are
    /// recorded; one that fails stays pending, and the fetch goes on.
    package func pushBeforeFetch(source: String, resource: String) async throws {
        guard let fetcher, !fetcher.configuration.offline else { return }
        let me = log.metadata.storeID
        guard durableState.writes.mutations.values.contains(where: { $0.store == me && $0.source == source && $0.resource == resource }) else { return }
        _ = try await push(source: source, resource: resource, automatic: true)
    }
}
