import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// `push` records attempts and answers in batches: a batch's `write.sending` events are
/// committed together before any of its requests leaves, its answers together after; the
/// first mutation goes alone (until the upstream has answered once), and an item's next
/// mutation waits for the next batch. Read back from the log, in order.
@Suite struct PushBatchTests {
    @Test func attemptsAreCommittedTogetherBeforeTheirRequestsAndAnswersTogetherAfter() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-batch")
        let store = try await OfflineWritesTests.openStore(dir, "store", upstream: upstream.base)
        let notes = ("catalog", "notes")
        let bread = try await store.write(.create, source: notes.0, resource: notes.1, fields: [("title", .string("buy bread"))])
        var ids = [bread.seq]
        ids.append(try await store.write(.update, source: notes.0, resource: notes.1, key: "1", fields: [("priority", .number(3))]).seq)
        ids.append(try await store.write(.update, source: notes.0, resource: notes.1, key: "2", fields: [("done", .bool(true))]).seq)
        ids.append(try await store.write(.update, source: notes.0, resource: notes.1, key: "local:\(bread.seq)", fields: [("priority", .number(5))]).seq)
        // Note 1 again: after the answer to its first change, in a batch of its own.
        ids.append(try await store.write(.update, source: notes.0, resource: notes.1, key: "1", fields: [("title", .string("buy oat milk"))]).seq)
        let from = store.durableState.seq + 1

        let report = try await store.push()
        #expect(report.confirmed == ids)
        var labels: [String] = []
        for event in try store.log.events(from: from) where event.label.hasPrefix("write.") {
            let id = try JSONValue.parse(bytes: try #require(event.body))["mutation"]?.intValue ?? -1
            labels.append("\(event.label == WriteEvents.sending ? "sending" : "answered") \(ids.firstIndex(of: UInt64(id)) ?? -1)")
        }
        #expect(labels == ["sending 0", "answered 0",
                           "sending 1", "sending 2", "sending 3", "answered 1", "answered 2", "answered 3",
                           "sending 4", "answered 4"])
        let applied = await upstream.server.appliedWrites
        #expect(applied.map { "\($0.method) \($0.path) \($0.status)" } == [
            "POST /catalog/notes 201", "PATCH /catalog/notes/1 200", "PATCH /catalog/notes/2 200", "PATCH /catalog/notes/4 200", "PATCH /catalog/notes/1 200",
        ])
        #expect(store.pendingMutations.isEmpty)
        await store.close()
        await upstream.stop()
    }
}
