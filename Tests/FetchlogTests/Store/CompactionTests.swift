import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// `log compact`: superseded bodies go, every header stays, the head is untouched, and
/// the past says what it lost.
@Suite struct CompactionTests {
    static let fixtures = Repo.root + "/Tools/SampleUpstream/Sources/SampleUpstream/Fixtures/"

    static func body(_ file: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixtures + file))) }

    static func fetched(_ source: String, _ path: String, _ file: String, at seconds: Int64, etag: String? = nil) throws -> Event {
        Event(recordedAt: Timestamp(milliseconds: 1_795_000_000_000 + seconds * 1000), kind: .fetched, source: source, label: path,
              durationMicros: 1000, request: Event.Request(url: "http://127.0.0.1:1/\(source)\(path)"),
              response: Event.Response(status: 200, headers: etag.map { [Header("ETag", $0)] } ?? []), body: try body(file))
    }

    /// 29 events: two bodies of the TVmaze index page (the second fetched twice), the
    /// 411 KiB census answered 200 without validators 21 times, two Viaplay pages with a
    /// 304 between, a filter intent and a failure.
    static func revalidatedLog() throws -> [Event] {
        var events: [Event] = []
        events.append(try fetched("tvmaze", "/shows?page=0", "tvmaze/shows-page-0-2019.json", at: 1))           // 1
        events.append(try fetched("brastlewark", "/data.json", "brastlewark/census.json", at: 2))               // 2
        events.append(try fetched("viaplay", "/ios-se", "viaplay/ios-se-root-2022.json", at: 3, etag: "\"v22\"")) // 3
        events.append(Event(recordedAt: Timestamp(milliseconds: 1_795_000_004_000), kind: .notModified, source: "viaplay", label: "/ios-se",
                            request: Event.Request(url: "http://127.0.0.1:1/viaplay/ios-se", headers: [Header("If-None-Match", "\"v22\"")]),
                            response: Event.Response(status: 304, headers: [Header("ETag", "\"v22\"")])))                 // 4
        events.append(try fetched("tvmaze", "/shows?page=0", "tvmaze/shows-page-0-2024.json", at: 5))           // 5
        for i in 0 ..< 20 { events.append(try fetched("brastlewark", "/data.json", "brastlewark/census.json", at: 6 + Int64(i))) } // 6…25
        events.append(try fetched("viaplay", "/ios-se", "viaplay/ios-se-root-2024.json", at: 26, etag: "\"v24\"")) // 26
        events.append(Event(recordedAt: Timestamp(milliseconds: 1_795_000_027_000), kind: .intent, source: "brastlewark", label: "filter.set",
                            body: Array(#"{"hair_color":"Pink"}"#.utf8)))                                          // 27
        events.append(try fetched("tvmaze", "/shows?page=0", "tvmaze/shows-page-0-2024.json", at: 28))          // 28
        events.append(Event(recordedAt: Timestamp(milliseconds: 1_795_000_029_000), kind: .fetchFailed, source: "viaplay", label: "/ios-se",
                            request: Event.Request(url: "http://127.0.0.1:1/viaplay/ios-se"),
                            failure: Event.Failure(.timeout, "no answer in 10 s")))                                 // 29
        return events
    }

    private func exportAll(_ log: EventLog, to seq: UInt64? = nil) throws -> String {
        try ViewCatalog.export("all", state: try Store.replay(log, sources: SeedSources.registry, to: seq).state).canonicalText()
    }

    @Test func compactionDropsExactlyTheSupersededBodiesAndLeavesTheHeadAsItWas() async throws {
        let dir = TemporaryDirectory("compact")
        let log = try EventLog.open(at: dir.path)
        _ = try await offPool { try log.appendBlocking(contentsOf: try Self.revalidatedLog()) }
        let headBefore = try await offPool { try self.exportAll(log) }
        let fullBefore = try await offPool { try Store.fullReplay(log, sources: SeedSources.registry) }
        let pastBefore = try await offPool { try self.exportAll(log, to: 10) }
        let statsBefore = try await offPool { try log.statistics() }

        let plan = try await offPool { try Compaction.plan(log, sources: SeedSources.registry) }
        #expect(plan.resources.map(\.key) == [ResourceKey(source: "brastlewark", path: "/data.json"),
                                             ResourceKey(source: "tvmaze", path: "/shows?page=0"),
                                             ResourceKey(source: "viaplay", path: "/ios-se")])
        #expect(plan.resources.map(\.seqs) == [[2] + Array(6 ... 24), [1, 5], [3]])
        #expect(plan.resources.map(\.heldSeq) == [25, 28, 26])
        #expect(plan.horizon == 28)
        let census = try Self.body("brastlewark/census.json").count
        let page2019 = try Self.body("tvmaze/shows-page-0-2019.json").count
        let page2024 = try Self.body("tvmaze/shows-page-0-2024.json").count
        let viaplay2022 = try Self.body("viaplay/ios-se-root-2022.json").count
        #expect(plan.bodyBytes == 20 * census + page2019 + page2024 + viaplay2022)

        let done = try await offPool { try log.compactBodies(plan.seqs, horizon: plan.horizon) }
        #expect(done.events == 23)
        #expect(done.bodyBytesDropped == plan.bodyBytes)
        // Of the bodies stored apart only the 2019 page is no longer referenced (the census
        // and the 2024 page are the ones held; the 2022 Viaplay page was held in its record).
        #expect(done.bodiesRemoved == 1)
        #expect(done.bodyBytesRemoved == page2019)
        #expect(done.freedBytes == done.recordBytesBefore - done.recordBytesAfter + page2019)
        // Records that referred to their body keep a reference of the same size; the one
        // that held its body (the 2022 Viaplay page) shrinks to a 36-byte digest and CRC.
        #expect(done.recordBytesBefore - done.recordBytesAfter == viaplay2022 - 36)
        #expect(try log.compactionHorizon() == 28)

        // The head: byte-identical, by the fast replay and by the full one.
        #expect(try await offPool { try self.exportAll(log) } == headBefore)
        #expect(try await offPool { try Store.fullReplay(log, sources: SeedSources.registry) } == fullBefore)
        #expect(try await offPool { try log.verify().isHealthy })
        // Every header stays: 29 events, same kinds, the body's size and hash on the record.
        let stats = try await offPool { try log.statistics() }
        #expect(stats.events == 29)
        #expect(stats.byKind == statsBefore.byKind)
        #expect(stats.distinctBodies == statsBefore.distinctBodies - 1)
        let first = try #require(try log.event(at: 1))
        #expect(first.body == nil)
        #expect(first.compactedBody == Event.CompactedBody(size: page2019, crc32c: (try Self.body("tvmaze/shows-page-0-2019.json")).withUnsafeBytes { crc32c($0) },
                                                           sha256: SHA256.digest(try Self.body("tvmaze/shows-page-0-2019.json"))))
        #expect(first.response?.status == 200)
        #expect(try log.event(at: 28)?.body?.count == page2024)

        // Before the horizon, the past names what it lost rather than answer without it.
        let past = try await offPool { try Store.replay(log, sources: SeedSources.registry, to: 10).state }
        #expect(past.compactedBodies == [ResourceKey(source: "tvmaze", path: "/shows?page=0"): 5,
                                         ResourceKey(source: "brastlewark", path: "/data.json"): 10,
                                         ResourceKey(source: "viaplay", path: "/ios-se"): 3])
        let notice = try #require(CompactedBodiesNotice.check(view: "shows", state: past))
        #expect(notice.description == "at seq 10, the body of 1 resource that shows reads was compacted away (`log compact` dropped bodies a later one superseded): tvmaze /shows?page=0 (its body at seq 5)")
        #expect(CompactedBodiesNotice.check(view: "sections", state: past) == nil)
        #expect(try await offPool { try self.exportAll(log, to: 10) } != pastBefore)
        // The state at the horizon holds every body again.
        #expect(try await offPool { try Store.replay(log, sources: SeedSources.registry, to: 28).state.compactedBodies.isEmpty })

        // A second compaction finds nothing more.
        let again = try await offPool { try Compaction.plan(log, sources: SeedSources.registry) }
        #expect(again.events == 0)
        #expect(try await offPool { try log.compactBodies(again.seqs, horizon: again.horizon) } == BodyCompaction())
    }

    @Test func theHorizonOptionsLimitWhatGoes() async throws {
        let dir = TemporaryDirectory("compact-horizon")
        let log = try EventLog.open(at: dir.path)
        _ = try await offPool { try log.appendBlocking(contentsOf: try Self.revalidatedLog()) }
        let before = try await offPool { try Compaction.plan(log, sources: SeedSources.registry, before: 6) }
        #expect(before.seqs == [2, 1, 5, 3])
        #expect(before.horizon == 28)
        // Recorded before second 8 of the log: seqs 1…7.
        let older = try await offPool { try Compaction.plan(log, sources: SeedSources.registry, recordedBefore: Timestamp(milliseconds: 1_795_000_008_000)) }
        #expect(older.seqs == [2, 6, 7, 1, 5, 3])
    }

    /// A store that merged compacted events exports and imports them as compacted.
    @Test func compactedEventsExportAndImportAsSuch() async throws {
        let dir = TemporaryDirectory("compact-export")
        let log = try EventLog.open(at: dir.sub("a"))
        _ = try await offPool { try log.appendBlocking(contentsOf: try Self.revalidatedLog()) }
        let plan = try await offPool { try Compaction.plan(log, sources: SeedSources.registry) }
        _ = try await offPool { try log.compactBodies(plan.seqs, horizon: plan.horizon) }
        let text = try await offPool { () -> String in
            var text = ""
            try log.exportNDJSON { text += $0 }
            return text
        }
        let first = String(text.split(separator: "\n")[0])
        #expect(first.hasPrefix(#"{"attempt":1,"body":{"crc32c":""#))
        #expect(first.contains(#""encoding":"compacted","sha256":"\#(SHA256.hex(try Self.body("tvmaze/shows-page-0-2019.json")))","size":435940}"#))
        let file = dir.sub("a.ndjson")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let copy = try EventLog.open(at: dir.sub("b"))
        #expect(try await offPool { try copy.importNDJSON(path: file) } == 29)
        #expect(try copy.event(at: 1)?.compactedBody?.size == 435_940)
        #expect(try await offPool { try self.exportAll(copy) == self.exportAll(log) })
        let (ok, output) = try await validateFile(file, schema: "event", ndjson: true)
        #expect(ok, "\(output)")
        #expect(output == "valid: 29 of 29 documents against event.schema.json\n")
    }
}

private func crc32c(_ bytes: UnsafeRawBufferPointer) -> UInt32 { EnvelopeCodec.checksum(of: bytes) }
