/// What can happen to the store. Everything that changes state arrives as an action.
package enum StoreAction: Sendable {
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
