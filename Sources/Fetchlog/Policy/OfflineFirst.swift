import Foundation

/// The offline-first policy: reads answer from the snapshot at once, and what needs
/// refreshing is fetched in the background, decided from the log and the injected clock.
///
/// - A fresh body is served as it is (and, for TVmaze, opening renews its time to live).
/// - A stale or missing one is served as it is while a revalidation runs; a failure never
///   removes it, and the view says how old it is and why it could not be refreshed.
/// - TVmaze items past the first `durableWindow` (by item index) are kept for the session
///   only: their pages are fetched with session recording, never written to the log.
/// - Paging near the end of what is held fetches the next page in the background, once.
public final class OfflineFirst: @unchecked Sendable {
    public let store: Store
    public let fetcher: Fetcher
    public let policy: FreshnessPolicy
    public let clock: any Clock
    /// TVmaze items (by index across pages) that survive a restart.
    public var durableWindow = 1000
    /// Prefetch the next page when the user is this many items from the end of what is held.
    public var prefetchDistance = 20

    private let lock = NSLock()
    private var running: [Resource: Task<Void, Never>] = [:]
    private var prefetched: Set<Resource> = []
    /// Called when a background fetch ends (the shell prints it above the line being typed).
    public var onBackgroundReport: (@Sendable (FetchReport) -> Void)?
    private let showSearch: Debouncer
    private let podcastSearch: Debouncer

    /// `clock` tells the time events are stamped and freshness is judged by; `debounceClock`
    /// measures the pause that ends a burst of search keystrokes.
    public init(store: Store, fetcher: Fetcher, policy: FreshnessPolicy = FreshnessPolicy(), clock: any Clock = SystemClock(),
                debounceClock: any _Concurrency.Clock<Duration> = ContinuousClock()) {
        self.store = store
        self.fetcher = fetcher
        self.policy = policy
        self.clock = clock
        showSearch = Debouncer(clock: debounceClock)
        podcastSearch = Debouncer(clock: debounceClock)
    }

    /// What opening a view gives: the snapshot now, and whether a refresh started.
    public struct Opened: Sendable {
        public let snapshot: Snapshot
        public let freshness: Freshness
        public let revalidating: Bool
    }

    /// Opens the view whose primary resource is `resource`. Never waits on the network.
    @discardableResult
    public func open(_ resource: Resource, force: Bool = false) async throws -> Opened {
        let snapshot = store.snapshot
        let now = clock.now()
        let key = ResourceKey(resource)
        let freshness = policy.evaluate(key, in: snapshot.state, now: now)
        var refresh = force
        switch freshness.level {
        case .fresh:
            if case .timeToLive(_, true) = policy.rule(for: key.source), !force {
                try await store.send(.renew(key, at: now))
            }
        case .stale, .missing:
            refresh = true
        }
        if refresh { startFetch(resource) }
        return Opened(snapshot: store.snapshot, freshness: policy.evaluate(key, in: store.snapshot.state, now: now),
                      revalidating: isRevalidating(resource))
    }

    /// The freshness of a resource now, from the latest snapshot.
    public func freshness(of resource: Resource) -> Freshness {
        policy.evaluate(ResourceKey(resource), in: store.snapshot.state, now: clock.now())
    }

    public func isRevalidating(_ resource: Resource) -> Bool { lock.withLock { running[resource] != nil } }

    /// Waits until every background fetch started so far has finished (one-shot commands
    /// call this before exiting, so the outcome is in the log). When the waiting task is
    /// cancelled (Ctrl-C on a command waiting for its first data), the fetches it waits for
    /// are cancelled too, and it returns at once: nothing is recorded for them.
    public func waitForBackgroundWork() async {
        while !Task.isCancelled {
            let tasks = lock.withLock { Array(running.values) }
            if tasks.isEmpty { return }
            for task in tasks {
                await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
            }
        }
    }

    /// The line to show under a result, or nil when the data is fresh.
    /// `offline: connection refused — shows last updated 2h 14m ago`.
    public func warning(for resource: Resource, named name: String) -> String? {
        let f = freshness(of: resource)
        let now = clock.now()
        switch f.level {
        case .fresh:
            return nil
        case .missing:
            if fetcher.configuration.offline { return "offline (--offline) — no \(name) held" }
            if f.isFailing { return "offline: \(f.status.lastError ?? "the last fetch failed") — no \(name) held yet" }
            return isRevalidating(resource) ? "no \(name) held yet — fetching" : "no \(name) held yet"
        case .stale:
            let age = AgeText.describe(milliseconds: now.milliseconds - (f.lastUpdated?.milliseconds ?? now.milliseconds))
            // Revalidated on every open: current unless that revalidation is failing.
            if policy.rule(for: ResourceKey(resource).source) == .alwaysRevalidate && !f.isFailing && !fetcher.configuration.offline {
                return nil
            }
            if fetcher.configuration.offline { return "offline (--offline) — \(name) last updated \(age) ago" }
            if f.isFailing {
                return "offline: \(f.status.lastError ?? "the last fetch failed") — \(name) last updated \(age) ago"
            }
            let since = f.validUntil.map { " (stale since \($0.iso8601))" } ?? ""
            return "\(name) last updated \(age) ago\(since)" + (isRevalidating(resource) ? " — revalidating" : "")
        }
    }

    // MARK: Paged lists

    /// Fetches TVmaze page `page` following the durable window (`DurableWindow`): durably
    /// when its first item index — the shows held on pages 0..<page — is shown to be below
    /// `durableWindow`; for this session only when it is at or past it, or is unknown (an
    /// earlier page not held) and could be. The report carries `firstItemIndex` (nil when
    /// unknown) and says how it was `recorded`.
    @discardableResult
    public func fetchShowsPage(_ page: Int) async throws -> FetchReport {
        let resource = Resource.tvmazeShowsPage(page)
        let window = DurableWindow(items: durableWindow)
        let position = window.position(ofPage: page, in: store.snapshot.state)
        let durable = window.isDurable(position)
        var report = try await fetcher.fetch(resource, recording: durable ? .durable : .session(store.session))
        report.firstItemIndex = position.firstItemIndex
        if durable { try await store.catchUp() }
        return report
    }

    public enum PagedList: Sendable, Equatable {
        case shows
        case podcastSections
        /// The ARTIC artworks list of page size `limit`; `.artworks()` (nil) means the held
        /// list's limit (`ArtworksView.heldList`), so a list fetched with `--limit 4` is
        /// continued with limit 4.
        case artworks(limit: Int? = nil)
    }

    /// The user is looking at item `index` of `list`: when that is within
    /// `prefetchDistance` of the end of what is held, the next page is fetched in the
    /// background (once). Returns the page it started, if any.
    @discardableResult
    public func didShow(itemIndex index: Int, of list: PagedList) -> Resource? {
        let state = store.snapshot.state
        let next: Resource?
        let held: Int
        switch list {
        case .shows:
            let view = ShowsView(state: state)
            held = view.count
            let page = (view.pagesHeld.max() ?? -1) + 1
            next = view.endOfListPage.map { page >= $0 } == true ? nil : .tvmazeShowsPage(page)
        case .podcastSections:
            let view = SectionsView(state: state)
            held = view.sections.count
            let page = (view.pages.max() ?? 0) + 1
            next = view.totalPages.map { page > $0 } == true ? nil : .thmanyahHome(page)
        case .artworks(let asked):
            let limit = asked ?? ArtworksView.heldList(in: state).limit
            held = ArtworksView(state: state).count
            var pages: [Int] = []
            var total: Int?
            for (key, doc) in state.documents where key.source == "artic" && key.path.hasPrefix("/api/v1/artworks?") && key.path.hasSuffix("&limit=\(limit)") {
                if case .articArtworks(let page) = doc.document {
                    pages.append(page.pagination.currentPage)
                    total = page.pagination.totalPages
                }
            }
            let page = (pages.max() ?? 0) + 1
            next = total.map { page > $0 } == true ? nil : .articArtworks(page: page, limit: limit)
        }
        guard let next, index >= held - prefetchDistance else { return nil }
        let start = lock.withLock { prefetched.insert(next).inserted }
        guard start else { return nil }
        if next.document == .tvmazeShowsPage {
            let page = Int(next.path.split(separator: "=").last ?? "") ?? 0
            startTask(next) { try await self.fetchShowsPage(page) }
        } else {
            startFetch(next)
        }
        return next
    }

    // MARK: Search

    /// A TVmaze show search, debounced: superseded within 200 ms, it sends nothing and
    /// returns nil.
    public func searchShows(_ text: String) async throws -> FetchReport? {
        try await showSearch.submit { try await self.fetchNow(.tvmazeSearch(text)) }
    }

    /// A Thmanyah search, debounced like `searchShows`.
    public func searchPodcasts(_ text: String) async throws -> FetchReport? {
        try await podcastSearch.submit { try await self.fetchNow(.thmanyahSearch(text)) }
    }

    // MARK: Background work

    private func fetchNow(_ resource: Resource) async throws -> FetchReport {
        let report = try await fetcher.fetch(resource)
        try await store.catchUp()
        return report
    }

    private func startFetch(_ resource: Resource) {
        startTask(resource) {
            let report = try await self.fetchNow(resource)
            self.onBackgroundReport?(report)
        }
    }

    private func startTask(_ resource: Resource, _ body: @escaping @Sendable () async throws -> Void) {
        lock.withLock {
            guard running[resource] == nil else { return }
            running[resource] = Task {
                try? await body()
                _ = self.lock.withLock { self.running.removeValue(forKey: resource) }
            }
        }
    }
}
