import FetchlogCore
import ServiceLifecycle
import Synchronization

/// Keeps a store in sync with its upstreams inside an app, as `fetchlog sync` does on the
/// command line: every resource revalidated when it falls stale by its upstream's own
/// rules (or the `ttl` a manifest wrote), the store's pending writes sent first, at most
/// `requestsPerOrigin` requests at once per origin, a failing origin backed off. Between
/// passes it sleeps until the next resource falls due: nothing is polled.
///
/// A `Service` of swift-service-lifecycle: add it to the app's `ServiceGroup`, and a
/// graceful shutdown ends it between requests (what was recorded stays recorded). One
/// sync per store, across processes: a second one's `run()` throws at once.
///
/// <doc:FetchlogSync> shows it in an app.
public struct SyncService: Service {
    /// Where the sync stands after a pass.
    public struct Status: Sendable, Equatable {
        /// Passes run so far (the first right away).
        public let passes: Int
        /// When the last pass ran, by the store's clock.
        public let at: Timestamp
        /// When the next resource falls due; nil when none ever will (everything held
        /// until refreshed, or nothing defined).
        public let nextDue: Timestamp?
        /// Resources whose revalidation (or push) failed in the last pass, as `SOURCE/PATH`.
        public let failing: [String]
        /// Writes of this store still waiting to be sent.
        public let waitingWrites: Int
        /// Requests the last pass sent.
        public let requests: Int
    }

    private let store: Store
    private let requestsPerOrigin: Int
    private let continuation: AsyncStream<Status>.Continuation

    /// Each pass's status as it ends, the newest kept for a slow reader. One reader.
    public let statuses: AsyncStream<Status>

    /// A sync of `store`, which must be opened with fetching (`Store.Configuration.fetching`).
    public init(store: Store, requestsPerOrigin: Int = 4) {
        self.store = store
        self.requestsPerOrigin = max(1, requestsPerOrigin)
        (statuses, continuation) = AsyncStream.makeStream(of: Status.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Passes until the service group shuts down gracefully or the task is cancelled.
    /// Throws when another sync holds the store, or the store has no fetcher.
    public func run() async throws {
        defer { continuation.finish() }
        guard let fetching = store.fetchConfiguration else { throw StoreUsageError.noFetcher }
        let claim = try SyncClaim.take(store.maintenance.path, started: fetching.clock.now())
        defer { claim.release() }
        var runner = SyncRunner(store: store, policy: FreshnessPolicy(sources: store.durableState.sources), clock: fetching.clock)
        runner.perOrigin = requestsPerOrigin
        let passes = Counter()
        runner.onEvent = { [continuation] event in
            guard case .passed(let pass) = event else { return }
            continuation.yield(Status(passes: passes.next(), at: pass.at, nextDue: pass.nextDue,
                                      failing: pass.rows.filter(\.outcome.isFailure).map(\.target.description),
                                      waitingWrites: pass.waitingWrites, requests: pass.requests))
        }
        let configured = runner
        // Another process's write (a command-line `item set` beside the app) is caught up
        // with as it is committed, and wakes the loop as the app's own writes do.
        let following = store.followAppends()
        defer { following?.cancel() }
        do {
            try await cancelWhenGracefulShutdown {
                try await configured.run(sleeper: TaskSleeper(store: configured.store))
            }
        } catch is CancellationError {
            // A shutdown: the pass in flight stopped between requests.
        }
    }
}

/// Passes counted from the event handler.
private final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> Int {
        value.withLock { $0 += 1; return $0 }
    }
}
