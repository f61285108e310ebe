import Foundation

/// Folds one event into the state. Pure: no I/O, no clock; the same events in the same
/// order always give the same state.
public enum LogReducer {
    public static func apply(_ event: Event, to state: inout LogState) {
        // Session-only events (seq 0, never in the log) do not move the state's seq.
        if event.seq > 0 { state.seq = event.seq }
        if event.kind == .intent {
            applyIntent(event, to: &state)
            return
        }
        let key = ResourceKey(source: event.source, path: event.label)
        var status = state.status[key] ?? ResourceStatus()
        status.lastAttempt = event.recordedAt
        status.lastAttemptSeq = event.seq
        switch event.kind {
        case .fetched:
            guard let resource = Resource.from(source: event.source, label: event.label), let body = event.body,
                  let document = try? DocumentDecoder.decode(resource.document, body: body) else {
                // Recorded as fetched but undecodable by this build: it cannot replace held data.
                status.failuresSince += 1
                status.lastError = "the stored body does not decode"
                status.lastErrorClass = .decode
                break
            }
            state.documents[key] = HeldDocument(seq: event.seq, fetchedAt: event.recordedAt, document: document)
            status.lastSuccess = event.recordedAt
            status.lastSuccessSeq = event.seq
            status.etag = event.response?.header("ETag")
            status.lastModified = event.response?.header("Last-Modified")
            status.cacheControl = event.response?.header("Cache-Control")
            status.ageSeconds = event.response?.header("Age").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            status.failuresSince = 0
            status.endOfList = false
        case .notModified:
            status.lastRevalidated = event.recordedAt
            status.failuresSince = 0
        case .endOfList:
            status.endOfList = true
            status.failuresSince = 0
            // A page past the end holds nothing any more.
            state.documents[key] = nil
        case .fetchFailed:
            status.failuresSince += 1
            status.lastError = event.failure?.message
            status.lastErrorClass = event.failure?.failureClass
        case .intent, .other:
            break
        }
        state.setStatus(status, for: key)
    }

    private static func applyIntent(_ event: Event, to state: inout LogState) {
        switch (event.source, event.label) {
        case ("brastlewark", "filter.set"):
            guard let body = event.body, let json = try? JSONValue.parse(bytes: body), let filter = GnomeFilter(json: json) else { return }
            state.gnomeFilter = filter
            state.gnomeFilterSeq = event.seq
        case ("brastlewark", "filter.reset"):
            state.gnomeFilter = GnomeFilter()
            state.gnomeFilterSeq = event.seq
        case (_, "renew"):
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
    public static func fold<S: Sequence>(_ events: S) -> LogState where S.Element == Event {
        var state = LogState()
        for event in events { apply(event, to: &state) }
        return state
    }
}
