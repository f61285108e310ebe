import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogNATS
@testable import FetchlogReplication
@testable import FetchlogSources

/// Events bigger than the server's `max_payload` (1 MB by default) replicate in chunks:
/// seeding, writing through the stream and following all carry a 3.3 MB census whole, and
/// a torn chunk sequence is refused by name and never applied. Real `nats-server -js`.
extension NATSSuites { @Suite struct ChunkedRecordsTests {
    /// The recorded census eight times over (ids made unique): 10,696 gnomes, 3.3 MB.
    static func bigCensus() throws -> [UInt8] {
        let census = try JSONSerialization.jsonObject(with: Data(Fixture.bytes("brastlewark/census.json"))) as! [String: [[String: Any]]]
        let gnomes = census["Brastlewark"]!
        var all: [[String: Any]] = []
        for round in 0 ..< 8 {
            for var gnome in gnomes {
                gnome["id"] = (gnome["id"] as! Int) + round * gnomes.count
                all.append(gnome)
            }
        }
        return [UInt8](try JSONSerialization.data(withJSONObject: ["Brastlewark": all], options: [.sortedKeys]))
    }

    static func censusEvent(_ body: [UInt8], at seconds: Int64) -> Event {
        Event(recordedAt: Timestamp(milliseconds: 1_795_000_000_000 + seconds * 1000), kind: .fetched, source: "brastlewark", label: "/data.json",
              durationMicros: 1000, request: Event.Request(url: "http://127.0.0.1:1/brastlewark/data.json"),
              response: Event.Response(status: 200, headers: [Header("Content-Type", "application/json")]), body: body)
    }

    @Test func aBodyOverMaxPayloadReplicatesWholeAndATornSequenceIsNeverApplied() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let dir = TemporaryDirectory("replicate-chunks")
        let body = try Self.bigCensus()
        #expect(body.count > 3_000_000)
        let a = try openStore(in: dir, id: "store-a")
        let b = try openStore(in: dir, id: "store-b")
        defer { a.close(); b.close() }
        _ = try await offPool { try a.appendBlocking(contentsOf: [try CompactionTests.fetched("tvmaze", "/shows?page=0", "tvmaze/shows-page-0-2019.json", at: 1),
                                                                  Self.censusEvent(body, at: 2)]) }
        let nats = try NATSConnection(servers: [server.url])
        #expect(nats.maxPayload == 1_048_576)
        // Seeding: the census (seq 2) goes in 4 chunks of at most 1 MB less 8 KiB.
        #expect(try await offPool { try Replication.attach(a, nats: nats) } == .seeded(events: 2))
        let events = try nats.streamInfo("FETCHLOG")
        #expect((events.messages, events.lastSeq) == (2, 2))
        let chunks = try nats.streamInfo("FETCHLOG_CHUNKS")
        #expect(chunks.messages == UInt64((body.count + Chunks.limit(nats) - 1) / Chunks.limit(nats)))
        #expect(chunks.messages == 4)
        let held = try #require(try nats.message(stream: "FETCHLOG", seq: 2))
        #expect(held.data.isEmpty)
        #expect(held.headers["Fetchlog-Chunks"] == "4")

        // A replica follows and holds the census byte for byte at the same seq.
        #expect(try await offPool { try Replication.attach(b, nats: nats) } == .replica(behind: 2))
        #expect(try await offPool { try Replication.catchUp(b, nats: nats, stream: "FETCHLOG") } == 2)
        #expect(try b.event(at: 2)?.body == body)

        // Writing through the stream: B's own 3.3 MB event comes back whole (read-your-writes).
        try Replication.routeAppendsIfAttached(b)
        let seq = try await b.append(Self.censusEvent(body + Array(" ".utf8), at: 3))
        #expect(seq == 3)
        #expect(try b.event(at: 3)?.body == body + Array(" ".utf8))
        #expect(try nats.streamInfo("FETCHLOG_CHUNKS").messages == 8)
        #expect(try await offPool { try Replication.catchUp(a, nats: nats, stream: "FETCHLOG") } == 1)
        #expect(try a.event(at: 3)?.body == body + Array(" ".utf8))

        // A third store follows after one chunk of seq 3 was removed: it applies seqs 1 and
        // 2, refuses seq 3 by name, and holds nothing of it.
        let lastChunk = try #require(try nats.lastMessage(stream: "FETCHLOG_CHUNKS", subject: "fetchlog.chunks.store-b_1.2"))
        try nats.deleteMessage(stream: "FETCHLOG_CHUNKS", seq: lastChunk.seq)
        let c = try openStore(in: dir, id: "store-c")
        defer { c.close() }
        #expect(try await offPool { try Replication.attach(c, nats: nats) } == .replica(behind: 3))
        let refusal = await #expect(throws: ReplicationError.self) { try await offPool { try Replication.catchUp(c, nats: nats, stream: "FETCHLOG") } }
        #expect(refusal?.description == "the event at seq 3 of stream FETCHLOG is split into chunks, and chunk 3 of 4 (fetchlog.chunks.store-b_1.2) is missing from stream FETCHLOG_CHUNKS: a torn chunk sequence is never applied. The store stays at seq 2; if the chunks are gone for good, the event is lost from the stream and a replica cannot pass it")
        #expect(try c.lastSeq() == 2)
        #expect(try c.event(at: 2)?.body == body)
    }
}}
