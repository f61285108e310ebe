import Foundation
import FetchlogLMDB

/// What a store's keeper does to it beside reading views and fetching: tail and show
/// events, count them, verify every record, export and merge NDJSON, compact superseded
/// bodies, replay. Handed out by an open store (`store.maintenance`), or opened on its own
/// (`StoreMaintenance.open(at:sources:)`) where the state must not be folded first: a store
/// whose state cannot be rebuilt can still be verified, counted and exported.
///
/// Failures a caller can act on are `MaintenanceError`s; a refused directory is a `StoreError`.
public struct StoreMaintenance: Sendable {
    /// The log it works on (the store layer's; clients go through the methods).
    package let log: EventLog
    /// The sources and views replay and compaction fold with.
    package let sources: SourceRegistry

    package init(log: EventLog, sources: SourceRegistry) {
        self.log = log
        self.sources = sources
    }

    /// Opens (creating when new) the store in `directory` without folding its state: the
    /// door for verify, stats, export, salvage-adjacent checks, and for opening the `Store`
    /// itself later (`Store.open(_:configuration:)`). `configuration` gives the clock that
    /// stamps a new store's creation, and how the log opens.
    public static func open(at directory: URL, sources: SourceRegistry,
                            configuration: Store.Configuration = Store.Configuration()) throws -> StoreMaintenance {
        guard directory.isFileURL else { throw StoreUsageError.notADirectory(directory.absoluteString) }
        return try open(path: directory.path, sources: sources, configuration: configuration)
    }

    /// As `open(at:)`, with the path as the user wrote it (relative stays relative in
    /// what the store says about itself).
    package static func open(path: String, sources: SourceRegistry,
                             configuration: Store.Configuration = Store.Configuration()) throws -> StoreMaintenance {
        var options = configuration.log
        options.clock = configuration.clock
        return StoreMaintenance(log: try EventLog.open(at: path, options: options), sources: sources)
    }

    // MARK: What the store is

    /// The store's directory.
    public var path: String { log.path }
    /// What the open noticed and repaired or left alone (say them to the user).
    package var notes: [String] { log.notes }
    /// The store's identity, format and creation time.
    package var metadata: StoreMetadata { log.metadata }
    /// The LMDB map: its size, page size, pages used.
    package var environmentInfo: Environment.Info { log.environmentInfo }
    /// Whether appends go through a replicated stream (a replica's events come from it only).
    package var isAttachedToStream: Bool { log.isRouted }
    /// Events of a replicated store written while its stream was unreachable.
    package func pendingSyncCount() throws -> Int { try log.outboxCount() }

    // MARK: Reading events

    /// The last seq (0: the log is empty).
    public func lastSeq() throws -> UInt64 { try log.lastSeq() }

    /// The last `count` events, oldest first.
    public func tail(_ count: Int) throws -> [Event] { try log.tail(count) }

    /// The event at `seq`; `MaintenanceError.noEvent` when the log holds none there.
    public func event(at seq: UInt64) throws -> Event {
        if let event = try log.event(at: seq) { return event }
        throw MaintenanceError.noEvent(seq: seq, lastSeq: try log.lastSeq())
    }

    /// The first event from seq 1 on that `matches`, if any.
    package func firstEvent(where matches: (Event) -> Bool) throws -> Event? {
        try log.events(from: 1).first(where: matches)
    }

    /// Refuses a seq past the end of the log (`MaintenanceError.seqPastEnd`).
    package func checkSeq(_ seq: UInt64) throws {
        let last = try log.lastSeq()
        guard seq <= last else { throw MaintenanceError.seqPastEnd(seq: seq, lastSeq: last) }
    }

    /// Counts per kind and source, bytes, first and last seq and time.
    package func statistics() throws -> LogStatistics { try log.statistics() }

    /// The seq from which `--at` answers with every body (0: nothing was compacted).
    package func compactionHorizon() throws -> UInt64 { try log.compactionHorizon() }

    // MARK: Export and merge

    /// Writes the events from `seq` on as NDJSON lines (Schemas/event.schema.json) to
    /// `write`; returns the last seq written (0: none).
    @discardableResult
    public func exportNDJSON(from seq: UInt64 = 1, to write: (String) throws -> Void) throws -> UInt64 {
        try log.exportNDJSON(from: seq, to: write)
    }

    /// Merges an NDJSON export at `file`: every event it does not hold yet, byte for byte.
    /// A replica is refused (`MaintenanceError.attachedToStream`); so is a bad export
    /// (`.importRefused`) or an unreadable file (`.unreadable`), each changing nothing.
    package func merge(file: String, progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) throws -> ImportSummary {
        // A replica's log is a copy of its stream: events enter through the stream only.
        guard !log.isRouted else { throw MaintenanceError.attachedToStream }
        do {
            return try log.merge(path: file, progress: progress)
        } catch let error as ImportError {
            throw MaintenanceError.importRefused(error.description)
        } catch let error as CocoaError {
            throw MaintenanceError.unreadable(file: file, reason: error.localizedDescription)
        }
    }

    /// Ends the log's use by this process (a rewrite needs the store closed).
    public func close() { log.close() }
}

extension Store {
    /// The maintenance door of this open store (the same log: what it changes, `catchUp()` folds).
    public var maintenance: StoreMaintenance { StoreMaintenance(log: log, sources: sources) }

    /// Merges an NDJSON export (`StoreMaintenance.merge`) and folds what it added.
    package func merge(file: String, progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) async throws -> ImportSummary {
        let summary = try maintenance.merge(file: file, progress: progress)
        try await catchUp()
        return summary
    }

    /// How this store fetches (nil when it was opened without fetching).
    package var fetchConfiguration: FetchConfiguration? { fetcher?.configuration }
}

extension StoreMaintenance {
    /// The crash-safety test's door (`fetchlog dev append-loop`): a store whose map starts
    /// at `initialMapSize` bytes, so that map growth happens under its kills.
    package static func openForCrashTest(path: String, initialMapSize: Int) throws -> StoreMaintenance {
        var configuration = Store.Configuration()
        configuration.log.initialMapSize = initialMapSize
        return try open(path: path, sources: SourceRegistry([]), configuration: configuration)
    }

    /// Appends `events` (seqs assigned in order) in one durable commit on the calling
    /// thread; the crash-safety test's raw writes, beside the store's folds.
    package func appendBlocking(contentsOf events: [Event]) throws -> Range<UInt64> {
        try log.appendBlocking(contentsOf: events)
    }
}
