import Foundation
import Logging

/// An immutable view of the store's state, tagged with the last applied seq.
public struct Snapshot: Sendable {
    /// The durable state with this session's session-only events on top.
    public let state: LogState
    public var seq: UInt64 { state.seq }
    /// True when, at the time this snapshot was taken, no later event was in the log.
    public let caughtUp: Bool
    /// Events of a replicated store waiting in its outbox for the stream (shown in `state`
    /// on top of the log, without seqs): pending sync.
    public var pendingSync: Int = 0
}

/// The redux-like store: one `LogState` for every view, changed only by actions through
/// `AppReducer`, handing out immutable snapshots.
///
/// Opening loads the checkpoint and replays only the tail. Several processes may share a
/// log: `watch()` polls it and applies what others appended (within a poll interval),
/// and each snapshot says whether it is caught up. Queries read snapshots, never the log.
///
/// `@unchecked Sendable`: the state, snapshot, observers and counters are read and written under `lock` only (never across an `await`); the rest is immutable.
public final class Store: @unchecked Sendable {
    package let log: EventLog
    /// The sources and views the state is folded and read with.
    public let sources: SourceRegistry
    package let fetcher: Fetcher?
    private let clock: any WallClock
    private let lock = NSLock()
    /// What the log alone says (checkpoints save this).
    private var durable: LogState
    private var current: Snapshot
    /// Events of this session kept out of the log (the durable window's far side).
    public let session = SessionLog()
    private var observers: [UUID: AsyncStream<Snapshot>.Continuation] = [:]
    private var appliedSinceCheckpoint = 0
    /// Bodies this process's fetches decoded on arrival, by seq, until catch-up folds them.
    private var predecoded: [UInt64: any SourceDocument] = [:]
    /// Save a checkpoint after this many applied events.
    public var checkpointInterval = 500

    /// Where the state came from when the store opened.
    public enum Origin: Sendable, Equatable {
        case empty
        /// Checkpoint at `seq`, then `tail` events replayed.
        case checkpoint(seq: UInt64, tail: Int)
        /// No usable checkpoint (none, or another reducer version): replayed from seq 1.
        case replay(events: Int)
    }
    public let origin: Origin

    /// Where checkpoints (saved, loaded: info; absent: debug) and the catch-up of other
    /// processes' appends (debug) are logged; label `fetchlog.store`.
    let logger: Logger

    /// Opens the store over `log`. `logger` receives the store's log lines (checkpoints,
    /// catch-up); by default a `fetchlog.store` logger at `FetchlogLogging.level`.
    package init(log: EventLog, sources: SourceRegistry, fetcher: Fetcher? = nil, clock: any WallClock = SystemClock(),
                logger: Logger = FetchlogLogging.logger(label: "fetchlog.store")) throws {
        self.log = log
        self.sources = sources
        self.fetcher = fetcher
        self.clock = clock
        self.logger = logger
        var state = LogState(sources: sources)
        var origin = Origin.empty
        var applied = 0
        let saved = try log.loadCheckpoint()
        if let bytes = saved, let restored = try Checkpoint.decode(bytes, log: log, sources: sources) {
            state = restored
            origin = .checkpoint(seq: restored.seq, tail: 0)
            try log.scan(from: state.seq + 1, batchSize: 256) { event in
                LogReducer.apply(event, to: &state)
                applied += 1
                return true
            }
            logger.info("checkpoint loaded", metadata: ["seq": "\(restored.seq)", "tail": "\(applied)"])
        } else {
            if saved != nil {
                logger.info("checkpoint ignored: another reducer version, or it does not match the log; replaying from seq 1")
            } else {
                logger.debug("no checkpoint; replaying from seq 1")
            }
            // No usable checkpoint: the replay that skips superseded bodies.
            let replayed = try Store.replay(log, sources: sources)
            state = replayed.state
            applied = replayed.events.values.reduce(0, +)
        }
        switch origin {
        case .checkpoint(let seq, _): origin = .checkpoint(seq: seq, tail: applied)
        default: origin = applied == 0 ? .empty : .replay(events: applied)
        }
        self.origin = origin
        durable = state
        current = Snapshot(state: state, caughtUp: true)
        appliedSinceCheckpoint = applied
        current = snapshot(of: state, caughtUp: true)
        session.observe { [weak self] in self?.sessionChanged() }
    }

    /// The state the log alone gives (no session-only events).
    public var durableState: LogState { lock.withLock { durable } }

    private func sessionChanged() {
        lock.withLock { publish(snapshot(of: durable, caughtUp: current.caughtUp)) }
    }

    /// The snapshot of `state`: a replicated store's outbox (pending sync) and this
    /// session's session-only events folded on top, neither with a seq.
    private func snapshot(of state: LogState, caughtUp: Bool) -> Snapshot {
        // Decoded only when something waits: an empty outbox is the usual case.
        let pending = log.isRouted && ((try? log.outboxCount()) ?? 0) > 0 ? ((try? log.outboxEntries()) ?? []) : []
        return Snapshot(state: Self.fold(pending.map(\.event) + session.events, on: state), caughtUp: caughtUp, pendingSync: pending.count)
    }

    private static func fold(_ events: [Event], on state: LogState) -> LogState {
        var result = state
        for event in events { LogReducer.apply(event, to: &result) }
        return result
    }

    /// The latest snapshot. Never waits on the network or the log.
    public var snapshot: Snapshot { lock.withLock { current } }

    /// Every new snapshot, starting with the current one.
    public func snapshots() -> AsyncStream<Snapshot> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Snapshot>.makeStream(bufferingPolicy: .bufferingNewest(1))
        lock.withLock {
            observers[id] = continuation
            continuation.yield(current)
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.observers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends an action: reduces it, then performs the effects it returned. Returns the
    /// reports of the fetches it performed (their outcomes are in the log, or this
    /// session's memory, and so in the next snapshot).
    @discardableResult
    public func send(_ action: StoreAction) async throws -> [FetchReport] {
        let effects: [StoreEffect] = lock.withLock {
            var state = durable
            let effects = AppReducer.reduce(&state, action)
            if state != durable {
                durable = state
                publish(snapshot(of: state, caughtUp: current.caughtUp))
            }
            return effects
        }
        var reports: [FetchReport] = []
        for effect in effects {
            switch effect {
            case .append(let event):
                try await log.append(event)
            case .fetch(let resource):
                reports.append(try await perform(resource, recording: .durable))
            case .fetchForSession(let resource):
                reports.append(try await perform(resource, recording: .session(session)))
            }
        }
        if !effects.isEmpty { try await catchUp() }
        return reports
    }

    /// Fetches `resource` — `send(.fetch)`, or `send(.fetchForSession)` when not `durable`
    /// (kept in this store's `session` only) — and returns its report once the outcome is
    /// in the state.
    @discardableResult
    public func fetch(_ resource: Resource, durable: Bool = true) async throws -> FetchReport {
        // Each action's reducer returns exactly one fetch effect.
        try await send(durable ? .fetch(resource) : .fetchForSession(resource))[0]
    }

    /// The fetch effect: the fetcher is stateless, so the validators of the held body come
    /// from the state — caught up with the log first, so a body another process fetched
    /// since (and its ETag) is the one revalidated.
    private func perform(_ resource: Resource, recording: Recording) async throws -> FetchReport {
        guard let fetcher else { throw StoreUsageError.noFetcher }
        var validators: Validators?
        if case .durable = recording {
            _ = try catchUpNow()
            validators = Validators(of: ResourceKey(resource), in: durableState)
        }
        // A source defined by a manifest lives in the state, not the registry.
        let plugin = sources.plugin(resource.source) == nil ? durableState.plugin(resource.source.rawValue) : nil
        let report = try await fetcher.fetch(resource, recording: recording, validators: validators, plugin: plugin)
        if let (seq, document) = report.decoded {
            lock.withLock { if seq > durable.seq { predecoded[seq] = document } }
        }
        return report
    }

    /// Records a user's choice as an intent of `source` (the state follows from the log,
    /// through that source's slice), stamped by the store's clock.
    public func sendIntent(source: Source, label: String, body: JSONValue) async throws {
        try await send(.intent(source: source, label: label, body: body, at: clock.now()))
    }

    /// Applies every event appended since the snapshot (by anyone). Returns how many.
    @discardableResult
    public func catchUp() async throws -> Int {
        let (count, checkpointDue) = try catchUpNow()
        if checkpointDue { try await saveCheckpoint() }
        return count
    }

    /// The synchronous part of `catchUp`: reads what is new, applies it under the lock and
    /// publishes. Safe to run concurrently with itself: events at or below the state's seq
    /// are skipped by the reducer.
    private func catchUpNow() throws -> (count: Int, checkpointDue: Bool) {
        let from = durableState.seq + 1
        var batch: [Event] = []
        try log.scan(from: from, batchSize: 256) { event in
            batch.append(event)
            return true
        }
        let count = batch.count
        let last = try log.lastSeq()
        let checkpointDue: Bool = lock.withLock {
            var state = durable
            // As `AppReducer` folds `.eventsAppended`, with the bodies decoded on arrival.
            for event in batch where event.seq > state.seq {
                LogReducer.apply(event, to: &state, decoded: predecoded.removeValue(forKey: event.seq))
            }
            let caughtUp = state.seq >= last
            // A write left in the outbox changes no seq: the pending count tells.
            let pending = log.isRouted ? ((try? log.outboxCount()) ?? 0) : 0
            if state != durable || caughtUp != current.caughtUp || pending != current.pendingSync {
                durable = state
                publish(snapshot(of: state, caughtUp: caughtUp))
            }
            appliedSinceCheckpoint += count
            return appliedSinceCheckpoint >= checkpointInterval
        }
        return (count, checkpointDue)
    }

    /// Saves the current state as the checkpoint.
    public func saveCheckpoint() async throws {
        let state = durableState
        let bytes = Checkpoint.encode(state)
        // Every view as this build reads it, for a later build's `replay --diff`.
        try await log.saveCheckpoint(bytes, views: ViewRecord.encode(state))
        lock.withLock { appliedSinceCheckpoint = 0 }
        logger.info("checkpoint saved", metadata: ["seq": "\(state.seq)", "bytes": "\(bytes.count)"])
    }

    /// Polls the log for events appended by other processes, every `interval`, until the
    /// returned task is cancelled. The polling and the catch-up run on a thread of their
    /// own, so they keep their pace however busy the cooperative pool is; a checkpoint that
    /// falls due is saved in a task.
    public func watch(every interval: Duration = .milliseconds(250)) -> Task<Void, Never> {
        let watcher = LogWatcher(interval: interval) { [weak self] in
            guard let self else { return false }
            if (try? self.log.lastSeq()) ?? 0 > self.durableState.seq, let (count, checkpointDue) = try? self.catchUpNow() {
                self.logger.debug("caught up with appends of another process", metadata: ["events": "\(count)", "seq": "\(self.durableState.seq)"])
                if checkpointDue { Task { try? await self.saveCheckpoint() } }
            }
            return true
        }
        watcher.start()
        return Task {
            await withTaskCancellationHandler {
                await watcher.ended()
            } onCancel: {
                watcher.stop()
            }
        }
    }

    /// Must be called with `lock` held.
    private func publish(_ snapshot: Snapshot) {
        current = snapshot
        for continuation in observers.values { continuation.yield(snapshot) }
    }

    /// The state as of `seq`, for time travel (`--at`, the shell's `at` and `diff`): the
    /// checkpoint when it is at or before `seq`, then the events up to `seq`; else a replay
    /// from seq 1. The durable state only (session-only events have no seq).
    public func state(asOf seq: UInt64) throws -> LogState {
        let current = durableState
        if seq >= current.seq { return current }
        if let bytes = try log.loadCheckpoint(), let saved = try Checkpoint.decode(bytes, log: log, sources: sources), saved.seq <= seq {
            var state = saved
            try log.scan(from: saved.seq + 1, batchSize: 256) { event in
                guard event.seq <= seq else { return false }
                LogReducer.apply(event, to: &state)
                return true
            }
            return state
        }
        return try Store.replay(log, sources: sources, to: seq).state
    }

    /// The state as of `seq` (or the end), folded from the log alone.
    ///
    /// Replay speed is decode speed, so a body that a later response of the same resource
    /// supersedes is not decoded at all: a first pass reads only record headers (seq, kind,
    /// source, label) to find each resource's last `fetched` event, and the second pass
    /// skips the earlier ones, whose every effect on the final state the last one
    /// overwrites. (Should a kept body not decode, the replay is redone in full.) Neither
    /// pass copies a body stored apart (`bodies`) unless its event is applied, so a log of a
    /// year of 400 KB censuses costs its headers and its final bodies, not every body.
    ///
    /// Stops with `ReplayCancelled` when `isCancelled` says so (checked every 256 events;
    /// by default: when the calling task is cancelled, e.g. by Ctrl-C). A replay writes nothing.
    ///
    /// `progress(seq, last)` is called every 256 events of the pass that applies them, for
    /// a progress display.
    package static func replay(_ log: EventLog, sources: SourceRegistry, to seq: UInt64? = nil,
                              isCancelled: () -> Bool = { Task.isCancelled },
                              progress: (_ seq: UInt64, _ last: UInt64) -> Void = { _, _ in }) throws -> (state: LogState, events: [String: Int]) {
        let last = try seq ?? log.lastSeq()
        var lastFetched: [ResourceKey: UInt64] = [:]
        var perSource: [String: Int] = [:]
        try log.scanStored(batchSize: 1024, lookingUpBodies: false) { stored in
            if let seq, stored.seq > seq { return false }
            if stored.seq % 256 == 0, isCancelled() { throw ReplayCancelled(seq: stored.seq, last: try log.lastSeq()) }
            perSource[stored.source, default: 0] += 1
            if stored.kind == .fetched { lastFetched[ResourceKey(source: stored.source, path: stored.label)] = stored.seq }
            return true
        }
        let kept = Set(lastFetched.values)
        var state = LogState(sources: sources)
        try log.scanStored(batchSize: 256, lookingUpBodies: false) { stored in
            if let seq, stored.seq > seq { return false }
            if stored.seq % 256 == 0 {
                if isCancelled() { throw ReplayCancelled(seq: stored.seq, last: try log.lastSeq()) }
                progress(stored.seq, last)
            }
            if stored.kind == .fetched && !kept.contains(stored.seq) {
                state.seq = stored.seq
                return true
            }
            // A body stored apart is read now, for this event only.
            let apart = stored.record.withUnsafeBytes { EnvelopeCodec.bodyReference(of: $0) } != nil
            do {
                guard let event = apart ? try log.event(at: stored.seq) : try stored.decode() else {
                    throw StoreError.damagedRecord(seq: stored.seq, reason: .missingBody(sha256: "?"))
                }
                LogReducer.apply(event, to: &state)
            } catch let error as EnvelopeError {
                throw StoreError.damagedRecord(seq: stored.seq, reason: error)
            }
            return true
        }
        let complete = lastFetched.allSatisfy { key, seq in state.status[key]?.lastSuccessSeq == seq }
        if !complete { return (try fullReplay(log, sources: sources, to: seq, isCancelled: isCancelled, progress: progress), perSource) }
        return (state, perSource)
    }

    /// Every event applied, every body decoded: the reference the fast replay must equal.
    package static func fullReplay(_ log: EventLog, sources: SourceRegistry, to seq: UInt64? = nil, isCancelled: () -> Bool = { Task.isCancelled },
                                  progress: (_ seq: UInt64, _ last: UInt64) -> Void = { _, _ in }) throws -> LogState {
        let last = try seq ?? log.lastSeq()
        var state = LogState(sources: sources)
        try log.scan(batchSize: 256) { event in
            if let seq, event.seq > seq { return false }
            if event.seq % 256 == 0 {
                if isCancelled() { throw ReplayCancelled(seq: event.seq, last: try log.lastSeq()) }
                progress(event.seq, last)
            }
            LogReducer.apply(event, to: &state)
            return true
        }
        return state
    }
}

/// A store used for what it was not opened for.
public enum StoreUsageError: Error, CustomStringConvertible {
    case noFetcher
    /// `Store.open(at:)` takes a file URL naming the store's directory.
    case notADirectory(String)
    public var description: String {
        switch self {
        case .noFetcher: "this store was opened without a fetcher, so it cannot fetch"
        case .notADirectory(let url): "\(url) is not a directory: give Store.open a file URL, e.g. URL(filePath: \"data.fetchlog\")"
        }
    }
}
