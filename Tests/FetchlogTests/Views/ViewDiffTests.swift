import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// A differ for views (issue 12, item 5): keyed collections by key, full values.
@Suite(.serialized) struct ViewDiffTests {
    @Test func statusBetweenTwoSeqsOfARealStore() async throws {
        let h = try await FetchHarness.start()
        #expect(try await h.store.fetch(.tvmazeShowsPage(0)).outcome == .fetched)    // seq 1
        #expect(try await h.store.fetch(.brastlewarkCensus).outcome == .fetched)     // seq 2
        #expect(try await h.store.fetch(.tvmazeShowsPage(0)).outcome == .notModified) // seq 3
        func status(at seq: UInt64) throws -> JSONValue { try ViewCatalog.export("status", state: try Store.replay(h.log, sources: .seed, to: seq).state) }
        let one = try status(at: 1), two = try status(at: 2), three = try status(at: 3)

        // A resource added: one `added` entry with the whole element, keyed by its resource
        // key — the tvmaze row before it is not reported — and the count.
        let census = try #require(two["resources"]?.arrayValue?.first { $0["source"] == .string("brastlewark") })
        #expect(ViewDiff(from: one, to: two).changes == [
            ViewDiff.Change(kind: .added, path: "/resources[brastlewark/data.json]", before: nil, after: census),
            ViewDiff.Change(kind: .changed, path: "/count", before: .number(1), after: .number(2)),
        ])
        // A 304: the fields that changed, each once, with their values as JSON.
        #expect(ViewDiff(from: two, to: three).changes == [
            ViewDiff.Change(kind: .changed, path: "/resources[tvmaze/shows?page=0]/lastRevalidated",
                            before: .null, after: .string("2026-11-22T07:00:00.000Z")),
            ViewDiff.Change(kind: .changed, path: "/resources[tvmaze/shows?page=0]/lastAttemptSeq",
                            before: .number(1), after: .number(3)),
        ])
        // Backwards, the census row is one `removed`; asOf alone never differs.
        #expect(ViewDiff(from: two, to: one).changes.map(\.kind) == [.removed, .changed])
        #expect(ViewDiff(from: three, to: three).isEmpty)
        #expect(one["asOf"] != two["asOf"])
        await h.stop()
    }

    /// Shows keyed by id: page 1 adds its 245 shows as 245 whole objects; `pagesHeld` is an
    /// array of numbers and compares by position.
    @Test func showsAddedByIDAndScalarsByPosition() async throws {
        let h = try await FetchHarness.start()
        _ = try await h.store.fetch(.tvmazeShowsPage(0))
        _ = try await h.store.fetch(.tvmazeShowsPage(1))
        let before = try ViewCatalog.export("shows", state: try Store.replay(h.log, sources: .seed, to: 1).state)
        let after = try ViewCatalog.export("shows", state: try Store.replay(h.log, sources: .seed, to: 2).state)
        let oldIDs = Set(try #require(before["shows"]?.arrayValue).compactMap { $0["id"]?.intValue })
        let newRows = try #require(after["shows"]?.arrayValue).filter { !oldIDs.contains($0["id"]?.intValue ?? -1) }
        #expect(newRows.count == 245)
        var expected = newRows.map { row in
            ViewDiff.Change(kind: .added, path: "/shows[\(row["id"]!.intValue!)]", before: nil, after: row)
        }
        expected.append(ViewDiff.Change(kind: .changed, path: "/count", before: .number(240), after: .number(485)))
        expected.append(ViewDiff.Change(kind: .added, path: "/pagesHeld/1", before: nil, after: .number(1)))
        let diff = ViewDiff(from: before, to: after)
        #expect(diff.changes == expected)
        // The JSON form carries the values themselves, not text: a summary comes back whole.
        let first = try #require(diff.json["changes"]?.arrayValue?.first)
        #expect(first["after"] == newRows[0])
        #expect(first["before"] == nil)
        #expect(diff.json["count"] == .number(247))
        await h.stop()
    }

    @Test func positionalArraysAndTypeChanges() throws {
        let a = try JSONValue.parse(#"{"view":"x","asOf":1,"genres":["Drama","Comedy","Family"],"n":1,"gone":true,"o":{"k":[1,2]}}"#)
        let b = try JSONValue.parse(#"{"view":"x","asOf":2,"genres":["Drama","Family"],"n":"1","o":{"k":[1,2,3]},"new":null}"#)
        #expect(ViewDiff(from: a, to: b).changes == [
            ViewDiff.Change(kind: .changed, path: "/genres/1", before: .string("Comedy"), after: .string("Family")),
            ViewDiff.Change(kind: .removed, path: "/genres/2", before: .string("Family"), after: nil),
            ViewDiff.Change(kind: .changed, path: "/n", before: .number("1"), after: .string("1")),
            ViewDiff.Change(kind: .removed, path: "/gone", before: .bool(true), after: nil),
            ViewDiff.Change(kind: .added, path: "/o/k/2", before: nil, after: .number(3)),
            ViewDiff.Change(kind: .added, path: "/new", before: nil, after: .null),
        ])
        // Objects whose key values repeat are not keyed: by position.
        let dupA = try JSONValue.parse(#"[{"id":1,"v":"a"},{"id":1,"v":"b"}]"#)
        let dupB = try JSONValue.parse(#"[{"id":1,"v":"b"},{"id":1,"v":"b"}]"#)
        #expect(ViewDiff(from: dupA, to: dupB).changes == [ViewDiff.Change(kind: .changed, path: "/0/v", before: .string("a"), after: .string("b"))])
        // The first key field in the order wins: "id" before "name".
        let byID = ViewDiff(from: try JSONValue.parse(#"[{"id":1,"name":"x"}]"#), to: try JSONValue.parse(#"[{"id":2,"name":"x"}]"#))
        #expect(byID.changes.map(\.path) == ["[1]", "[2]"])
        #expect(byID.changes.map(\.kind) == [.removed, .added])
    }
}
