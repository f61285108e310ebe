import Foundation
import Synchronization

/// The offline-first policy: reads answer from the snapshot at once, and what needs
/// refreshing is fetched in the background, decided from the log and the injected clock.
///
/// - A fresh body is served as it is (and, under a renewing time to live, opening renews it).
/// - A stale or missing one is served as it is while a revalidation runs; a failure never
///   removes it, and the view says how old it is and why it could not be refreshed.
/// - A source whose list keeps only its first items across restarts reads
///   `durableWindow`; the pages past it are fetched with session recording.
/// - Paging near the end of what is held fetches the next page in the background, once
///   (`prefetch`); a search box's keystrokes are debounced (`debouncedFetch`).
///
/// `@unchecked Sendable`: running tasks, prefetched pages and debouncers are in a `Mutex`;
/// `durableWindow`, `prefetchDistance`, `onBackgroundReport` and `onBackgroundPush` are plain properties, set
/// before the policy is shared (the shell sets `onBackgroundReport` before it reads its
/// first command, so before any background fetch can call it).
public final class OfflineFirst: @unchecked Sendable {
    package let store: Store
    package let policy: FreshnessPolicy
    package let clock: any WallClock
    /// Items of a paged list (by index across pages) that survive a restart, for sources
    /// whose lists have a durable window.
    package var durableWindow = 1000
    /// Prefetch the next page when the user is this many items from the end of what is held.
    package var prefetchDistance = 20

    private struct Background {
        var running: [Resource: Task<Void, Never>] = [:]
        var prefetched: Set<Resource> = []
        var debouncers: [String: Debouncer] = [:]
    }

    private let background = Mutex(Background())
    /// Called when a background fetch ends (the shell prints it above the line being typed).
    package var onBackgroundReport: (@Sendable (FetchReport) -> Void)?
    /// Called when sending the waiting writes after a background fetch sent something.
    package var onBackgroundPush: (@Sendable (PushReport) -> Void)?
    private let debounceClock: any _Concurrency.Clock<Duration>

    /// `clock` tells the time events are stamped and freshness is judged by; `debounceClock`
    /// measures the pause that ends a burst of search keystrokes.
    /// `policy` nil: every registered source's own freshness rule.
    /// Fetches go through `store` (opened with fetching).
    package init(store: Store, policy: FreshnessPolicy? = nil, clock: any WallClock = SystemClock(),
                debounceClock: any _Concurrency.Clock<Duration> = ContinuousClock()) {
        self.store = store
        self.policy = policy ?? FreshnessPolicy(sources: store.sources)
        self.clock = clock
        self.debounceClock = debounceClock
    }

    /// The offline-first policy over `store` (opened with fetching): every registered
    /// source's own freshness rule, the system's clock. The seed sources' paging and
    /// search calls (`fetchShowsPage`, `didShow(itemIndex:of:)`, `searchShows`) are its.
    public convenience init(_ store: Store) {
        self.init(store: store, policy: nil)
    }

    /// The store fetches with `offline` set (`--offline`): nothing is asked of the network.
    private var isOffline: Bool { store.fetchConfiguration?.offline == true }

    /// What opening a view gives: the snapshot now, and whether a refresh started.
    package struct Opened: Sendable {
        package let snapshot: Snapshot
        package let freshness: Freshness
        package let revalidating: Bool
    }

    /// Opens the view whose primary resource is `resource`. Never waits on the network, but
    /// for a stale body whose upstream said `must-revalidate` or `no-cache` (RFC 9111
    /// §4.2.4): while the upstream can be asked, the answer waits for its revalidation; when
    /// that fails, the held body answers, saying why (offline-first keeps serving it).
    @discardableResult
    package func open(_ resource: Resource, force: Bool = false) async throws -> Opened {
        let snapshot = store.snapshot
        let now = clock.now()
        let key = ResourceKey(resource)
        let freshness = policy.evaluate(key, in: snapshot.state, now: now, presenting: store.presentedHeaders(of: key))
        var refresh = force
        switch freshness.level {
        case .fresh:
            if case .timeToLive(_, true) = policy.rule(for: key, in: snapshot.state), !force {
                try await store.send(.renew(key, at: now))
            }
        case .stale, .missing:
            refresh = true
        }
        if refresh { startFetch(resource) }
        if refresh, freshness.level == .stale, freshness.mustRevalidate, !isOffline,
           let running = background.withLock({ $0.running[resource] }) {
            await withTaskCancellationHandler { await running.value } onCancel: { running.cancel() }
        }
        return Opened(snapshot: store.snapshot, freshness: policy.evaluate(key, in: store.snapshot.state, now: now),
                      revalidating: isRevalidating(resource))
    }

    /// The freshness of a resource now, from the latest snapshot.
    package func freshness(of resource: Resource) -> Freshness {
        policy.evaluate(ResourceKey(resource), in: store.snapshot.state, now: clock.now())
    }

    package func isRevalidating(_ resource: Resource) -> Bool { background.withLock { $0.running[resource] != nil } }

    /// Waits until every background fetch started so far has finished (one-shot commands
    /// call this before exiting, so the outcome is in the log). When the waiting task is
    /// cancelled (Ctrl-C on a command waiting for its first data), the fetches it waits for
    /// are cancelled too, and it returns at once: nothing is recorded for them.
    package func waitForBackgroundWork() async {
        while !Task.isCancelled {
            let tasks = background.withLock { Array($0.running.values) }
            if tasks.isEmpty { return }
            for task in tasks {
                await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
            }
        }
    }

    /// The line to show under a result, or nil when the data is fresh.
    /// `offline: connection refused — shows last updated 2h 14m ago`.
    package func warning(for resource: Resource, named name: String) -> String? {
        let f = freshness(of: resource)
        let now = clock.now()
        switch f.level {
        case .fresh:
            return nil
        case .missing:
            if isOffline { return "offline (\(FrontEndTerm.offline)) — no \(name) held" }
            if f.isFailing { return "offline: \(f.status.lastError ?? "the last fetch failed") — no \(name) held yet" }
            return isRevalidating(resource) ? "no \(name) held yet — fetching" : "no \(name) held yet"
        case .stale:
            let age = AgeText.describe(milliseconds: now.milliseconds - (f.lastUpdated?.milliseconds ?? now.milliseconds))
            // Revalidated on every open: current unless that revalidation is failing.
            if policy.rule(for: ResourceKey(resource), in: store.snapshot.state) == .alwaysRevalidate && !f.isFailing && !isOffline {
                return nil
            }
            if isOffline { return "offline (\(FrontEndTerm.offline)) — \(name) last updated \(age) ago" }
            if f.isFailing {
                // `stale-if-error` (RFC 5861): the upstream allows this answer while it fails.
                let allowed = f.staleIfErrorUntil.flatMap { $0 > now ? " (stale-if-error allows it until \($0.iso8601))" : nil } ?? ""
                return "offline: \(f.status.lastError ?? "the last fetch failed") — \(name) last updated \(age) ago" + allowed
            }
            let since = f.validUntil.map { " (stale since \($0.iso8601))" } ?? ""
            // `stale-while-revalidate` (RFC 5861): the upstream allows this answer while revalidating.
            let allowed = f.staleWhileRevalidateUntil.flatMap { $0 > now ? ", within stale-while-revalidate until \($0.iso8601)" : nil } ?? ""
            return "\(name) last updated \(age) ago\(since)" + (isRevalidating(resource) ? " — revalidating" + allowed : "")
        }
    }

    // MARK: Paged lists and search

    /// The user is looking at item `index` of a list of which `held` items are held; when
    /// that is within `prefetchDistance` of the end, `next` (the list's next page) is
    /// fetched in the background, once per store (by `fetch` when given, else as a plain
    /// fetch). Returns `next` when it started it.
    @discardableResult
    package func prefetch(_ next: Resource?, itemIndex index: Int, held: Int,
                         fetch: (@Sendable () async throws -> Void)? = nil) -> Resource? {
        guard let next, index >= held - prefetchDistance else { return nil }
        let start = background.withLock { $0.prefetched.insert(next).inserted }
        guard start else { return nil }
        if let fetch { startTask(next, fetch) } else { startFetch(next) }
        return next
    }

    /// Fetches `resource` debounced on `channel` (one per search box): superseded within
    /// 200 ms by another call on the same channel, it sends nothing and returns nil.
    package func debouncedFetch(_ resource: Resource, channel: String) async throws -> FetchReport? {
        let debouncer = background.withLock { background in
            if let existing = background.debouncers[channel] { return existing }
            let made = Debouncer(clock: debounceClock)
            background.debouncers[channel] = made
            return made
        }
        return try await debouncer.submit { try await self.fetchNow(resource) }
    }

    // MARK: Background work

    func fetchNow(_ resource: Resource) async throws -> FetchReport {
        try await store.fetch(resource)
    }

    func startFetch(_ resource: Resource) {
        startTask(resource) {
            let report = try await self.fetchNow(resource)
            self.onBackgroundReport?(report)
            // The upstream answered: what this store wrote and is waiting goes now (issue 26).
            if case .failed = report.outcome {} else { await self.pushWaitingWrites() }
        }
    }

    /// Sends the writes this store made that wait, as sending nobody asked for (a failed one
    /// waits for the server's Retry-After, else its backoff): the shell pushes by itself once
    /// the upstream answers again. Never offline; what fails stays pending, recorded, for the
    /// next time (or `push`). Runs inside the background fetch's task, so one-shot and script
    /// runs, which wait for background work, see its answers before their next command.
    func pushWaitingWrites() async {
        guard !isOffline, store.fetchConfiguration != nil else { return }
        let me = store.log.metadata.storeID
        guard store.durableState.writes.mutations.values.contains(where: { $0.store == me }) else { return }
        guard let report = try? await store.push(source: nil, resource: nil, automatic: true, who: .unattended) else { return }
        let sent = report.confirmed.count + report.conflicts.count + report.rejected.count + report.paused.count + report.failed.count
        if sent > 0 { onBackgroundPush?(report) }
    }

    /// Runs `body` in the background as the fetch of `resource` (at most one at a time).
    package func startTask(_ resource: Resource, _ body: @escaping @Sendable () async throws -> Void) {
        background.withLock { background in
            guard background.running[resource] == nil else { return }
            background.running[resource] = Task {
                try? await body()
                _ = self.background.withLock { $0.running.removeValue(forKey: resource) }
            }
        }
    }
}
