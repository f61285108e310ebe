import FetchlogLMDB
import Foundation

/// `log export` and `log import`: the log as NDJSON, one event a line; merging logs.
extension EventLog {
    /// Writes every event from `seq` on, one canonical JSON line each, each naming its
    /// origin (this store and the seq for its own events). Stops with `ExportCancelled`
    /// between two events when the calling task is cancelled (Ctrl-C). Returns the last seq
    /// written (0 when none): what `export --since` takes next time.
    @discardableResult
    package func exportNDJSON(from seq: UInt64 = 1, to write: (String) throws -> Void) throws -> UInt64 {
        var written: UInt64?
        let store = metadata.storeID
        try scan(from: seq, batchSize: 64) { event in
            if Task.isCancelled { throw ExportCancelled(lastWritten: written) }
            try write(EventJSON.line(for: event, store: store) + "\n")
            written = event.seq
            return true
        }
        return written ?? 0
    }

    /// Imports an NDJSON export; returns how many events were added.
    @discardableResult
    package func importNDJSON(path file: String, progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) throws -> Int {
        try merge(path: file, progress: progress).imported
    }

    /// Merges an NDJSON export into this store: every event it does not hold yet is
    /// appended (in the file's order), each keeping its origin; events it holds — its own,
    /// or merged before, by origin — are skipped. So importing one export twice, or A's
    /// into B and then B's into A, adds nothing the second time, and two stores that
    /// exchanged exports both ways hold the same set of events.
    ///
    /// All or nothing: the whole file is checked first (JSON, fields, checksums), so a bad
    /// line imports nothing; then everything is written in ONE write transaction of its own
    /// (LMDB spills a large transaction's pages to the file before the commit, none of them
    /// reachable until it commits, so a process killed mid-import leaves the store as it was).
    ///
    /// An export with lines that name no origin (made before origins, or a salvage standing
    /// in for lost events) is a whole log, seqs 1, 2, 3 … with no gap, and imports only into
    /// an empty store: its lines without an origin become that store's own events.
    ///
    /// `progress` is called as lines are checked (total unknown) and as events are
    /// written (of the total), for a progress display.
    package func merge(path file: String, progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) throws -> ImportSummary {
        var expected: UInt64 = 1
        var withOrigin = 0
        var lines = 0
        var gap: ImportError?
        try forEachLine(of: file) { number, line in
            let event = try Self.parseLine(line, number: number)
            lines += 1
            if event.origin != nil { withOrigin += 1 }
            if gap == nil, event.seq != expected {
                gap = ImportError(line: number, reason: "seq \(event.seq) where \(expected) was expected (an export with lines that name no origin is a whole log, gap-free from 1)")
            }
            expected = event.seq + 1
            if number % 256 == 0 { progress(ImportProgress(phase: .checking, events: number, total: nil, bytes: 0)) }
        }
        // A line without an origin (an export of an earlier build, a salvage's stand-in for
        // a lost event) cannot be matched against what the store holds: such a file is a
        // whole log, restored into an empty store (the lines with an origin keep it).
        let merging = withOrigin == lines
        if !merging {
            if let gap { throw gap }
            let last = try lastSeq()
            guard last == 0 else { throw StoreError.notEmpty(path: path, lastSeq: last) }
        }
        let total = lines
        let storePath = path
        let ownStore = metadata.storeID
        nonisolated(unsafe) var summary = ImportSummary(lines: total)
        _ = try writeExclusive { txn, databases, tally in
            summary = ImportSummary(lines: total)
            let events = databases.events
            // The next seq and (for an export without origins) the emptiness are read
            // inside the transaction: nothing can be appended between this and the commit.
            let last = try txn.withCursor(events) { cursor in try cursor.get(.last).flatMap { SequenceKey.decode($0.key) } } ?? 0
            if !merging, last != 0 { throw StoreError.notEmpty(path: storePath, lastSeq: last) }
            var next = last + 1
            var bytes = 0
            var seen = 0
            try forEachLine(of: file) { number, line in
                var event = try Self.parseLine(line, number: number)
                seen += 1
                do { try EnvelopeCodec.validate(event) } catch let error as EnvelopeError { throw StoreError.invalidEvent(reason: error) }
                if merging, let origin = event.origin {
                    if origin.store == ownStore {
                        // This store's own event coming back: it must be the one held here.
                        try Self.checkOwn(event, origin: origin, line: number, txn: txn, events: events)
                        summary.alreadyHeld += 1
                        return
                    }
                    if try OriginKey.bytes(origin).withUnsafeBytes({ try txn.get(databases.origins, key: $0) }) != nil {
                        summary.alreadyHeld += 1
                        return
                    }
                } else {
                    if event.origin?.store == ownStore { event.origin = nil }
                    // The file may have changed since it was checked: the seqs are checked again.
                    guard event.seq == next else {
                        throw ImportError(line: number, reason: "seq \(event.seq) where \(next) was expected (the file changed during the import)")
                    }
                }
                // Every event from another store is found by its origin from now on.
                if let origin = event.origin {
                    try OriginKey.bytes(origin).withUnsafeBytes { k in
                        try SequenceKey.with(next) { try txn.put(databases.origins, key: k, value: $0) }
                    }
                }
                event.seq = next
                let size = try databases.append(event, in: &txn)
                next += 1
                summary.imported += 1
                bytes += event.body?.count ?? 0
                tally.events += 1
                tally.bytes += size
                if seen % 256 == 0 { progress(ImportProgress(phase: .writing, events: seen, total: total, bytes: bytes)) }
            }
            // Fewer lines than were checked (the file shrank, or could be read only once):
            // nothing of it is committed.
            guard seen == total else {
                throw ImportError(line: seen + 1, reason: "the file changed during the import (\(seen) events where the check read \(total))")
            }
            progress(ImportProgress(phase: .writing, events: seen, total: total, bytes: bytes))
            summary.firstSeq = last + 1
            summary.lastSeq = next - 1
            return last + 1 ..< next
        }
        return summary
    }

    /// An event of this store's own, as an export names it, must be the event held at its
    /// seq: else the export comes from a copy of this store's directory (same store id)
    /// that went on by itself, and merging it would silently drop its events.
    private static func checkOwn(_ event: Event, origin: Event.Origin, line: Int, txn: borrowing WriteTransaction, events: Database) throws {
        guard let raw = try txn.get(events, seq: origin.seq), let held = try? StoredEvent(copying: raw, lookingUpBody: false) else {
            throw ImportError(line: line, reason: "it is event \(origin.seq) of this very store (id \(origin.store)), which holds no such event: the export comes from a copy of this store's directory, which has the same id. Import it into a new store instead")
        }
        guard held.kind == event.kind, held.recordedAt == event.recordedAt, held.source == event.source, held.label == event.label else {
            throw ImportError(line: line, reason: "it is event \(origin.seq) of this very store (id \(origin.store)), but not the event held there: the export comes from a copy of this store's directory, which has the same id. Import it into a new store instead")
        }
    }

    static func parseLine(_ line: [UInt8], number: Int) throws -> Event {
        do {
            return try EventJSON.event(from: try JSONValue.parse(bytes: line))
        } catch let error as JSONParseError {
            throw ImportError(line: number, reason: error.description)
        } catch let error as EventJSONError {
            throw ImportError(line: number, reason: error.description)
        }
    }
}

/// What a merge did: lines read, events added (with the seqs they got) and events skipped
/// because this store held them already.
package struct ImportSummary: Sendable, Equatable {
    package var lines: Int
    package var imported = 0
    package var alreadyHeld = 0
    /// The seqs the added events got; 0…0 when none was added.
    package var firstSeq: UInt64 = 0
    package var lastSeq: UInt64 = 0
    package init(lines: Int) { self.lines = lines }
}

/// The `origins` key of an event merged from another store.
enum OriginKey {
    static func bytes(_ origin: Event.Origin) -> [UInt8] {
        Array(origin.store.utf8) + [0] + withUnsafeBytes(of: origin.seq.bigEndian) { Array($0) }
    }
}

/// How far an import is: lines checked, then events written of the total.
package struct ImportProgress: Sendable, Equatable {
    package enum Phase: Sendable { case checking, writing }
    package let phase: Phase
    package let events: Int
    package let total: Int?
    /// Body bytes written so far.
    package let bytes: Int
}

/// Why an NDJSON file was refused by `log import` (nothing was imported).
package struct ImportError: Error, CustomStringConvertible, Sendable {
    package let line: Int
    package let reason: String
    package var description: String { "line \(line): \(reason). Nothing was imported; fix or re-export the file." }
}

/// Calls `body` with each non-empty line (without its newline), numbered from 1.
func forEachLine(of path: String, _ body: (Int, [UInt8]) throws -> Void) throws {
    guard let handle = FileHandle(forReadingAtPath: path) else {
        throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
    }
    defer { try? handle.close() }
    var pending: [UInt8] = []
    var number = 0
    while true {
        let chunk = try handle.read(upToCount: 4 << 20) ?? Data()
        if chunk.isEmpty { break }
        pending.append(contentsOf: chunk)
        var start = 0
        while let newline = pending[start...].firstIndex(of: 0x0A) {
            number += 1
            if newline > start { try body(number, Array(pending[start ..< newline])) }
            start = newline + 1
        }
        pending.removeSubrange(0 ..< start)
    }
    if !pending.isEmpty {
        number += 1
        try body(number, pending)
    }
}
