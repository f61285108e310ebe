@testable import FetchlogCore
import Foundation
import Hummingbird
import Synchronization
import Testing

/// A write no longer reads every held item to type its fields: the schema comes from the
/// base items' members (kept per resource and fingerprint) and the few items the writes
/// changed. It is a memo of a pure function: the same fields and kinds as reading the
/// folded items afresh, and never those of items no longer held.
@Suite struct WriteSchemaMemoTests {
    /// Names and kinds, in name order (the order `known` names them in).
    static func typed(_ schema: WriteSchema) -> [String] {
        schema.names.sorted().map { "\($0):\(schema.kind(of: $0)!.rawValue)" }
    }

    @Test func theMembersAndAFoldTypeAsReadingTheFoldedItems() {
        var steps = WriteOverlayFoldingTests.Steps(state: 2626)
        // Kinds that differ item to item, nulls before values, a name held by a few items
        // only, a duplicated member, a `pending` member and an item that is no object.
        let values: [JSONValue] = [.null, .number("1"), .string("one"), .bool(true), .array([]), .object([])]
        func item(_ id: Int) -> JSONValue {
            var members: [(String, JSONValue)] = [("id", .string("k\(id)"))]
            for name in ["a", "b", "c", "d"] where steps.next(4) > 0 { members.append((name, values[steps.next(values.count)])) }
            if steps.next(5) == 0 { members.append(("a", values[steps.next(values.count)])) }
            if steps.next(9) == 0 { members.append(("rare\(steps.next(3))", values[steps.next(values.count)])) }
            if steps.next(7) == 0 { members.append(("pending", .string("x"))) }
            return .object(members)
        }
        let base = (0 ..< 60).map { $0 == 17 ? .string("not an item") : item($0) }
        let members = WriteSchema.Members(base)
        let columns = [("b", "bigint"), ("z", "bool")]
        var folding = WriteOverlay.Folding(base: base, key: ["id"], positions: ItemsView.keyPositions(base, key: ["id"]))
        var checked = 0
        for step in 0 ..< 400 {
            switch steps.next(4) {
            case 0: folding.append(item(100 + step))
            case 1: if let at = folding.index(of: "k\(steps.next(60 + step))") { folding.remove(at: at) }
            default: if let at = folding.index(of: "k\(steps.next(60 + step))") { folding[at] = item(steps.next(60)) }
            }
            let fresh = WriteSchema(columns: columns, items: folding.items)
            let memo = WriteSchema(columns: columns, base: members, folding: folding)
            #expect(Self.typed(memo) == Self.typed(fresh), "step \(step)")
            if Self.typed(memo) == Self.typed(fresh) { checked += 1 }
        }
        #expect(checked == 400)
        // The base alone, and every base item removed: the columns alone are left.
        #expect(Self.typed(WriteSchema(columns: columns, base: members)) == Self.typed(WriteSchema(columns: columns, items: base)))
        var emptied = WriteOverlay.Folding(base: base, key: [], positions: [:])
        for at in base.indices { emptied.remove(at: at) }
        #expect(Self.typed(WriteSchema(columns: columns, base: members, folding: emptied)) == ["b:integer", "z:boolean"])
    }

    /// The notes a test's server serves, changed by the test between fetches.
    final class Notes: Sendable {
        let body = Mutex(#"{"data":[{"id":1,"title":"a","priority":1},{"id":2,"title":"b","priority":5}]}"#)
    }

    @Test func aRefetchThatChangesAFieldsKindRetypesTheNextWrite() async throws {
        let notes = Notes()
        let router = Router()
        // Requests go to BASE/<source>/<path>.
        router.get("/memo/notes") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: .init(byteBuffer: ByteBuffer(string: notes.body.withLock { $0 })))
        }
        // A fetch sends the pending changes first: taken (the page fetched after is newer).
        router.patch("/memo/notes/:id") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        let server = try await LoopbackServer.start(router, label: "schema-memo-upstream")
        defer { Task { await server.stop() } }
        let dir = TemporaryDirectory("writes-schema-memo")
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: server.base)
        configuration.fetching.retry.retries = 0
        let store = try await Store.open(at: URL(filePath: dir.sub("store")), sources: SourceRegistry([]), configuration: configuration)
        // A source name of its own: the kept members and views are per source and resource.
        let manifest = OfflineWritesTests.manifest.replacingOccurrences(of: #"{"name":"catalog","#, with: #"{"name":"memo","#)
        try await store.define(try RestManifest(json: try JSONValue.parse(manifest)))
        _ = try await store.fetchManifestResource(source: "memo", resource: "notes")

        // A number: refused as text that is not one (the members of these pages are kept).
        await #expect(throws: WriteError("priority takes a number, not 'high'; nothing was recorded")) {
            try await store.write(.update, source: "memo", resource: "notes", key: "1", assignments: ["priority=high"])
        }
        let first = try await store.write(.update, source: "memo", resource: "notes", key: "2", assignments: ["priority=3"])
        #expect(first.fields == .object([("priority", .number("3"))]))

        // Refetched with the priorities as text: the next writes are typed by the new pages.
        notes.body.withLock { $0 = #"{"data":[{"id":1,"title":"a","priority":"high"},{"id":2,"title":"b","priority":"low"}]}"# }
        _ = try await store.fetchManifestResource(source: "memo", resource: "notes")
        let second = try await store.write(.update, source: "memo", resource: "notes", key: "1", assignments: ["priority=7"])
        #expect(second.fields == .object([("priority", .string("7"))]))
        await #expect(throws: WriteError("priority takes a string, not 4; nothing was recorded")) {
            try await store.write(.update, source: "memo", resource: "notes", key: "2", fields: [("priority", .number("4"))])
        }
        // The kept fold served, and agrees with reading the items afresh.
        let state = store.snapshot.state
        let target = try WriteTarget(state, source: "memo", resource: "notes")
        let view = try #require(ItemsView(state: state, source: "memo", resource: "notes"))
        let fast = try #require(view.writeChecking(columns: target.columns))
        #expect(Self.typed(fast.schema) == Self.typed(WriteSchema(columns: target.columns, items: target.items(state))))
        #expect(Self.typed(fast.schema) == ["id:number", "priority:string", "title:string"])
        #expect([fast.holds("1"), fast.holds("2"), fast.holds("3")] == [true, true, false])
    }
}
