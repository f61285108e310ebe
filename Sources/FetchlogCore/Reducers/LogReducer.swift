import Foundation

/// Folds one event into the state. Pure: no I/O, no clock; the same events in the same
/// order always give the same state.
package enum LogReducer {
    /// `decoded`: the event's body already decoded by its plug-in (the fetcher's, on
    /// arrival), so it is not decoded twice; nil decodes it here.
    package static func apply(_ event: Event, to state: inout LogState, decoded: (any SourceDocument)? = nil) {
        // Session-only events (seq 0, never in the log) do not move the state's seq.
        if event.seq > 0 { state.seq = event.seq }
        state.changes.bump(event.source)
        if event.kind == .intent {
            applyIntent(event, to: &state)
            applyToSlice(event, in: &state)
            return
        }
        let key = ResourceKey(source: event.source, path: event.label)
        var status = state.status[key] ?? ResourceStatus()
        status.lastAttempt = event.recordedAt
        status.lastAttemptSeq = event.seq
        switch event.kind {
        case .fetched where event.body == nil && event.compactedBody != nil:
            // `log compact` dropped this body because a later one of the same resource
            // superseded it, and compacts only bodies that decoded: the attempt succeeded as
            // recorded, but the document is not held here. Seen only before the compaction
            // horizon (`--at`), which names the resource rather than answer without it.
            state.documents[key] = nil
            state.compactedBodies[key] = event.seq
            recordSuccess(event, in: &status)
        case .fetched:
            guard let resource = state.resource(source: event.source, label: event.label), let body = event.body,
                  let document = decoded ?? (try? state.decode(resource, body: body)) else {
                // Recorded as fetched but undecodable by this build: it cannot replace held data.
                status.failuresSince += 1
                status.lastError = "the stored body does not decode"
                status.lastErrorClass = .decode
                break
            }
            state.documents[key] = HeldDocument(seq: event.seq, fetchedAt: event.recordedAt, document: document)
            if !state.compactedBodies.isEmpty { state.compactedBodies[key] = nil }
            recordSuccess(event, in: &status)
        case .notModified:
            status.lastRevalidated = event.recordedAt
            status.failuresSince = 0
            status.retryAfter = nil
            // RFC 9111 §4.3.4: the 304's headers update the stored ones, freshness included.
            if let headers = event.response?.headers { updateCacheHeaders(with: headers, in: &status) }
            // The revalidating request now selects it (§4.3.4: a 304 may bring a new Vary).
            if let request = event.request { status.selectingHeaders = CacheHeaders.selecting(request.headers, by: status.cacheHeaders) }
            status.notStoredAt = nil
        case .endOfList:
            status.endOfList = true
            status.failuresSince = 0
            // A page past the end holds nothing any more.
            state.documents[key] = nil
            if !state.compactedBodies.isEmpty { state.compactedBodies[key] = nil }
        case .fetchFailed:
            status.failuresSince += 1
            status.lastError = event.failure?.message
            status.lastErrorClass = event.failure?.failureClass
            status.retryAfter = event.response?.header("Retry-After").flatMap { RetryAfterHeader.until($0, at: event.recordedAt) }
        case .intent, .other:
            break
        }
        state.setStatus(status, for: key)
    }

    /// What a `fetched` event says about its resource, its body apart.
    private static func recordSuccess(_ event: Event, in status: inout ResourceStatus) {
        status.lastSuccess = event.recordedAt
        status.lastSuccessSeq = event.seq
        status.etag = event.response?.header("ETag")
        status.lastModified = event.response?.header("Last-Modified")
        status.cacheControl = event.response?.header("Cache-Control")
        status.ageSeconds = event.response?.header("Age").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        status.cacheHeaders = CacheHeaders.kept(event.response?.headers ?? [])
        status.selectingHeaders = CacheHeaders.selecting(event.request?.headers ?? [], by: status.cacheHeaders)
        status.notStoredAt = nil
        // Every `Link` line the response sent (a second line holds the next link as well).
        let links = event.response?.headers.filter { $0.name.lowercased() == "link" }.map(\.value) ?? []
        status.linkNext = LinkHeader.target(links, relation: "next")
        status.failuresSince = 0
        status.retryAfter = nil
        status.endOfList = false
    }

    /// A 304's headers over the held response's (§4.3.4), and the validators and freshness
    /// fields read from the result.
    private static func updateCacheHeaders(with headers: [Header], in status: inout ResourceStatus) {
        let updated = CacheHeaders.updated(status.cacheHeaders, by: headers)
        guard updated != status.cacheHeaders else { return }
        status.cacheHeaders = updated
        func value(_ name: String) -> String? { updated.first { $0.name.lowercased() == name }?.value }
        status.etag = value("etag") ?? status.etag
        status.lastModified = value("last-modified") ?? status.lastModified
        status.cacheControl = value("cache-control")
        status.ageSeconds = value("age").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The intent's source's slice, folded by its own reducer.
    private static func applyToSlice(_ event: Event, in state: inout LogState) {
        guard var slice = state.slices[event.source] else { return }
        slice.apply(event)
        state.slices[event.source] = slice
    }

    private static func applyIntent(_ event: Event, to state: inout LogState) {
        switch event.label {
        case ManifestDefinition.label where event.source == ManifestDefinition.source:
            ManifestDefinition.apply(event, to: &state)
        case SavedViews.savedLabel where event.source == SavedViews.source, SavedViews.droppedLabel where event.source == SavedViews.source:
            SavedViews.apply(event, to: &state)
        case let label where WriteEvents.labels.contains(label): // issue 26: offline writes
            WriteState.apply(event, to: &state.writes)
        case NoStore.markerLabel:
            // A `no-store` answer kept for the session: the log holds only when it was asked,
            // so a sync waits before asking again (`SyncPlan`). The held body, if any, stays.
            guard let body = event.body, let json = try? JSONValue.parse(bytes: body), let path = json["path"]?.stringValue else { return }
            let key = ResourceKey(source: event.source, path: path)
            var status = state.status[key] ?? ResourceStatus()
            status.lastAttempt = event.recordedAt
            status.lastAttemptSeq = event.seq
            status.notStoredAt = event.recordedAt
            status.failuresSince = 0
            status.retryAfter = nil
            state.setStatus(status, for: key)
        case "renew":
            // A view opened within its time to live: the TTL counts from here.
            guard let body = event.body, let json = try? JSONValue.parse(bytes: body), let path = json["path"]?.stringValue else { return }
            let key = ResourceKey(source: event.source, path: path)
            var status = state.status[key] ?? ResourceStatus()
            status.lastRenewed = event.recordedAt
            state.setStatus(status, for: key)
        default:
            break
        }
    }

    /// The state after every event of `events`, from empty.
    package static func fold<S: Sequence>(_ events: S, sources: SourceRegistry) -> LogState where S.Element == Event {
        var state = LogState(sources: sources)
        for event in events { apply(event, to: &state) }
        return state
    }
}
