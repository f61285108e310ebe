import Foundation
import Logging
import Synchronization

/// An immutable view of the store's state, tagged with the last applied seq.
public struct Snapshot: Sendable {
    /// The durable state with this session's session-only events on top.
    public let state: LogState
    /// The last event folded into `state`.
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
/// The store owns the log's appends and the fetcher's effects: the fetcher hands each
/// attempt's outcome to the store, which appends it (to the log, or to `session` for a
/// session-only fetch). Every event the log gains — this process's fetches and intents,
/// another process's appends — is folded by one path: catch-up reads it from the log and
/// sends `.eventsAppended` through `AppReducer`.
public final class Store: Sendable {
    package let log: EventLog
    /// The sources and views the state is folded and read with.
    public let sources: SourceRegistry
    package let fetcher: Fetcher?
    private let clock: any WallClock
    /// Everything that changes after open, behind one lock (never held across an `await`).
    private let guarded: Mutex<Guarded>
    /// Events of this session kept out of the log (the durable window's far side).
    package let session = SessionLog()
    /// Per-store services of other modules (the SQL engine).
    package let attachments = StoreAttachments()
    /// Save a checkpoint after this many applied events. Set once, when the store opens
    /// (`Store.Configuration.checkpointInterval`).
    package let checkpointInterval: Int

    /// What the lock guards.
    private struct Guarded {
        /// What the log alone says (checkpoints save this).
        var durable: LogState
        var current: Snapshot
        var observers: [UUID: AsyncStream<Snapshot>.Continuation] = [:]
        /// Watchers of the actions reduced (tests see the one fold path through them).
        var actionObservers: [@Sendable (StoreAction) -> Void] = []
        var appliedSinceCheckpoint = 0
        /// Bytes of the bodies folded since the checkpoint: a restore decodes none of them
        /// until read, a replay decodes every one, so many bytes make a checkpoint due.
        var bodyBytesSinceCheckpoint = 0
        /// Bodies this process's fetches decoded on arrival, by seq, until catch-up folds them.
        var predecoded: [UInt64: any SourceDocument] = [:]
    }

    /// Where the state came from when the store opened.
    package enum Origin: Sendable, Equatable {
        case empty
        /// Checkpoint at `seq`, then `tail` events replayed.
        case checkpoint(seq: UInt64, tail: Int)
        /// No usable checkpoint (none, or another reducer version): replayed from seq 1.
        case replay(events: Int)
    }
    package let origin: Origin

    /// Where checkpoints (saved, loaded: info; absent: debug) and the catch-up of other
    /// processes' appends (debug) are logged; label `fetchlog.store`.
    let logger: Logger

    /// Opens the store over `log`. `logger` receives the store's log lines (checkpoints,
    /// catch-up); by default a `fetchlog.store` logger at `FetchlogLogging.level`.
    /// `checkpointInterval`: save a checkpoint after this many applied events.
    package init(log: EventLog, sources: SourceRegistry, fetcher: Fetcher? = nil, clock: any WallClock = SystemClock(),
                logger: Logger = FetchlogLogging.logger(label: "fetchlog.store"),
                checkpointInterval: Int = 500, checkpointBodyBytes: Int = 4 << 20) throws {
        self.log = log
        self.sources = sources
        self.fetcher = fetcher
        self.clock = clock
        self.logger = logger
        self.checkpointInterval = checkpointInterval
        self.checkpointBodyBytes = checkpointBodyBytes
        let state: LogState
        let origin: Origin
        let saved = try log.loadCheckpoint()
        if let restored = try Store.checkpointPlusTail(saved, log: log, sources: sources) {
            state = restored.state
            origin = .checkpoint(seq: restored.checkpointSeq, tail: restored.tail)
            logger.info("checkpoint loaded", metadata: ["seq": "\(restored.checkpointSeq)", "tail": "\(restored.tail)"])
        } else {
            if saved != nil {
                logger.info("checkpoint ignored: another reducer version, or it does not match the log; replaying from seq 1")
            } else {
                logger.debug("no checkpoint; replaying from seq 1")
            }
            // No usable checkpoint: the replay that skips superseded bodies.
            let replayed = try Store.replay(log, sources: sources)
            state = replayed.state
            let applied = replayed.events.values.reduce(0, +)
            origin = applied == 0 ? .empty : .replay(events: applied)
        }
        self.origin = origin
        let applied = switch origin {
        case .empty: 0
        case .checkpoint(_, let tail): tail
        case .replay(let events): events
        }
        let first = Snapshot(state: state, caughtUp: true)
        guarded = Mutex(Guarded(durable: state, current: first, appliedSinceCheckpoint: applied))
        let opened = snapshot(of: state, caughtUp: true)
        guarded.withLock { $0.current = opened }
        session.observe { [weak self] in self?.sessionChanged() }
    }

    /// The checkpoint-plus-tail fold, the one way a saved checkpoint becomes a state
    /// (opening, time travel): the checkpoint in `saved` when it is usable and at or before
    /// `seq`, with the log's events after it (up to `seq`) folded on. nil when there is no
    /// usable checkpoint (none, another reducer version, one that does not match the log,
    /// or one past `seq`): the caller replays from seq 1.
    static func checkpointPlusTail(_ saved: [UInt8]?, log: EventLog, sources: SourceRegistry,
                                   to seq: UInt64? = nil) throws -> (state: LogState, checkpointSeq: UInt64, tail: Int)? {
        guard let saved, var state = try Checkpoint.decode(saved, log: log, sources: sources) else { return nil }
        if let seq, state.seq > seq { return nil }
        let checkpointSeq = state.seq
        var tail = 0
        try log.scan(from: checkpointSeq + 1, batchSize: 256) { event in
            if let seq, event.seq > seq { return false }
            LogReducer.apply(event, to: &state)
            tail += 1
            return true
        }
        return (state, checkpointSeq, tail)
    }

    /// The state the log alone gives (no session-only events).
    package var durableState: LogState { guarded.withLock { $0.durable } }

    private func sessionChanged() {
        guarded.withLock { g in publish(snapshot(of: g.durable, caughtUp: g.current.caughtUp), in: &g) }
    }

    /// The snapshot of `state`: a replicated store's outbox (pending sync) and this
    /// session's session-only events folded on top, neither with a seq.
    private func snapshot(of state: LogState, caughtUp: Bool) -> Snapshot {
        // Decoded only when something waits: an empty outbox is the usual case.
        let pending = log.isRouted && ((try? log.outboxCount()) ?? 0) > 0 ? ((try? log.outboxEntries()) ?? []) : []
        return Snapshot(state: Self.fold(pending.map(\.event) + session.events, on: state), caughtUp: caughtUp, pendingSync: pending.count)
    }

    /// The overlay fold: events without a seq (pending sync, session-only) on top of the
    /// durable state, for the snapshot only; the durable state never holds them.
    private static func fold(_ events: [Event], on state: LogState) -> LogState {
        var result = state
        for event in events { LogReducer.apply(event, to: &result) }
        return result
    }

    /// The latest snapshot. Never waits on the network or the log.
    public var snapshot: Snapshot { guarded.withLock { $0.current } }

    /// Every new snapshot, starting with the current one.
    public func snapshots() -> AsyncStream<Snapshot> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Snapshot>.makeStream(bufferingPolicy: .bufferingNewest(1))
        guarded.withLock { g in
            g.observers[id] = continuation
            continuation.yield(g.current)
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.guarded.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Calls `body` with every action the store reduces, in order, as it reduces it (with
    /// the store's lock held: `body` must not call the store). For tests and diagnostics:
    /// it shows that every appended event is folded by `.eventsAppended`.
    package func observeActions(_ body: @escaping @Sendable (StoreAction) -> Void) {
        guarded.withLock { $0.actionObservers.append(body) }
    }

    /// Sends an action: reduces it, then performs the effects it returned. Returns the
    /// reports of the fetches it performed (their outcomes are in the log, or this
    /// session's memory, and so in the next snapshot).
    /// Not public: an action can fold events (`eventsAppended`), and a library user's only
    /// way to change the state is through the log (fetch, intents, writes: issue 36).
    @discardableResult
    package func send(_ action: StoreAction) async throws -> [FetchReport] {
        let (effects, checkpointDue) = guarded.withLock { g in
            let effects = reduce(action, in: &g)
            return (effects, dueCheckpoint(g))
        }
        var reports: [FetchReport] = []
        for effect in effects {
            switch effect {
            case .append(let event):
                try await log.append(event)
            case .fetch(let resource):
                reports.append(try await perform(resource, durable: true))
            case .fetchForSession(let resource):
                reports.append(try await perform(resource, durable: false))
            }
        }
        if !effects.isEmpty {
            try await catchUp()
        } else if checkpointDue != .no {
            try await saveCheckpoint(views: checkpointDue == .full)
        }
        guard !reports.isEmpty else { return reports }
        // What each fetch left its caller with, now that its outcome is folded (a session
        // fetch's is in the snapshot's overlay).
        let state = snapshot.state
        return reports.map { report in
            var report = report
            report.holdsBody = state.documents[ResourceKey(report.resource)] != nil
            return report
        }
    }

    /// Reduces `action` into the durable state and publishes the snapshot when something
    /// a reader sees changed: every change to the state after open goes through here
    /// (`send`, and catch-up as `.eventsAppended`). `lastSeq`, the log's last seq when
    /// known, says whether the state is caught up. Called with the lock held.
    private func reduce(_ action: StoreAction, lastSeq: UInt64? = nil, in g: inout Guarded) -> [StoreEffect] {
        for observer in g.actionObservers { observer(action) }
        var state = g.durable
        let before = state.seq
        let effects = AppReducer.reduce(&state, action)
        if case .eventsAppended(let events, _) = action {
            for event in events where event.seq > before {
                g.appliedSinceCheckpoint += 1
                g.bodyBytesSinceCheckpoint += event.body?.count ?? 0
            }
        }
        let caughtUp = lastSeq.map { state.seq >= $0 } ?? g.current.caughtUp
        // A write left in the outbox changes no seq: the pending count tells.
        let pending = log.isRouted ? ((try? log.outboxCount()) ?? 0) : 0
        if state != g.durable || caughtUp != g.current.caughtUp || pending != g.current.pendingSync {
            g.durable = state
            publish(snapshot(of: state, caughtUp: caughtUp), in: &g)
        }
        return effects
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
    /// since (and its ETag) is the one revalidated. The fetcher hands each attempt back
    /// here to be recorded (`record`); the fold follows in `send`'s catch-up.
    private func perform(_ resource: Resource, durable isDurable: Bool) async throws -> FetchReport {
        guard let fetcher else { throw StoreUsageError.noFetcher }
        var validators: Validators?
        if isDurable {
            // Only when another process appended since: nothing new is nothing to fold (a
            // list's pages then cost one fold each, the fold of the page itself).
            if try log.lastSeq() > durableState.seq { _ = try catchUpNow() }
            validators = Validators(of: ResourceKey(resource), in: durableState)
        }
        // A source defined by a manifest lives in the state, not the registry.
        let plugin = sources.plugin(resource.source) == nil ? durableState.plugin(resource.source.rawValue) : nil
        let keepsNoStore = self.keepsNoStore(resource)
        let recorder = isDurable
            ? FetchRecorder(isDurable: true) { [self] outcome in
                // RFC 9111 §5.2.2.5: a `no-store` answer stays out of the log (`NoStore`).
                if !keepsNoStore, NoStore.forbidsStoring(outcome.event) { return try await keepForSession(notStored: outcome) }
                return RecordedPlace(seq: try await record(outcome))
            }
            : FetchRecorder(isDurable: false) { [session] outcome in
                session.append(outcome.event)
                return RecordedPlace(seq: 0, sessionOnly: .durableWindow)
            }
        return try await fetcher.fetch(resource, recordingInto: recorder, validators: validators, plugin: plugin)
    }

    /// Appends one attempt of a durable fetch to the log (through a replicated store's
    /// route when it has one: seq 0 then means it waits in the outbox). A body decoded on
    /// arrival is kept for the fold, so it is not decoded a second time.
    func record(_ outcome: FetchOutcome) async throws -> UInt64 {
        let seq = try await log.append(outcome.event)
        // A body (or a list's end) now in the log supersedes what this session kept of the
        // resource (a `no-store` answer, a page once past the durable window): the session's
        // copy, folded on top, would hide the newer one.
        if [.fetched, .endOfList].contains(outcome.event.kind) { session.remove(source: outcome.event.source, label: outcome.event.label) }
        if seq > 0, outcome.event.kind == .fetched, let document = outcome.decoded {
            guarded.withLock { g in if seq > g.durable.seq { g.predecoded[seq] = document } }
        }
        return seq
    }

    /// Records an intent of `source` (the state follows from the log, through that source's
    /// slice or the core's own intents), stamped by the store's clock. Library callers send
    /// typed intents (`sendIntent(_:)`), which are checked to reach a slice.
    package func sendIntent(source: Source, label: String, body: JSONValue) async throws {
        try await send(.intent(source: source, label: label, body: body, at: clock.now()))
    }

    /// Records several intents in one transaction — one durable commit, one fold — each
    /// reduced as `sendIntent` reduces it, all stamped with one time. For `push`, which
    /// records a batch of attempts before their requests leave, then their answers.
    /// `checkpoint` false: a checkpoint that falls due waits for the caller's next
    /// `catchUp()` (a push saves it once at its end, not every 500 events of it).
    package func sendIntents(_ intents: [(source: Source, label: String, body: JSONValue)], checkpoint: Bool = true) async throws {
        guard !intents.isEmpty else { return }
        let at = clock.now()
        let events: [Event] = guarded.withLock { g in
            intents.flatMap { intent in
                reduce(.intent(source: intent.source, label: intent.label, body: intent.body, at: at), in: &g).compactMap { effect in
                    if case .append(let event) = effect { event } else { nil }
                }
            }
        }
        try await log.append(contentsOf: events)
        if checkpoint { try await catchUp() } else { _ = try catchUpNow() }
    }

    /// Applies every event appended since the snapshot (by anyone). Returns how many.
    @discardableResult
    package func catchUp() async throws -> Int {
        let (count, checkpointDue) = try catchUpNow()
        if checkpointDue != .no { try await saveCheckpoint(views: checkpointDue == .full) }
        return count
    }

    /// The synchronous part of `catchUp`: reads what is new and sends it as
    /// `.eventsAppended` (with the bodies decoded on arrival) under the lock. Safe to run
    /// concurrently with itself: events at or below the state's seq are skipped by the reducer.
    private func catchUpNow() throws -> (count: Int, checkpointDue: CheckpointDue) {
        let from = durableState.seq + 1
        var batch: [Event] = []
        try log.scan(from: from, batchSize: 256) { event in
            batch.append(event)
            return true
        }
        let last = try log.lastSeq()
        let checkpointDue = guarded.withLock { g in
            var decoded: [UInt64: any SourceDocument] = [:]
            for event in batch { if let document = g.predecoded.removeValue(forKey: event.seq) { decoded[event.seq] = document } }
            _ = reduce(.eventsAppended(batch, decoded: decoded), lastSeq: last, in: &g)
            return dueCheckpoint(g)
        }
        return (batch.count, checkpointDue)
    }

    /// Bytes of the records past `seq` up to the state's: what opening folded beyond the
    /// checkpoint (bodies are most of it).
    package func decodedOnOpen(since seq: UInt64) -> Int {
        let head = durableState.seq
        guard head > seq else { return 0 }
        var bytes = 0
        try? log.scanStored(from: seq + 1, batchSize: 256, lookingUpBodies: false) { stored in
            guard stored.seq <= head else { return false }
            bytes += stored.sizeWithBody
            return true
        }
        return bytes
    }

    /// Whether a checkpoint is due, and how.
    package enum CheckpointDue: Sendable {
        case no
        /// By the events applied: the checkpoint and the view record.
        case full
        /// By the bytes of bodies folded alone (a few large fetches): the checkpoint, so the
        /// next open restores it instead of decoding them all; the view record (every view in
        /// full, for `replay --diff`) would cost more than the fetch, so it waits for `full`.
        case checkpointOnly
    }

    /// Bodies past this many bytes since the checkpoint make one due (`checkpointOnly`).
    package let checkpointBodyBytes: Int

    private func dueCheckpoint(_ g: Guarded) -> CheckpointDue {
        if g.appliedSinceCheckpoint >= checkpointInterval { return .full }
        return g.bodyBytesSinceCheckpoint >= checkpointBodyBytes ? .checkpointOnly : .no
    }

    /// Saves the current state as the checkpoint, and the view record with it unless `views`
    /// is false.
    package func saveCheckpoint(views: Bool = true) async throws {
        let state = durableState
        let bytes = Checkpoint.encode(state)
        // Every view as this build reads it, for a later build's `replay --diff`; without
        // `views`, the record saved before is kept (it carries its own seq).
        try await log.saveCheckpoint(bytes, views: views ? ViewRecord.encode(state, events: { [log] seq in try Store.eventSummaries(of: log, upTo: seq) }) : nil)
        guarded.withLock { g in
            // The event count paces the view record: a checkpoint without it leaves the
            // count running, so large fetches never keep the record from being renewed.
            if views { g.appliedSinceCheckpoint = 0 }
            g.bodyBytesSinceCheckpoint = 0
        }
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
                if checkpointDue != .no { Task { try? await self.saveCheckpoint(views: checkpointDue == .full) } }
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

    /// Must be called with the lock held (`g` is the guarded state).
    private func publish(_ snapshot: Snapshot, in g: inout Guarded) {
        g.current = snapshot
        for continuation in g.observers.values { continuation.yield(snapshot) }
    }

    /// The state as of `seq`, for time travel (`--at`, the shell's `at` and `diff`): the
    /// checkpoint when it is at or before `seq`, then the events up to `seq`; else a replay
    /// from seq 1. The durable state only (session-only events have no seq).
    public func state(asOf seq: UInt64) throws -> LogState {
        let current = durableState
        if seq >= current.seq { return current }
        if let restored = try Store.checkpointPlusTail(try log.loadCheckpoint(), log: log, sources: sources, to: seq) {
            return restored.state
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

    /// What this build's reducers make of `log`, beside the views recorded with its last
    /// checkpoint (`ReplayDiff`): the replay runs to the record's seq. nil when the log
    /// holds no record. `progress` as in `replay`.
    package static func replayDiff(_ log: EventLog, sources: SourceRegistry,
                                  progress: (_ seq: UInt64, _ last: UInt64) -> Void = { _, _ in }) throws -> ReplayDiff? {
        try ReplayDiff.compute(record: log.loadViewRecord(), events: { seq in try Store.eventSummaries(of: log, upTo: seq) }) { seq in try replay(log, sources: sources, to: seq, progress: progress).state }
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
public enum StoreUsageError: Error, Equatable, CustomStringConvertible {
    /// The store was opened without a fetcher, and a fetch was asked of it.
    case noFetcher
    /// `Store.open(at:)` takes a file URL naming the store's directory.
    case notADirectory(String)
    /// An intent of a source that keeps no slice in this store: it would change nothing.
    case noSlice(String)
    /// What was misused and what to do instead.
    public var description: String {
        switch self {
        case .noFetcher: "this store was opened without a fetcher, so it cannot fetch"
        case .noSlice(let source):
            "\(source) keeps no slice in this store, so its intent would change nothing: open the store with the source's plug-in in its SourceRegistry"
        case .notADirectory(let url): "\(url) is not a directory: give Store.open a file URL, e.g. URL(filePath: \"data.fetchlog\")"
        }
    }
}
