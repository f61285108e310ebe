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
