import FetchlogLMDB
import Foundation

/// `log export` and `log import`: the log as NDJSON, one event a line.
extension EventLog {
    /// Writes every event from `seq` on, one canonical JSON line each. Stops with
    /// `ExportCancelled` between two events when the calling task is cancelled (Ctrl-C).
    public func exportNDJSON(from seq: UInt64 = 1, to write: (String) throws -> Void) throws {
        var written: UInt64?
        try scan(from: seq, batchSize: 64) { event in
            if Task.isCancelled { throw ExportCancelled(lastWritten: written) }
            try write(EventJSON.line(for: event) + "\n")
            written = event.seq
            return true
        }
    }

    /// Imports an NDJSON export into this store, which must be empty: all or nothing.
    ///
    /// The whole file is checked first (JSON, fields, checksums, seqs 1, 2, 3 … with no
    /// gap), so a bad line imports nothing. Then every event is written in ONE write
    /// transaction of its own, which first checks that the log is empty: two imports racing
    /// into one empty store, or an import racing a fetch, cannot both land (the second finds
    /// the log not empty and writes nothing), and a process killed mid-import leaves the
    /// store as it was (LMDB spills a large transaction's pages to the file before the
    /// commit; none of them is reachable until it commits).
    /// `progress` is called as lines are checked (total unknown) and as events are
    /// written (of the total), for a progress display.
    @discardableResult
    public func importNDJSON(path file: String, progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) throws -> Int {
        let last = try lastSeq()
        guard last == 0 else { throw StoreError.notEmpty(path: path, lastSeq: last) }
        var expected: UInt64 = 1
        try forEachLine(of: file) { number, line in
            let event = try Self.parseLine(line, number: number)
            guard event.seq == expected else {
                throw ImportError(line: number, reason: "seq \(event.seq) where \(expected) was expected (an export is gap-free from 1)")
            }
            expected += 1
            if number % 256 == 0 { progress(ImportProgress(phase: .checking, events: number, total: nil, bytes: 0)) }
        }
        let total = Int(expected - 1)
        let storePath = path
        let range = try writeExclusive { txn, databases, tally in
            let events = databases.events
            // Inside the transaction: nothing can be appended between this check and the commit.
            if try txn.withCursor(events, { try $0.get(.last) }) != nil {
                let lastSeq = try txn.withCursor(events) { cursor in try cursor.get(.last).flatMap { SequenceKey.decode($0.key) } } ?? 0
                throw StoreError.notEmpty(path: storePath, lastSeq: lastSeq)
            }
            var seq: UInt64 = 0
            var bytes = 0
            try forEachLine(of: file) { number, line in
                var event = try Self.parseLine(line, number: number)
                // The file may have changed since it was checked: the seqs are checked again.
                guard event.seq == seq + 1 else {
                    throw ImportError(line: number, reason: "seq \(event.seq) where \(seq + 1) was expected (the file changed during the import)")
                }
                do { try EnvelopeCodec.validate(event) } catch let error as EnvelopeError { throw StoreError.invalidEvent(reason: error) }
                seq = event.seq
                event.seq = seq
                let size = try databases.append(event, in: &txn)
                bytes += event.body?.count ?? 0
                tally.events += 1
                tally.bytes += size
                if seq % 256 == 0 { progress(ImportProgress(phase: .writing, events: Int(seq), total: total, bytes: bytes)) }
            }
            // Fewer lines than were checked (the file shrank, or could be read only once):
            // nothing of it is committed.
            guard seq == UInt64(total) else {
                throw ImportError(line: Int(seq) + 1, reason: "the file changed during the import (\(seq) events where the check read \(total))")
            }
            progress(ImportProgress(phase: .writing, events: Int(seq), total: total, bytes: bytes))
            return 1 ..< seq + 1
        }
        return range.count
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

/// How far an import is: lines checked, then events written of the total.
public struct ImportProgress: Sendable, Equatable {
    public enum Phase: Sendable { case checking, writing }
    public let phase: Phase
    public let events: Int
    public let total: Int?
    /// Body bytes written so far.
    public let bytes: Int
}

/// Why an NDJSON file was refused by `log import` (nothing was imported).
public struct ImportError: Error, CustomStringConvertible, Sendable {
    public let line: Int
    public let reason: String
    public var description: String { "line \(line): \(reason). Nothing was imported; fix or re-export the file." }
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
