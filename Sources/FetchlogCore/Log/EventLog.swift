import Foundation
import FetchlogLMDB

/// The append-only event log of one store directory.
///
/// Writes go through one writer thread (`LogWriter`), which coalesces every append
/// waiting at that moment into one durable transaction (group commit). Reads open a
/// short read transaction, copy the events out, and end it before returning.
/// Several processes may open the same store: LMDB's writer lock orders their
/// appends, and each append takes the next seq from the log itself.
package final class EventLog: Sendable {
    package struct Options: Sendable {
        /// The initial map size; the map doubles whenever it fills, so this only sets
        /// how soon the first growth happens.
        package var initialMapSize: Int = 64 << 20
        /// Skip fsync at commit (benchmarks only: loses durability on power failure).
        package var unsafeNoSync = false
        /// Identity and creation time for a new store (tests pin them).
        package var newStoreID: String? = nil
        package var clock: any WallClock = SystemClock()
        package init() {}
    }

    package let path: String
    package let metadata: StoreMetadata
    let environment: Environment
    let events: Database
    let meta: Database
    /// State derived from the log, kept beside it in the same environment so it is written
    /// atomically with what it covers. The log only opens it; what goes in (the store's
    /// checkpoints, `Store/Checkpoint.swift`) is the store layer's.
    package let derived: Database
    /// Bodies by SHA-256, each stored once (format 2).
    let bodies: Database
    /// Merged events by origin (format 3).
    let origins: Database
    private let writer: LogWriter
    /// Where `append` goes instead of the writer, when the log is a replica (`LogRoute.swift`).
    let routing = AppendRouting()
    /// The outbox database, once opened (`Outbox.swift`).
    let outboxHandle = OutboxHandle()

    /// Opens (creating when new) the store at `path`. A directory that is not a
    /// Fetchlog store, or one this build cannot read, is refused unchanged.
    ///
    /// Processes opening one store at once take turns (an exclusive `flock` on the store
    /// directory, held from the probe until the metadata is committed), so none of them
    /// probes a store another is half-way through creating. The directory is made 0700 and
    /// its files 0600; tightening an existing store's modes is reported in `notes`.
    package static func open(at path: String, options: Options = Options()) throws -> EventLog {
        let lock = try StoreOpening.lock(path)
        defer { lock.release() }
        _ = try StoreProbe.check(path)
        let leftover = StoreRewrite.removeLeftover(path)
            ? ["removed \(StoreRewrite.temporaryName), left by a \(FrontEndTerm.rewriteCompaction) that did not finish (the store is as it was before it)"] : []
        let tightened = leftover + StoreOpening.tightenDirectory(path)
        var envOptions = Environment.Options()
        envOptions.mapSize = options.initialMapSize
        envOptions.maxDatabases = 16
        envOptions.noSync = options.unsafeNoSync
        do {
            let env = try Environment(path: path, options: envOptions)
            let inUse = try InUseLock(path: path, exclusive: false)
            return try EventLog(environment: env, inUse: inUse, path: path, options: options, notes: lock.notes + tightened + StoreOpening.tightenFiles(path))
        } catch let error as LMDBError {
            throw StoreError.lmdb(error)
        }
    }

    /// What opening the store did that the user should know (modes tightened).
    package let notes: [String]

    /// Held while this store is open: `log compact --rewrite` waits for no open store.
    private let inUse: InUseLock

    private init(environment: Environment, inUse: InUseLock, path: String, options: Options, notes: [String]) throws {
        self.inUse = inUse
        self.notes = notes
        self.environment = environment
        self.path = path
        // An existing store is opened with a read transaction only, so opening never waits
        // for another process's write (a long import holds LMDB's write lock throughout).
        let names = [StoreSchema.eventsName, StoreSchema.metaName, StoreSchema.checkpointsName, StoreSchema.bodiesName, StoreSchema.originsName]
        if let existing = try environment.openExistingDatabases(names),
           let metadata = try Self.readMetadata(environment, meta: existing[1]), metadata.formatVersion >= StoreSchema.formatVersion {
            (events, meta, derived, bodies, origins, self.metadata) = (existing[0], existing[1], existing[2], existing[3], existing[4], metadata)
            writer = LogWriter(environment: environment, databases: LogDatabases(events: events, bodies: bodies, origins: origins))
            return
        }
        // Creating the databases and the metadata is one transaction: a store either
        // has all of it or none (and none is treated as fresh). A store of an older format
        // gains `bodies` (format 2) and `origins` (format 3) and is marked current in the
        // same way (its records read as before).
        let opened = try environment.write { txn -> (Database, Database, Database, Database, Database, StoreMetadata) in
            let events = try txn.openDatabase(StoreSchema.eventsName, create: true)
            let meta = try txn.openDatabase(StoreSchema.metaName, create: true)
            let checkpoints = try txn.openDatabase(StoreSchema.checkpointsName, create: true)
            let bodies = try txn.openDatabase(StoreSchema.bodiesName, create: true)
            let origins = try txn.openDatabase(StoreSchema.originsName, create: true)
            if try txn.get(meta, key: StoreSchema.Key.format) == nil {
                try txn.put(meta, key: StoreSchema.Key.format.text, value: StoreSchema.formatName)
                try txn.put(meta, key: StoreSchema.Key.formatVersion.text, value: String(StoreSchema.formatVersion))
                try txn.put(meta, key: StoreSchema.Key.storeID.text, value: options.newStoreID ?? UUID().uuidString.lowercased())
                try txn.put(meta, key: StoreSchema.Key.createdAt.text, value: options.clock.now().iso8601)
                try txn.put(meta, key: StoreSchema.Key.createdBy.text, value: "fetchlog \(FetchlogVersion.string)")
            } else if let raw = try txn.get(meta, key: StoreSchema.Key.formatVersion),
                      Int(String(decoding: raw, as: UTF8.self)) ?? 0 < StoreSchema.formatVersion {
                try txn.put(meta, key: StoreSchema.Key.formatVersion.text, value: String(StoreSchema.formatVersion))
            }
            func text(_ key: StaticKey) throws -> String {
                guard let raw = try txn.get(meta, key: key) else { return "" }
                return String(decoding: raw, as: UTF8.self)
            }
            let metadata = StoreMetadata(formatVersion: Int(try text(StoreSchema.Key.formatVersion)) ?? 0,
                                         storeID: try text(StoreSchema.Key.storeID),
                                         createdAt: try text(StoreSchema.Key.createdAt),
                                         createdBy: try text(StoreSchema.Key.createdBy),
                                         staleReadersCleared: Int(environment.staleReadersCleared))
            return (events, meta, checkpoints, bodies, origins, metadata)
        }
        (events, meta, derived, bodies, origins, metadata) = opened
        writer = LogWriter(environment: environment, databases: LogDatabases(events: events, bodies: bodies, origins: origins))
    }

    /// A value of the store's `meta` database (UTF-8), for layers that keep a setting
    /// with the store (the replication stream and servers).
    package func metaValue(_ key: String) throws -> String? {
        try read { txn in
            var key = key
            return try key.withUTF8 { try txn.get(meta, key: UnsafeRawBufferPointer($0)).map { String(decoding: $0, as: UTF8.self) } }
        }
    }

    /// Sets `meta` values in one write transaction of their own.
    package func setMetaValues(_ values: [(String, String)]) throws {
        let meta = self.meta
        _ = try writeExclusive { txn, _, _ in
            for (key, value) in values { try txn.put(meta, key: key, value: value) }
            return 0 ..< 0
        }
    }

    /// The metadata of an existing store, nil when it has none yet.
    private static func readMetadata(_ environment: Environment, meta: Database) throws -> StoreMetadata? {
        try environment.read { txn -> StoreMetadata? in
            guard try txn.get(meta, key: StoreSchema.Key.format) != nil else { return nil }
            var values: [String] = []
            for key in [StoreSchema.Key.formatVersion, StoreSchema.Key.storeID, StoreSchema.Key.createdAt, StoreSchema.Key.createdBy] {
                values.append(try txn.get(meta, key: key).map { String(decoding: $0, as: UTF8.self) } ?? "")
            }
            return StoreMetadata(formatVersion: Int(values[0]) ?? 0, storeID: values[1], createdAt: values[2], createdBy: values[3],
                                 staleReadersCleared: Int(environment.staleReadersCleared))
        }
    }

    deinit {
        writer.stop()
        inUse.release()
    }

    /// Stops the writer thread after the appends already submitted, and lets the store be
    /// rewritten (`log compact --rewrite`): use no more of this log after it.
    package func close() {
        writer.stop()
        inUse.release()
    }

    // MARK: Appending

    /// Appends one event durably and returns its seq. Concurrent callers share commits.
    @discardableResult
    package func append(_ event: Event) async throws -> UInt64 {
        try await append(contentsOf: [event]).lowerBound
    }

    /// Appends the events in one transaction: all of them or none. Returns their seqs.
    @discardableResult
    package func append(contentsOf events: [Event]) async throws -> Range<UInt64> {
        try validate(events)
        if let route = routing.route { return try await route.append(events, to: self) }
        return try await withCheckedThrowingContinuation { continuation in
            writer.submit(events) { continuation.resume(with: $0) }
        }
    }

    /// Runs `body` on the writer thread in a write transaction of its own (or shared
    /// with appends waiting at that moment). For derived data such as checkpoints.
    func write(_ body: @escaping @Sendable (inout WriteTransaction) throws -> Void) async throws {
        _ = try await withCheckedThrowingContinuation { continuation in
            writer.submit([], extra: body) { continuation.resume(with: $0) }
        }
    }

    /// The blocking form of `append(contentsOf:)`, for callers outside async code (always
    /// to this log's own writer, also when appends are routed). Never call it from the writer thread.
    @discardableResult
    package func appendBlocking(contentsOf events: [Event]) throws -> Range<UInt64> {
        try validate(events)
        return try waitForWriter { writer.submit(events, completion: $0) }
    }

    /// Runs `body` on the writer thread in a write transaction of its own and waits.
    func writeExclusive(_ body: @escaping LogWriter.Exclusive) throws -> Range<UInt64> {
        try waitForWriter { writer.submitExclusive(body, completion: $0) }
    }

    /// Submits through `submit` and blocks this (non-writer) thread until the writer is done.
    private func waitForWriter(_ submit: (@escaping @Sendable (Result<Range<UInt64>, any Error>) -> Void) -> Void) throws -> Range<UInt64> {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<Range<UInt64>, any Error>!
        submit {
            outcome = $0
            done.signal()
        }
        done.wait()
        return try outcome.get()
    }

    func validate(_ events: [Event]) throws {
        for event in events {
            do { try EnvelopeCodec.validate(event) } catch { throw StoreError.invalidEvent(reason: error) }
        }
    }

    /// Commits and events so far (group commit makes commits < events under load).
    package var writerStatistics: LogWriter.Statistics { writer.statistics }

    // MARK: Reading

    /// The last seq in the log (0 when empty).
    package func lastSeq() throws -> UInt64 {
        try read { txn in try txn.withCursor(events) { cursor in
            guard let last = try cursor.get(.last) else { return 0 }
            return SequenceKey.decode(last.key) ?? 0
        } }
    }

    package func count() throws -> Int { try read { txn in try txn.count(events) } }

    /// The event at `seq`, nil when there is none.
    package func event(at seq: UInt64) throws -> Event? {
        try read { txn in
            guard let raw = try txn.get(events, seq: seq) else { return nil }
            return try Self.decode(raw, seq: seq, body: bodyLookup(txn))
        }
    }

    /// The record at `seq`, verified and copied, decoded no further; nil when there is none.
    /// `lookingUpBody: false` leaves a body stored apart unread (its header only).
    package func storedEvent(at seq: UInt64, lookingUpBody: Bool = true) throws -> StoredEvent? {
        try read { txn -> StoredEvent? in
            guard let raw = try txn.get(events, seq: seq) else { return nil }
            do {
                return try StoredEvent(copying: raw, lookup: bodyLookup(txn), lookingUpBody: lookingUpBody)
            } catch let error as EnvelopeError {
                throw StoreError.damagedRecord(seq: seq, reason: error)
            }
        }
    }

    /// Events whose seq lies in `range`, in order.
    package func events(in range: ClosedRange<UInt64>) throws -> [Event] {
        let span = range.upperBound - range.lowerBound
        return try events(from: range.lowerBound, limit: span >= UInt64(Int.max) ? Int.max : Int(span) + 1)
    }

    /// Up to `limit` events from `seq` on, in order.
    package func events(from seq: UInt64, limit: Int = .max) throws -> [Event] {
        var result: [Event] = []
        try scan(from: seq) { event in
            result.append(event)
            return result.count < limit
        }
        return result
    }

    /// The last `count` events, in order.
    package func tail(_ count: Int) throws -> [Event] {
        let last = try lastSeq()
        guard last > 0, count > 0 else { return [] }
        let first = last >= UInt64(count) ? last - UInt64(count) + 1 : 1
        return try events(in: first ... last)
    }

    /// Calls `body` for each event from `seq` to the end, or until it returns false.
    /// Events are read in batches, each in its own short read transaction, and `body`
    /// runs outside any transaction.
    package func scan(from seq: UInt64 = 1, batchSize: Int = 256, _ body: (Event) throws -> Bool) throws {
        try scanStored(from: seq, batchSize: batchSize) { stored in
            do { return try body(try stored.decode()) } catch let error as EnvelopeError {
                throw StoreError.damagedRecord(seq: stored.seq, reason: error)
            }
        }
    }

    /// Like `scan`, but hands out verified copies of the records and decodes nothing
    /// more: the fast path for readers that look at seq, kind and time first.
    /// `lookingUpBodies: false` leaves bodies stored apart where they are (`decode()` then
    /// fails for such a record): for readers of headers only.
    package func scanStored(from seq: UInt64 = 1, batchSize: Int = 256, lookingUpBodies: Bool = true, _ body: (StoredEvent) throws -> Bool) throws {
        var next = seq
        while true {
            let batch: [StoredEvent] = try read { txn in
                let lookup = bodyLookup(txn)
                return try txn.withCursor(events) { cursor in
                    var out: [StoredEvent] = []
                    out.reserveCapacity(batchSize)
                    var entry = try cursor.seek(seq: next)
                    while let current = entry, out.count < batchSize {
                        guard let key = SequenceKey.decode(current.key) else {
                            throw StoreError.damagedRecord(seq: next, reason: .invalidValue(field: "key", value: "\(current.key.count) bytes"))
                        }
                        let stored: StoredEvent
                        do { stored = try StoredEvent(copying: current.value, lookup: lookup, lookingUpBody: lookingUpBodies) } catch let error as EnvelopeError {
                            throw StoreError.damagedRecord(seq: key, reason: error)
                        }
                        guard stored.seq == key else {
                            throw StoreError.damagedRecord(seq: key, reason: .invalidValue(field: "seq", value: "\(stored.seq) stored under key \(key)"))
                        }
                        out.append(stored)
                        next = key + 1
                        entry = try cursor.get(.next)
                    }
                    return out
                }
            }
            for stored in batch where try !body(stored) { return }
            guard batch.count == batchSize else { return }
        }
    }

    /// Calls `body` with each raw record (seq key as decoded, or nil for a malformed
    /// key) from `seq` on, in batches of short read transactions. The buffers are
    /// valid only during the call. Used by `verify` and `stats`.
    package func scanRaw(from seq: UInt64 = 1, batchSize: Int = 1024,
                        _ body: (_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer) throws -> Bool) throws {
        try scanRaw(from: seq, batchSize: batchSize) { key, record, _ in try body(key, record) }
    }

    /// `scanRaw` with a look-up of the bodies records refer to, valid during the call.
    package func scanRaw(from seq: UInt64 = 1, batchSize: Int = 1024,
                         _ body: (_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer, _ lookup: EnvelopeCodec.BodyLookup) throws -> Bool) throws {
        var resumeKey = [UInt8](withUnsafeBytes(of: seq.bigEndian) { Array($0) })
        var skipFirst = false
        while true {
            let (seen, stop, lastKey): (Int, Bool, [UInt8]) = try read { txn in
                let lookup = bodyLookup(txn)
                return try txn.withCursor(events) { cursor in
                    var seen = 0
                    var lastKey = resumeKey
                    var entry = try resumeKey.withUnsafeBytes { try cursor.get(.setRange, key: $0) }
                    if skipFirst, let current = entry, Array(current.key) == resumeKey { entry = try cursor.get(.next) }
                    while let current = entry, seen < batchSize {
                        seen += 1
                        lastKey = Array(current.key)
                        if try !body(current.key, current.value, lookup) { return (seen, true, lastKey) }
                        entry = try cursor.get(.next)
                    }
                    return (seen, entry == nil, lastKey)
                }
            }
            if stop || seen == 0 { return }
            resumeKey = lastKey
            skipFirst = true
        }
    }

    /// A body stored apart, by its SHA-256; nil when the store does not hold it.
    package func body(sha256 digest: [UInt8]) throws -> [UInt8]? {
        try read { txn in try digest.withUnsafeBytes { try txn.get(bodies, key: $0).map { Array($0) } } }
    }

    /// The raw stored bytes of one record.
    package func rawRecord(at seq: UInt64) throws -> [UInt8]? {
        try read { txn in try txn.get(events, seq: seq).map { Array($0) } }
    }

    /// Finds bodies in `bodies` within the read transaction `txn` (copied out).
    private func bodyLookup(_ txn: borrowing ReadTransaction) -> EnvelopeCodec.BodyLookup {
        let get = txn.unsafeGetter(bodies)
        return { digest in get(digest).map { Array($0) } }
    }

    static func decode(_ raw: UnsafeRawBufferPointer, seq: UInt64, body lookup: EnvelopeCodec.BodyLookup = { _ in nil }) throws -> Event {
        do {
            let event = try EnvelopeCodec.decode(raw, body: lookup)
            guard event.seq == seq else {
                throw StoreError.damagedRecord(seq: seq, reason: .invalidValue(field: "seq", value: "\(event.seq) stored under key \(seq)"))
            }
            return event
        } catch let error as EnvelopeError {
            throw StoreError.damagedRecord(seq: seq, reason: error)
        }
    }

    func read<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        do { return try environment.read(body) } catch let error as LMDBError { throw StoreError.lmdb(error) }
    }

    /// Facts about the LMDB environment (map size, page size, readers).
    package var environmentInfo: Environment.Info { environment.info }

    /// The raw environment, for tools that compare against liblmdb directly.
    package var lmdbEnvironment: Environment { environment }
}

/// What a store says about itself: its id, format and when it was created.
package struct StoreMetadata: Sendable, Equatable {
    package let formatVersion: Int
    package let storeID: String
    package let createdAt: String
    package let createdBy: String
    package let staleReadersCleared: Int
}

/// The version of this build, as `--version` and the User-Agent say it.
package enum FetchlogVersion {
    package static let string = "0.1.0"
}
