import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Merging logs (`log import` into a non-empty store): events keep their origin, and
/// exchanging exports both ways, again and again, leaves both stores with one set.
@Suite struct LogMergeTests {
    private func open(_ dir: TemporaryDirectory, _ id: String) throws -> EventLog { try openStore(in: dir, id: id) }

    private func exportFile(_ log: EventLog, _ dir: TemporaryDirectory, _ name: String, since: UInt64 = 0) throws -> String {
        var text = ""
        try log.exportNDJSON(from: since + 1) { text += $0 }
        let file = dir.sub(name)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Each event as its origin and its canonical line without the local seq and origin
    /// (what two stores must agree on), sorted by origin.
    private func eventSet(_ log: EventLog) throws -> [String] {
        var set: [String] = []
        try log.scan { event in
            var copy = event
            let origin = event.origin ?? Event.Origin(store: log.metadata.storeID, seq: event.seq)
            copy.seq = 1
            copy.origin = nil
            set.append("\(origin.store)#\(origin.seq) \(EventJSON.line(for: copy))")
            return true
        }
        return set.sorted()
    }

    private func ownEvents(_ source: String, count: Int, from start: Int64) -> [Event] {
        (0 ..< count).map { i in
            Event(recordedAt: Timestamp(milliseconds: start + Int64(i) * 1000), kind: .fetched, source: source, label: "/page/\(i)",
                  request: Event.Request(url: "http://127.0.0.1/\(source)/page/\(i)"),
                  response: Event.Response(status: 200, headers: [Header("ETag", "\"\(source)-\(i)\"")]),
                  body: Array(#"{"source":"\#(source)","page":\#(i)}"#.utf8))
        }
    }

    @Test func exchangingExportsBothWaysTwiceHoldsOneSetWithNoDuplicates() async throws {
        let dir = TemporaryDirectory("merge")
        let a = try open(dir, "store-a")
        let b = try open(dir, "store-b")
        // Both start from the shipped sample (the same 13 events of origin fetchlog-sample),
        // then fetch offline apart: A 4 events, B 3 (one of them a 20 KiB body stored apart).
        // The heavy calls run off the cooperative pool (2 threads here): a test that held
        // one for seconds would starve the timing-bound tests running beside it.
        #expect(try await offPool { try a.importNDJSON(path: Repo.sampleLog) } == 13)
        #expect(try await offPool { try b.importNDJSON(path: Repo.sampleLog) } == 13)
        try a.appendBlocking(contentsOf: ownEvents("alpha", count: 4, from: 1_795_000_000_000))
        var bEvents = ownEvents("beta", count: 3, from: 1_795_000_000_500)
        bEvents[2].body = Array(repeating: UInt8(ascii: "b"), count: 20_000)
        try b.appendBlocking(contentsOf: bEvents)

        // A → B: B gains A's 4 (seqs 17…20); the 13 sample events it holds already.
        let ab = try await offPool { try b.merge(path: try self.exportFile(a, dir, "a1.ndjson")) }
        #expect(ab == { var s = ImportSummary(lines: 17); s.imported = 4; s.alreadyHeld = 13; s.firstSeq = 17; s.lastSeq = 20; return s }())
        // B → A: B's export holds its 3, A's 4 coming back (A's own) and the sample's 13.
        let ba = try await offPool { try a.merge(path: try self.exportFile(b, dir, "b1.ndjson")) }
        #expect(ba.imported == 3)
        #expect(ba.alreadyHeld == 17)
        #expect((ba.firstSeq, ba.lastSeq) == (18, 20))
        // Again, both ways: nothing new.
        #expect(try await offPool { try b.merge(path: try self.exportFile(a, dir, "a2.ndjson")) }.imported == 0)
        #expect(try await offPool { try a.merge(path: try self.exportFile(b, dir, "b2.ndjson")) }.imported == 0)
        // And the same export twice: nothing the second time.
        #expect(try await offPool { try a.merge(path: dir.sub("b1.ndjson")) }.imported == 0)

        #expect(try a.lastSeq() == 20)
        #expect(try b.lastSeq() == 20)
        let setA = try await offPool { try self.eventSet(a) }
        #expect(setA.count == 20)
        #expect(Set(setA).count == 20)
        #expect(setA == (try await offPool { try self.eventSet(b) }))
        // The merged body arrives whole and is stored once, by reference.
        let merged = try #require(try a.event(at: 20))
        #expect(merged.body?.count == 20_000)
        #expect(merged.origin == Event.Origin(store: "store-b", seq: 16))
        #expect(try await offPool { try a.verify().isHealthy && b.verify().isHealthy })
    }

    @Test func exportSinceStreamsOnlyWhatIsNewAndMergesIncrementally() async throws {
        let dir = TemporaryDirectory("since")
        let a = try open(dir, "store-a")
        let b = try open(dir, "store-b")
        try a.appendBlocking(contentsOf: ownEvents("alpha", count: 5, from: 1_795_000_000_000))
        var lines = ""
        let last = try a.exportNDJSON(from: 1) { lines += $0 }
        #expect(last == 5)
        try lines.write(toFile: dir.sub("full.ndjson"), atomically: true, encoding: .utf8)
        #expect(try b.importNDJSON(path: dir.sub("full.ndjson")) == 5)
        try a.appendBlocking(contentsOf: ownEvents("gamma", count: 2, from: 1_795_000_100_000))
        let newer = try exportFile(a, dir, "since5.ndjson", since: 5)
        let text = try String(contentsOfFile: newer, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 2)
        #expect(text.hasPrefix(#"{"attempt":1,"body":{"encoding":"utf8","size":27,"text":"{\"source\":\"gamma\",\"page\":0}"}"#))
        #expect(text.contains(#""origin":{"seq":6,"store":"store-a"}"#))
        #expect(try b.importNDJSON(path: newer) == 2)
        #expect(try eventSet(a) == (try eventSet(b)))
    }

    /// A copy of a store's directory has the same id; an export of the copy that went on by
    /// itself names events "of this store" that this store does not hold: refused, nothing lost.
    @Test func anExportOfACopyOfThisStoreIsRefused() throws {
        let dir = TemporaryDirectory("copy")
        let a = try open(dir, "store-a")
        try a.appendBlocking(contentsOf: ownEvents("alpha", count: 2, from: 1_795_000_000_000))
        let twin = try open(dir, "store-a-copy")
        // The twin's export, rewritten to name store-a (as a copied directory would).
        try twin.appendBlocking(contentsOf: ownEvents("alpha", count: 3, from: 1_795_000_050_000))
        var text = ""
        try twin.exportNDJSON { text += $0 }
        let lines = try text.split(separator: "\n").map { line -> String in
            var event = try EventJSON.event(from: try JSONValue.parse(bytes: Array(line.utf8)))
            event.origin = Event.Origin(store: "store-a", seq: event.seq)
            return EventJSON.line(for: event)
        }
        let file = dir.sub("twin.ndjson")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            try a.merge(path: file)
        } throws: { error in
            guard let error = error as? ImportError else { return false }
            return error.line == 1 && error.reason.contains("a copy of this store's directory")
        }
        #expect(try a.lastSeq() == 2)
    }

    /// An export from before origins is a whole log: it restores into an empty store, and
    /// into one that holds events it is refused (it cannot say which events are whose).
    @Test func anExportWithoutOriginsImportsOnlyIntoAnEmptyStore() async throws {
        let dir = TemporaryDirectory("legacy")
        let lines = try String(contentsOfFile: Repo.sampleLog, encoding: .utf8).split(separator: "\n").map { line -> String in
            var event = try! EventJSON.event(from: try! JSONValue.parse(bytes: Array(line.utf8)))
            event.origin = nil
            return EventJSON.line(for: event)
        }
        let file = dir.sub("legacy.ndjson")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(!lines[0].contains(#""origin":"#))
        let a = try open(dir, "store-a")
        #expect(try await offPool { try a.importNDJSON(path: file) } == 13)
        #expect(try a.event(at: 7)?.origin == nil)
        // Now its own events: exported with origin store-a.
        var text = ""
        try a.exportNDJSON { text += $0 }
        #expect(text.contains(#""origin":{"seq":7,"store":"store-a"}"#))
        #expect(throws: StoreError.self) { try a.importNDJSON(path: file) }
        #expect(try a.lastSeq() == 13)
    }
}
