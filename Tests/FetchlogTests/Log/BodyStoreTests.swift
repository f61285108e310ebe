@testable import FetchlogCore
import FetchlogLMDB
import Foundation
import Testing

/// Bodies stored once (issue 16, part 1): a body is kept in `bodies` under its SHA-256 and
/// every event carrying it refers to it; reading, verifying, exporting and salvaging see the
/// same events as before; a store of the previous format opens and reads as it did.
@Suite struct BodyStoreTests {
    static let census = [UInt8](try! Data(contentsOf: URL(fileURLWithPath: Repo.root + "/Tools/SampleUpstream/Sources/SampleUpstream/Fixtures/brastlewark/census.json")))

    static func fetched(_ body: [UInt8], _ i: Int) -> Event {
        Event(recordedAt: Timestamp(milliseconds: 1_700_000_000_000 + Int64(i) * 900_000), kind: .fetched, source: "brastlewark", label: "/data.json",
              request: Event.Request(url: "https://example.test/data.json"), response: Event.Response(status: 200, headers: []), body: body)
    }

    static func dataFileSize(_ directory: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: directory + "/data.mdb")[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test func aHundredUnchangedBodiesAnsweredWithoutValidatorsCostLessThanTwo() async throws {
        let dir = TemporaryDirectory("bodies-once")
        let log = try EventLog.open(at: dir.path)
        _ = try await log.append(Self.fetched(Self.census, 0))
        let before = try Self.dataFileSize(dir.path)
        for i in 1 ... 100 { _ = try await log.append(Self.fetched(Self.census, i)) }
        let grown = try Self.dataFileSize(dir.path) - before
        #expect(grown < 2 * Self.census.count, "data.mdb grew \(grown) bytes for 100 copies of a \(Self.census.count)-byte body")
        // Every event reads back with the whole body.
        let events = try log.events(from: 1)
        #expect(events.count == 101)
        #expect(events.allSatisfy { $0.body.map { bytesEqual($0, Self.census) } == true })
        #expect(try log.verify().isHealthy)
        let stats = try log.statistics()
        #expect(stats.distinctBodies == 1)
        #expect(stats.distinctBodyBytes == Self.census.count)
        #expect(stats.bodyBytes == 101 * Self.census.count)
        #expect(stats.bodyBytesSaved == 100 * Self.census.count)
        // A small body stays in its record.
        _ = try await log.append(Event(recordedAt: fixedTime, kind: .fetched, source: "x", body: Array("tiny".utf8)))
        #expect(try log.statistics().distinctBodies == 1)
        #expect(try log.event(at: 102)?.body == Array("tiny".utf8))
        log.close()
    }

    @Test func verifyNamesABodyThatNoLongerHashesToItsReference() async throws {
        let dir = TemporaryDirectory("bodies-damaged")
        let log = try EventLog.open(at: dir.path)
        _ = try await log.append(Self.fetched(Self.census, 0))
        let digest = SHA256.digest(Self.census)
        var damaged = Self.census
        damaged[100] ^= 0xFF
        let env = log.lmdbEnvironment
        let bodies = try env.openDatabase("bodies", create: false)
        try env.write { txn in
            try digest.withUnsafeBytes { k in try damaged.withUnsafeBytes { try txn.put(bodies, key: k, value: $0) } }
        }
        // Reading finds it (the reference carries the body's CRC-32C), and so does verify.
        #expect(throws: StoreError.self) { try log.event(at: 1) }
        let report = try log.verify()
        #expect(report.problems.count == 1)
        #expect(report.problems.first?.description.hasPrefix("seq 1: checksum mismatch in its body (sha256 \(SHA256.hex(digest: digest)); stored ") == true, "\(report.problems)")
        // A body gone is named too.
        try env.write { txn in _ = try digest.withUnsafeBytes { try txn.delete(bodies, key: $0) } }
        #expect(try log.verify().problems.map(\.description) == ["seq 1: its body (sha256 \(SHA256.hex(digest: digest))) is not in the store's bodies"])
        log.close()
    }

    @Test func aStoreOfThePreviousFormatOpensReadsAsBeforeAndStoresNewBodiesOnce() async throws {
        let dir = TemporaryDirectory("bodies-format-1")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        // A format-1 store, as the previous build wrote it: no `bodies`, version-2 records
        // holding their bodies.
        let old = (0 ..< 3).map { i in var e = Self.fetched(Self.census, i); e.seq = UInt64(i + 1); return e }
        do {
            let env = try Environment(path: dir.path, options: Environment.Options())
            try env.write { txn in
                let events = try txn.openDatabase("events", create: true)
                let meta = try txn.openDatabase("meta", create: true)
                _ = try txn.openDatabase("checkpoints", create: true)
                for (key, value) in [("format", "fetchlog"), ("format-version", "1"), ("store-id", "old-store"),
                                     ("created-at", "2026-11-20T00:00:00.000Z"), ("created-by", "fetchlog 0.0.9")] {
                    try txn.put(meta, key: key, value: value)
                }
                for event in old {
                    let record = EnvelopeCodec.encode(event)
                    try withUnsafeBytes(of: event.seq.bigEndian) { k in try record.withUnsafeBytes { try txn.put(events, key: k, value: $0) } }
                }
            }
        }
        let log = try EventLog.open(at: dir.path)
        #expect(log.metadata.formatVersion == 3)
        #expect(log.metadata.storeID == "old-store")
        #expect(try log.events(from: 1) == old)
        #expect(try log.verify().isHealthy)
        // New appends store their body once (the old records keep theirs).
        for i in 3 ..< 6 { _ = try await log.append(Self.fetched(Self.census, i)) }
        let stats = try log.statistics()
        #expect(stats.events == 6)
        #expect(stats.distinctBodies == 1)
        #expect(stats.bodyBytesSaved == 2 * Self.census.count)
        #expect(try log.events(from: 1).allSatisfy { $0.body.map { bytesEqual($0, Self.census) } == true })
        log.close()
    }

    @Test func salvageFindsBodiesByTheirDigest() async throws {
        let dir = TemporaryDirectory("bodies-salvage")
        let log = try EventLog.open(at: dir.path)
        for i in 0 ..< 3 { _ = try await log.append(Self.fetched(Self.census, i)) }
        let expected = try log.events(from: 1)
        log.close()
        let report = LMDBFileCheck.salvageEvents(dataFile: dir.path + "/data.mdb")
        #expect(report.events == expected)
        #expect(report.unreadable.isEmpty)
    }
}
