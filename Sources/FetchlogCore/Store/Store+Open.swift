import Foundation
import Logging

extension Store {
    /// How a store opens: one clock for the log, the fetcher and the store, how it fetches,
    /// how often it saves a checkpoint, where it logs.
    public struct Configuration: Sendable {
        /// Stamps intents, fetch outcomes and a new store's creation time (tests pin it).
        /// It replaces `fetching.clock`: a store has one clock.
        public var clock: any WallClock = SystemClock()
        /// How fetches ask: where requests go (`fetching.upstream`), timeouts, retries,
        /// secrets, `offline`.
        public var fetching = FetchConfiguration()
        /// Save a checkpoint after this many applied events.
        public var checkpointInterval = 500
        /// Save one (without the view record) once the bodies folded since the last reach
        /// this many bytes, so the next open restores them undecoded (tests lower it).
        package var checkpointBodyBytes = 4 << 20
        /// The store's log lines (checkpoints, catch-up); label `fetchlog.store`.
        public var logger: Logger = FetchlogLogging.logger(label: "fetchlog.store")
        /// How the log itself opens (map size, a new store's identity; benchmarks skip fsync).
        package var log = EventLog.Options()
        /// False: the store opens without a fetcher (no HTTP client), for reading,
        /// intents and maintenance; `fetch` then throws `StoreUsageError.noFetcher`.
        public var fetches = true

        /// The defaults: the system clock, the real hosts, a checkpoint every 500 events.
        public init() {}
    }

    /// Opens (creating when new) the store in `directory`: the log, the fetcher, and the
    /// state folded from its checkpoint and tail. The one way in. `sources` are the
    /// sources written in Swift it serves; a store of sources defined by manifests
    /// (`define(_:)`) needs none.
    ///
    /// ```swift
    /// let store = try await Store.open(at: URL(filePath: "data.fetchlog"))
    /// ```
    ///
    /// A directory that is not a Fetchlog store, or one this build cannot read, is refused
    /// unchanged (`StoreError`). When the tail past the checkpoint was long, a checkpoint is
    /// saved now, so the next open is quick.
    public static func open(at directory: URL, sources: SourceRegistry = SourceRegistry([]), configuration: Configuration = Configuration()) async throws -> Store {
        try await open(StoreMaintenance.open(at: directory, sources: sources, configuration: configuration), configuration: configuration)
    }

    /// Opens the store over the log `maintenance` opened (`StoreMaintenance.open(at:sources:)`),
    /// folding its state from the checkpoint and tail, as `open(at:sources:configuration:)`.
    public static func open(_ maintenance: StoreMaintenance, configuration: Configuration = Configuration()) async throws -> Store {
        let log = maintenance.log
        let sources = maintenance.sources
        var fetching = configuration.fetching
        fetching.clock = configuration.clock
        let fetcher = configuration.fetches ? Fetcher(sources: sources, configuration: fetching) : nil
        do {
            let store = try Store(log: log, sources: sources, fetcher: fetcher, clock: configuration.clock, logger: configuration.logger,
                                  checkpointInterval: configuration.checkpointInterval, checkpointBodyBytes: configuration.checkpointBodyBytes)
            switch store.origin {
            case .checkpoint(_, let tail) where tail >= configuration.checkpointInterval: try await store.saveCheckpoint()
            case .replay(let events) where events >= configuration.checkpointInterval: try await store.saveCheckpoint()
            // Opening decoded large bodies the checkpoint did not cover (a store written
            // before checkpoints counted bytes, or fetched by another process): saved now,
            // so the next open restores them undecoded. A store that cannot be written
            // (read-only) still opens.
            case .checkpoint(let seq, _) where store.decodedOnOpen(since: seq) >= store.checkpointBodyBytes:
                await store.saveCheckpointIfItCan()
            case .replay where store.decodedOnOpen(since: 0) >= store.checkpointBodyBytes:
                await store.saveCheckpointIfItCan()
            default: break
            }
            return store
        } catch {
            await fetcher?.shutdown()
            throw error
        }
    }

    /// A checkpoint without the view record, when the log can be written; a failure is
    /// logged, not thrown (a read-only store still opens).
    private func saveCheckpointIfItCan() async {
        do { try await saveCheckpoint(views: false) } catch {
            logger.info("checkpoint not saved: \(error)")
        }
    }

    /// Closes the fetcher's connections. Call once when done; reads go on working.
    public func close() async {
        await fetcher?.shutdown()
    }
}
