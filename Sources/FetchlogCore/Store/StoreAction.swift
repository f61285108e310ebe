/// What can happen to the store. Everything that changes state arrives as an action.
public enum StoreAction: Sendable {
    /// Events now in the log (this process's fetches and intents, or another process's
    /// appends), in seq order: the one way appended events reach the state (the store's
    /// catch-up sends it). `decoded`: bodies already decoded on arrival (by the fetcher),
    /// by seq, so they are not decoded twice.
    case eventsAppended([Event], decoded: [UInt64: any SourceDocument] = [:])
    /// A user's choice, recorded as an intent event of `source` (`label`, JSON `body`) and
    /// folded by that source's slice when it comes back from the log; `at` is the store
    /// clock's time, so the reducer reads no clock.
    case intent(source: Source, label: String, body: JSONValue, at: Timestamp)
    /// A view of `resource` was opened within its time to live: renew it (a `renew` intent).
    case renew(ResourceKey, at: Timestamp)
    /// Ask for a resource from upstream.
    case fetch(Resource)
    /// Ask for a resource, keeping the outcome in this session only (the durable window).
    case fetchForSession(Resource)
}

/// Work a reducer asks for; the store performs it, and outcomes come back only as
/// new events (`eventsAppended`).
package enum StoreEffect: Sendable, Equatable {
    case append(Event)
    case fetch(Resource)
    /// Fetch, keeping the outcome in this session's memory only.
    case fetchForSession(Resource)
}

/// The store's reducer: actions in, state changed, effects out. Pure.
package enum AppReducer {
    package static func reduce(_ state: inout LogState, _ action: StoreAction) -> [StoreEffect] {
        switch action {
        case .eventsAppended(let events, let decoded):
            // Events at or below the state's seq are folded already (a concurrent catch-up).
            for event in events where event.seq > state.seq { LogReducer.apply(event, to: &state, decoded: decoded[event.seq]) }
            return []
        case .intent(let source, let label, let body, let at):
            // The intent is recorded first; the state changes when it comes back from the
            // log, so live state and replay can never disagree.
            return [.append(Event(recordedAt: at, kind: .intent, source: source.rawValue, label: label,
                                  body: Array(body.canonicalText().utf8)))]
        case .renew(let key, let at):
            let body = JSONValue.object([("path", .string(key.path))]).canonicalText()
            return [.append(Event(recordedAt: at, kind: .intent, source: key.source, label: "renew", body: Array(body.utf8)))]
        case .fetch(let resource):
            return [.fetch(resource)]
        case .fetchForSession(let resource):
            return [.fetchForSession(resource)]
        }
    }
}
