/// What can happen to the store. Everything that changes state arrives as an action.
public enum StoreAction: Sendable {
    /// Events now in the log (this process's fetches, or another process's appends).
    case eventsAppended([Event])
    /// A user's choice; `at` is the store clock's time, so the reducer reads no clock.
    case setGnomeFilter(GnomeFilter, at: Timestamp)
    case resetGnomeFilter(at: Timestamp)
    /// Ask for a resource from upstream.
    case fetch(Resource)
}

/// Work a reducer asks for; the store performs it, and outcomes come back only as
/// new events (`eventsAppended`).
public enum StoreEffect: Sendable, Equatable {
    case append(Event)
    case fetch(Resource)
}

/// The store's reducer: actions in, state changed, effects out. Pure.
public enum AppReducer {
    public static func reduce(_ state: inout LogState, _ action: StoreAction) -> [StoreEffect] {
        switch action {
        case .eventsAppended(let events):
            for event in events where event.seq > state.seq { LogReducer.apply(event, to: &state) }
            return []
        case .setGnomeFilter(let filter, let at):
            // The intent is recorded first; the state changes when it comes back from the
            // log, so live state and replay can never disagree.
            return [.append(Event(recordedAt: at, kind: .intent, source: "brastlewark", label: "filter.set",
                                  body: Array(filter.json.canonicalText().utf8)))]
        case .resetGnomeFilter(let at):
            return [.append(Event(recordedAt: at, kind: .intent, source: "brastlewark", label: "filter.reset", body: Array("{}".utf8)))]
        case .fetch(let resource):
            return [.fetch(resource)]
        }
    }
}
