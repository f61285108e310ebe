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

    /// Imports an NDJSON export into this store, which must be empty. The whole file is
    /// checked first (JSON, fields, checksums, seqs 1, 2, 3 … with no gap), so a bad
    /// line leaves the store empty; then events are appended in batches.
    /// `progress` is called as lines are checked (`checked`, total unknown) and as
    /// events are written (`written` of `total`), for a progress display.
    @discardableResult
    public func importNDJSON(path file: String, progress: (ImportProgress) -> Void = { _ in }) throws -> Int {
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
        var writtenBytes = 0
        var batch: [Event] = []
        var batchBytes = 0
        var imported = 0
        func flush() throws {
            guard !batch.isEmpty else { return }
            try appendBlocking(contentsOf: batch)
            imported += batch.count
            writtenBytes += batchBytes
            progress(ImportProgress(phase: .writing, events: imported, total: total, bytes: writtenBytes))
            batch.removeAll(keepingCapacity: true)
            batchBytes = 0
        }
        try forEachLine(of: file) { number, line in
            let event = try Self.parseLine(line, number: number)
            batchBytes += event.body?.count ?? 0
            batch.append(event)
            if batch.count >= 1000 || batchBytes >= 32 << 20 { try flush() }
        }
        try flush()
        return imported
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
