import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// `push(width:)`: different items' mutations in flight at once, each item's still in log
/// order (a change of a created item after its create, an item's second change after its
/// first), every mutation applied once, the report in log order.
@Suite struct PushWidthTests {
    @Test func aWidePushKeepsEachItemsOrderAndAppliesEveryMutationOnce() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-width")
        let store = try await OfflineWritesTests.openStore(dir, "store", upstream: upstream.base)
        let notes = ("catalog", "notes")
        let bread = try await store.write(.create, source: notes.0, resource: notes.1, fields: [("title", .string("buy bread"))])
        var ids = [bread.seq]
        ids.append(try await store.write(.update, source: notes.0, resource: notes.1, key: "local:\(bread.seq)", fields: [("priority", .number(5))]).seq)
        ids.append(try await store.write(.update, source: notes.0, resource: notes.1, key: "1", fields: [("priority", .number(3))]).seq)
        ids.append(try await store.write(.update, source: notes.0, resource: notes.1, key: "2", fields: [("done", .bool(false))]).seq)
        ids.append(try await store.write(.update, source: notes.0, resource: notes.1, key: "1", fields: [("title", .string("buy oat milk"))]).seq)
        ids.append(try await store.write(.delete, source: notes.0, resource: notes.1, key: "3").seq)
        ids.append(try await store.write(.update, source: notes.0, resource: notes.1, key: "local:\(bread.seq)", fields: [("done", .bool(true))]).seq)

        let report = try await store.push(width: 4)
        #expect(report.confirmed == ids)
        #expect(report.lines.map { String($0.prefix { $0 != " " }) } == ids.map { String($0) })
        #expect(store.pendingMutations.isEmpty)
        // Each item's writes reached the server in log order (the items' among themselves
        // in any order), each once.
        let applied = await upstream.server.appliedWrites
        #expect(applied.count == 7 && Set(applied.compactMap(\.key)).count == 7)
        func sent(_ path: String) -> [String] { applied.filter { $0.path == path }.map { "\($0.method) \($0.status)" } }
        #expect(sent("/catalog/notes") + sent("/catalog/notes/4") == ["POST 201", "PATCH 200", "PATCH 200"])
        #expect(sent("/catalog/notes/1") == ["PATCH 200", "PATCH 200"])
        #expect(sent("/catalog/notes/2") == ["PATCH 200"])
        #expect(sent("/catalog/notes/3") == ["DELETE 204"])
        #expect(await upstream.server.notes == [
            1: #"{"id":1,"title":"buy oat milk","done":false,"priority":3,"version":3}"#,
            2: #"{"id":2,"title":"call the plumber","done":false,"priority":1,"version":2}"#,
            4: #"{"id":4,"title":"buy bread","done":true,"priority":5,"version":3}"#,
        ])
        await store.close()
        await upstream.stop()
    }
}
