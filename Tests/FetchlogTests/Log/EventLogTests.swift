import Foundation
import FetchlogLMDB
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

@Suite struct EventLogTests {
    @Test func appendsAndReadsBackBySeqRangeAndTail() async throws {
        let dir = TemporaryDirectory()
        var options = EventLog.Options()
        options.newStoreID = "test-store"
        options.clock = FixedClock(fixedTime)
        let log = try EventLog.open(at: dir.path, options: options)
        #expect(log.metadata == StoreMetadata(formatVersion: 3, storeID: "test-store", createdAt: "2026-11-22T07:00:00.000Z",
                                              createdBy: "fetchlog 0.1.0", staleReadersCleared: 0))
        #expect(try log.lastSeq() == 0)
        let first = try await log.append(richEvent())
        #expect(first == 1)
        let range = try await log.append(contentsOf: (0 ..< 5).map { TestPattern.event(seq: UInt64($0) + 2) })
        #expect(range == 2 ..< 7)
        #expect(try log.appendBlocking(contentsOf: []) == 7 ..< 7)
        #expect(try log.lastSeq() == 6)
        var expectedFirst = richEvent()
        expectedFirst.seq = 1
        #expect(try log.event(at: 1) == expectedFirst)
        #expect(try log.event(at: 7) == nil)
        #expect(try log.events(in: 3 ... 4).map(\.seq) == [3, 4])
        #expect(try log.events(from: 5).map(\.seq) == [5, 6])
        #expect(try log.tail(2).map(\.label) == ["item-5", "item-6"])
        var third = TestPattern.event(seq: 3)
        third.seq = 3
        #expect(try log.event(at: 3) == third)
    }

    @Test func reopeningKeepsIdentityAndEvents() async throws {
        let dir = TemporaryDirectory()
        let id: String
        do {
            let log = try EventLog.open(at: dir.path)
            id = log.metadata.storeID
            try await log.append(contentsOf: [richEvent(), richEvent(body: nil)])
            log.close()
        }
        let again = try EventLog.open(at: dir.path)
        #expect(again.metadata.storeID == id)
        #expect(id.count == 36)
        #expect(try again.count() == 2)
        #expect(try again.event(at: 2)?.body == nil)
    }

    /// 10,000 events with bodies from 100 B to 1 MiB (log-uniform sizes), reopened and
    /// read back byte for byte, seqs 1…10,000 with no gap.
    @Test func tenThousandEventsFrom100BytesTo1MiB() async throws {
        #expect(Self.size(0) == 100)
        #expect(Self.size(9_999) == 1 << 20)
        let outcome = try await offPool { try Self.tenThousandEvents() }
        #expect(outcome.wrongRanges == 0)
        #expect(outcome.mismatches == 0)
        #expect(outcome.readBack == 10_000)
        #expect(outcome.totalBytes == (0 ..< 10_000).reduce(0) { $0 + Self.size($1) })
        #expect(outcome.healthy)
    }

    /// Body sizes grow log-uniformly from 100 B (event 0) to 1 MiB (event 9,999).
    static func size(_ i: Int) -> Int { Int((100.0 * pow(10_485.76, Double(i) / 9_999.0)).rounded()) }

    /// Runs outside the test's task (on its own thread): results come back as values and
    /// are checked by the test itself.
    private static func tenThousandEvents() throws -> (wrongRanges: Int, mismatches: Int, readBack: Int, totalBytes: Int, healthy: Bool) {
        let dir = TemporaryDirectory("10k")
        let pool = TestPattern.bytes(count: 2 << 20, seed: 2026)
        func offset(_ i: Int) -> Int { (i &* 7919) % (pool.count - size(i) + 1) }
        var wrongRanges = 0
        do {
            let log = try EventLog.open(at: dir.path)
            var i = 0
            while i < 10_000 {
                let count = min(97, 10_000 - i)
                let events = (i ..< i + count).map { n in
                    Event(recordedAt: Timestamp(milliseconds: Int64(n)), kind: .fetched, source: "bulk", label: "\(n)",
                          body: Array(pool[offset(n) ..< offset(n) + size(n)]))
                }
                let range = try log.appendBlocking(contentsOf: events)
                if range != UInt64(i + 1) ..< UInt64(i + count + 1) { wrongRanges += 1 }
                i += count
            }
            log.close()
        }
        let log = try EventLog.open(at: dir.path)
        var expected: UInt64 = 1
        var mismatches = 0
        var totalBytes = 0
        try log.scan(batchSize: 64) { event in
            let n = Int(expected - 1)
            if event.seq != expected || event.label != "\(n)" { mismatches += 1 }
            let body = event.body ?? []
            totalBytes += body.count
            let same = pool.withUnsafeBytes { bytesEqual(body, UnsafeRawBufferPointer(rebasing: $0[offset(n) ..< offset(n) + size(n)])) }
            if !same { mismatches += 1 }
            expected += 1
            return true
        }
        return (wrongRanges, mismatches, Int(expected - 1), totalBytes, try log.verify().isHealthy)
    }

    /// A 64 KiB initial map takes 50 MiB of appends: every append succeeds, the map grew.
    @Test func mapFullGrowsTheMapAndRetries() async throws {
        let dir = TemporaryDirectory("grow")
        var options = EventLog.Options()
        options.initialMapSize = 64 << 10
        let log = try EventLog.open(at: dir.path, options: options)
        #expect(log.environmentInfo.mapSize == 64 << 10)
        // A different body each time: bodies are stored once, so repeating one would not grow the map.
        func body(_ n: Int) -> [UInt8] { TestPattern.bytes(count: 64 << 10, seed: UInt64(n)) }
        var appended = 0
        // Single-event commits and growing batches, so growth happens in both.
        var batchSize = 1
        while appended < 800 {
            let n = min(batchSize, 800 - appended)
            let events = (0 ..< n).map { i in Event(recordedAt: fixedTime, kind: .fetched, source: "grow", body: body(appended + i + 1)) }
            let range = try await log.append(contentsOf: events)
            #expect(range.lowerBound == UInt64(appended + 1))
            appended += n
            batchSize = batchSize % 64 + 7
        }
        #expect(try log.count() == 800)
        #expect(log.environmentInfo.mapSize >= 50 << 20)
        let last = try #require(try log.event(at: 800))
        #expect(last.body.map { bytesEqual($0, body(800)) } == true)
        #expect(try log.verify().isHealthy)
    }

    /// 16 tasks appending one event at a time share commits and get every seq once.
    @Test func concurrentAppendersShareCommits() async throws {
        let dir = TemporaryDirectory("group")
        let log = try EventLog.open(at: dir.path)
        let perTask = 40
        let seqs = try await withThrowingTaskGroup(of: [UInt64].self) { group in
            for task in 0 ..< 16 {
                group.addTask {
                    var mine: [UInt64] = []
                    for i in 0 ..< perTask {
                        let event = Event(recordedAt: fixedTime, kind: .fetched, source: "task-\(task)", label: "\(i)",
                                          body: Array(repeating: UInt8(task), count: 4096))
                        mine.append(try await log.append(event))
                    }
                    return mine
                }
            }
            var all: [[UInt64]] = []
            for try await mine in group { all.append(mine) }
            return all
        }
        for mine in seqs { #expect(mine == mine.sorted()) }
        #expect(seqs.flatMap { $0 }.sorted() == Array(1 ... 640))
        let stats = log.writerStatistics
        #expect(stats.events == 640)
        #expect(stats.commits <= 640)
        // Each task's events are in its own order, whatever the interleaving.
        var next = [String: Int]()
        var outOfOrder = 0
        try log.scan { event in
            let i = Int(event.label)!
            if i != next[event.source, default: 0] { outOfOrder += 1 }
            next[event.source] = i + 1
            return true
        }
        #expect(outOfOrder == 0)
    }

    @Test func verifyNamesTheFirstDamagedSeq() async throws {
        let dir = TemporaryDirectory("damage")
        let log = try EventLog.open(at: dir.path)
        try await log.append(contentsOf: (1 ... 9).map { TestPattern.event(seq: $0) })
        var record = try #require(try log.rawRecord(at: 5))
        record[60] ^= 0xFF
        let env = log.lmdbEnvironment
        let events = try env.openDatabase("events", create: false)
        try env.write { txn in
            try SequenceKey.with(5) { key in try record.withUnsafeBytes { try txn.put(events, key: key, value: $0) } }
            try SequenceKey.with(7) { key in _ = try txn.delete(events, key: key) }
        }
        let report = try log.verify()
        #expect(report.checked == 8)
        #expect(report.problems.map(\.seq) == [5, 8])
        #expect(report.problems[0].reason.hasPrefix("checksum mismatch"))
        #expect(report.problems[1].reason == "gap: seq 7 is missing")
        #expect(throws: StoreError.self) { try log.event(at: 5) }
    }

    @Test func oldEnvelopesInTheLogReadThroughUpcasting() async throws {
        let dir = TemporaryDirectory("upcast")
        let log = try EventLog.open(at: dir.path)
        let env = log.lmdbEnvironment
        let events = try env.openDatabase("events", create: false)
        let v1 = LegacyFixture.v1Record(seq: 1, seconds: 1_600_000_000, kind: 2, attempt: 1, status: 304, source: "viaplay",
                                        url: "https://content.viaplay.se/ios-se", etag: "\"e1\"", body: nil)
        try env.write { txn in
            try SequenceKey.with(1) { key in try v1.withUnsafeBytes { try txn.put(events, key: key, value: $0, flags: .append) } }
        }
        try await log.append(richEvent())
        let old = try #require(try log.event(at: 1))
        #expect(old.kind == .notModified)
        #expect(old.recordedAt == Timestamp(milliseconds: 1_600_000_000_000))
        #expect(old.response?.header("etag") == "\"e1\"")
        #expect(try log.event(at: 2)?.source == "tvmaze")
        #expect(try log.verify().isHealthy)
    }
}
