import FetchlogLMDB
import Foundation
import Synchronization

/// The outbox of a replicated store: every event it writes goes here first (durable before
/// any network), under the store's own count `n`, with its origin (store id, n) set. Then
/// it is published on the store's subject with message id `store:n`; when the stream gives
/// it back it is applied at its stream seq and leaves the outbox in the same transaction,
/// so an event is always exactly one of pending or applied. With the stream unreachable
/// the entries wait here, and the store's views show them on top of the log, pending.
///
/// The own count never repeats: `outbox-last` in `meta` holds the highest one given out
/// (the seeding store starts past the seqs it seeded, whose own counts are their seqs).
extension EventLog {
    static let outboxLastKey = "outbox-last"

    /// The outbox database, opened (created) on first use in a write transaction: LMDB
    /// opens a named database once per process, from one transaction at a time.
    private func outbox() throws -> Database {
        if let database = outboxHandle.database { return database }
        return try outboxHandle.opening {
            nonisolated(unsafe) var opened: Database?
            _ = try writeExclusive { txn, _, _ in
                opened = try txn.openDatabase(StoreSchema.outboxName, create: true)
                return 0 ..< 0
            }
            return opened!
        }
    }

    /// Puts `events` in the outbox in one transaction, each with the next own count and its
    /// origin; returns the counts. `floor`: counts at or below it are taken (a seeding).
    package func outboxAdd(_ events: [Event], floor: UInt64 = 0) throws -> [UInt64] {
        try validate(events)
        let outbox = try outbox()
        let meta = self.meta
        let store = metadata.storeID
        let range = try writeExclusive { txn, _, tally in
            var key = Self.outboxLastKey
            let held = try key.withUTF8 { try txn.get(meta, key: UnsafeRawBufferPointer($0)) }.flatMap { UInt64(String(decoding: $0, as: UTF8.self)) } ?? 0
            let first = max(held, floor) + 1
            var own = first
            for var event in events {
                event.seq = 0
                event.origin = Event.Origin(store: store, seq: own)
                let record = EnvelopeCodec.encode(event)
                try SequenceKey.with(own) { k in try record.withUnsafeBytes { try txn.put(outbox, key: k, value: $0) } }
                tally.bytes += record.count
                own += 1
            }
            try txn.put(meta, key: Self.outboxLastKey, value: String(own - 1))
            return first ..< own
        }
        return Array(range)
    }

    /// Raises the own count so the next one is past `floor` (a seeding used counts up to it).
    package func outboxReserve(through floor: UInt64) throws {
        let meta = self.meta
        _ = try writeExclusive { txn, _, _ in
            var key = Self.outboxLastKey
            let held = try key.withUTF8 { try txn.get(meta, key: UnsafeRawBufferPointer($0)) }.flatMap { UInt64(String(decoding: $0, as: UTF8.self)) } ?? 0
            if floor > held { try txn.put(meta, key: Self.outboxLastKey, value: String(floor)) }
            return 0 ..< 0
        }
    }

    /// What waits in the outbox, in own-count order: (own count, event with its origin, seq 0).
    package func outboxEntries() throws -> [(own: UInt64, event: Event)] {
        guard isRouted || outboxHandle.database != nil else { return [] }
        let outbox = try outbox()
        return try read { txn in
            try txn.withCursor(outbox) { cursor in
                var entries: [(own: UInt64, event: Event)] = []
                var entry = try cursor.get(.first)
                while let current = entry {
                    let own = SequenceKey.decode(current.key) ?? 0
                    var event = try EnvelopeCodec.decode(current.value)
                    event.seq = 0
                    entries.append((own, event))
                    entry = try cursor.get(.next)
                }
                return entries
            }
        }
    }

    /// How many entries wait in the outbox (no record decoded).
    package func outboxCount() throws -> Int {
        guard isRouted || outboxHandle.database != nil else { return 0 }
        let outbox = try outbox()
        return try read { txn in try txn.count(outbox) }
    }

    /// Removes the entry of own count `own` in a write transaction (inside `applyOrdered`).
    func outboxRemove(_ own: UInt64, in txn: inout WriteTransaction) throws {
        guard let outbox = outboxHandle.database else { return }
        _ = try SequenceKey.with(own) { try txn.delete(outbox, key: $0) }
    }
}

/// The outbox database handle, opened once.
///
/// `opening` runs its body outside the lock (the body waits for the writer thread, which
/// reads `database` while applying): two first uses at once both open, on the writer
/// thread one after the other, and get the same handle.
final class OutboxHandle: Sendable {
    private let handle = Mutex<Database?>(nil)
    var database: Database? { handle.withLock { $0 } }
    func opening(_ open: () throws -> Database) throws -> Database {
        if let held = database { return held }
        let opened = try open()
        handle.withLock { $0 = opened }
        return opened
    }
}
