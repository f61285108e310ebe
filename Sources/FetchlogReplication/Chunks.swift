import FetchlogCore
import FetchlogNATS
import Foundation

/// Records too big for one message (the server's `max_payload`, 1 MB by default; a census
/// body is 400 KB, a manifest's page can be several MB).
///
/// The record is split into chunks published first, each acked, into a stream of their own
/// (`<stream>_CHUNKS`, subjects `fetchlog.chunks.>`), so the events stream keeps one
/// message per event and its seqs stay the stores' seqs. The event's own message then
/// carries no data, only headers: how many chunks, where, the record's size and SHA-256.
/// Applying reassembles the chunks and checks size and digest: a torn sequence (a chunk
/// missing or changed) is refused by name and never applied. Chunk message ids are the
/// event's id and the chunk's index, so a retried publish stores each chunk once.
enum Chunks {
    static let countHeader = "Fetchlog-Chunks"
    static let subjectHeader = "Fetchlog-Chunk-Subject"
    static let sizeHeader = "Fetchlog-Record-Size"
    static let digestHeader = "Fetchlog-Record-SHA256"
    static let subjectPrefix = "fetchlog.chunks."

    static func stream(of events: String) -> String { events + "_CHUNKS" }

    /// The largest chunk: the connection's max payload less room for the headers.
    static func limit(_ nats: NATSConnection) -> Int { max(16 << 10, nats.maxPayload - (8 << 10)) }

    /// What the event message carries for `record`: the record itself when it fits, else
    /// (after publishing its chunks) no data and the headers that say where they are.
    static func prepare(record: [UInt8], id: String, events: String, nats: NATSConnection) throws -> (data: [UInt8], headers: [(String, String)]) {
        let limit = limit(nats)
        guard record.count > limit else { return (record, []) }
        let info = try nats.streamInfo(events)
        _ = try nats.ensureStream(name: stream(of: events), subjects: [subjectPrefix + ">"], replicas: info.replicas,
                                  duplicateWindow: info.duplicateWindow)
        let subject = subjectPrefix + Replication.subjectToken(id)
        let count = (record.count + limit - 1) / limit
        for index in 0 ..< count {
            let part = Array(record[index * limit ..< min(record.count, (index + 1) * limit)])
            _ = try nats.publish(subject: "\(subject).\(index)", data: part, messageID: "\(id)#\(index)")
        }
        return ([], [(countHeader, String(count)), (subjectHeader, subject), (sizeHeader, String(record.count)),
                     (digestHeader, SHA256.hex(digest: SHA256.digest(record)))])
    }

    /// The record an event message carries: its data, or its chunks reassembled and checked.
    static func record(of message: NATSConnection.StoredMessage, events: String, nats: NATSConnection) throws -> [UInt8] {
        guard let countText = message.headers[countHeader] else { return message.data }
        func torn(_ why: String) -> ReplicationError {
            ReplicationError("the event at seq \(message.seq) of stream \(events) is split into chunks, and \(why): a torn chunk sequence is never applied. The store stays at seq \(message.seq - 1); if the chunks are gone for good, the event is lost from the stream and a replica cannot pass it")
        }
        guard let count = Int(countText), count > 0, let subject = message.headers[subjectHeader],
              let size = message.headers[sizeHeader].flatMap({ Int($0) }), let digest = message.headers[digestHeader] else {
            throw torn("its headers do not say where they are (\(message.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")))")
        }
        var record: [UInt8] = []
        record.reserveCapacity(size)
        for index in 0 ..< count {
            guard let chunk = try nats.lastMessage(stream: stream(of: events), subject: "\(subject).\(index)") else {
                throw torn("chunk \(index + 1) of \(count) (\(subject).\(index)) is missing from stream \(stream(of: events))")
            }
            record += chunk.data
        }
        guard record.count == size, SHA256.hex(digest: SHA256.digest(record)) == digest else {
            throw torn("the \(count) chunks make \(record.count) bytes with another SHA-256 than the \(size) bytes the event names")
        }
        return record
    }
}
