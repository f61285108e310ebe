import FetchlogCore
import Hummingbird

/// `GET /api/sync`: the sync schedule as `SyncPlan` computes it at the server's clock (the
/// store's: `FETCHLOG_NOW` fixes it), so what the page shows is what a pass would do, and a
/// replay of the same log at the same time shows the same. With `serve --sync`, the plan is
/// the loop's own (its policy, selectors and timing) and the loop's state comes with it.
enum SyncSchedule {
    /// `{now, loop: {running, passing, lastPass}, resources: [...]}`; `loop` is null when
    /// the server runs no sync loop.
    static func json(_ content: ServeContent) async throws -> JSONValue {
        let store = content.store
        // The log as it is now, as a pass plans from it: another process's appends (a
        // `source add`, a `fetch` beside the server) count at once, not at the next watch.
        do { _ = try await store.catchUp() } catch { throw APIError(status: .internalServerError, message: "cannot read the log: \(error)") }
        let state = store.durableState
        let runner = content.sync?.runner
        let plan = SyncPlan(state: state, policy: runner?.policy ?? FreshnessPolicy(sources: state.sources), now: content.clock.now(),
                            storeID: store.maintenance.metadata.storeID, only: runner?.only ?? [], timing: runner?.timing ?? SyncTiming())
        return .object([
            ("now", .string(plan.now.iso8601)),
            ("loop", content.sync.map { loop($0.status) } ?? .null),
            ("resources", .array(plan.entries.map { resource($0, now: plan.now) })),
        ])
    }

    /// One resource: its freshness level, when it is next asked (now, when it is due), and
    /// while it fails, the backoff it waits out.
    static func resource(_ entry: SyncEntry, now: Timestamp) -> JSONValue {
        let backingOff = entry.isBackingOff(at: now)
        return .object([
            ("resource", .string(entry.target.description)),
            ("level", .string(entry.level.rawValue)),
            ("due", .bool(entry.isDue(at: now))),
            // As `sync` prints its rows' next due: a time already past is now.
            ("nextRefresh", entry.dueAt.map { .string(max($0, now).iso8601) } ?? .null),
            ("backingOff", .bool(backingOff)),
            ("backoffUntil", backingOff ? entry.backoffUntil.map { .string($0.iso8601) } ?? .null : .null),
            ("failures", .number(entry.failures)),
            ("pendingWrites", .number(entry.pendingWrites)),
            ("pages", .number(entry.pages)),
        ])
    }

    static func loop(_ status: SyncLoopStatus) -> JSONValue {
        .object([
            ("running", .bool(status.running)),
            ("passing", .bool(status.passing)),
            ("lastPass", status.lastPass.map { pass in
                .object([("at", .string(pass.at.iso8601)), ("summary", .string(pass.summary)), ("requests", .number(pass.requests)),
                         ("failed", .bool(pass.failed)), ("nextDue", pass.nextDue.map { .string($0.iso8601) } ?? .null)])
            } ?? .null),
        ])
    }
}
