import FetchlogCore
import Foundation
import NIOHTTP1
import SampleUpstream
import Testing

/// Issue 33's acceptance: one pusher at a time per store. Three pushes of the same pending
/// mutations started at once — two `fetchlog push` processes and `POST /api/push` to a
/// `fetchlog serve` over the same store — against the sample notes server set to IGNORE
/// `Idempotency-Key` (as most real APIs do): every mutation is applied exactly once upstream,
/// confirmed by exactly one of the three, and the store's notes are the server's. 50 trials,
/// each adding a seeded number of creates and changes offline first (one store and one
/// serve for them all, to stay affordable). Run with the claim disabled, all 50 trials
/// failed: in 38 the server applied 1 to 8 writes too many, in the others a mutation sent
/// twice came back refused (a duplicate title, 409; a stale If-Match, 412).
@Suite struct PushClaimRaceTests {
    @Test func threeRacingPushesApplyEveryMutationOnceUpstreamThatIgnoresIdempotencyKeys() async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["FETCHLOG_RACE_SEED"] ?? "") ?? 0x2026_1127
        var random = JSONTapeTests.SplitMix(state: seed)
        let upstream = try await CatalogUpstream.start()
        await upstream.server.setHonoursIdempotencyKey(false)
        // Every notes request waits 50 ms before it is answered: a push lasts as long as a
        // process takes to start, so the three overlap (without the claim, two sent the same
        // mutation in nearly every trial).
        await upstream.server.setFaults(try FaultSpec.parse("latency=50ms@catalog/notes"))
        let dir = TemporaryDirectory("writes-race")
        let path = dir.sub("store")
        // The test's own store over the same directory: it defines the manifest, fetches, and
        // records the mutations (offline: it never pushes).
        let store = try await OfflineWritesTests.openStore(dir, "store", upstream: upstream.base)
        let server = try await ServeWriteTests.serve(path, upstream: upstream.base)
        var expectedPerNote = await upstream.server.appliedPerNote
        var waited = 0
        for trial in 0 ..< 50 {
            let context = "seed \(seed) (FETCHLOG_RACE_SEED to repeat), trial \(trial)"
            // The notes again, so a change of a held note goes without If-Match (the page's
            // version is newer than any answer): a repeated one would be applied again.
            _ = try await store.fetchManifestResource(source: "catalog", resource: "notes")
            let held = (await upstream.server.notes).keys.sorted()
            var mutations: [PendingMutation] = []
            var changedNotes: [Int] = []
            for index in 0 ..< Int.random(in: 1 ... 4, using: &random) {
                mutations.append(try await store.write(.create, source: "catalog", resource: "notes", fields: [
                    ("title", .string("trial \(trial) note \(index)")), ("priority", .number(Int.random(in: 1 ... 5, using: &random))),
                ]))
            }
            for _ in 0 ..< Int.random(in: 1 ... 4, using: &random) {
                let note = held.randomElement(using: &random)!
                changedNotes.append(note)
                mutations.append(try await store.write(.update, source: "catalog", resource: "notes", key: String(note),
                                                       fields: [("priority", .number(Int.random(in: 1 ... 5, using: &random)))]))
            }
            let appliedBefore = await upstream.server.appliedWrites.count

            // The three at once: two processes, and the server's push (which runs in its own
            // process, answering the request).
            async let first = runFetchlog(["--store", path, "--upstream", upstream.base, "--retries", "0", "push", "--format", "json"])
            async let second = runFetchlog(["--store", path, "--upstream", upstream.base, "--retries", "0", "push", "--format", "json"])
            async let third = server.get("/api/push", method: .POST, headers: [ServeWriteTests.json, ("Authorization", "Bearer \(server.actionToken)")])
            let (a, b, c) = try await (first, second, third)
            #expect(a.status == 0 && b.status == 0 && c.status == 200, "\(context): \(a.stderr) \(b.stderr) \(c.body)")
            let reports = [try JSONValue.parse(a.stdout), try JSONValue.parse(b.stdout), try JSONValue.parse(c.body)]
            // Each mutation confirmed by exactly one of them; nothing else reported.
            let confirmed = reports.flatMap { ($0["confirmed"]?.arrayValue ?? []).compactMap(\.intValue) }.sorted()
            #expect(confirmed == mutations.map { Int($0.seq) }, "\(context): \(reports.map { $0.canonicalText() })")
            for name in ["conflicts", "rejected", "paused", "failed", "held"] {
                #expect(reports.allSatisfy { $0[name] == .array([]) }, "\(context): \(name) in \(reports.map { $0.canonicalText() })")
            }
            waited += reports.filter { !($0["waitedFor"]?.isNull ?? true) }.count
            // An ignored Idempotency-Key: only the claim keeps a mutation from being applied twice.
            let applied = await upstream.server.appliedWrites
            #expect(applied.count - appliedBefore == mutations.count, "\(context): \(applied.dropFirst(appliedBefore).map { "\($0.method) \($0.path) \($0.key ?? "-")" })")
            #expect(applied.dropFirst(appliedBefore).compactMap(\.key).sorted()
                        == mutations.map(\.idempotencyKey).sorted(), "\(context)")
            let perNote = await upstream.server.appliedPerNote
            let newest = perNote.keys.max() ?? 0
            for note in changedNotes { expectedPerNote[note, default: 0] += 1 }
            for created in 0 ..< (mutations.count - changedNotes.count) { expectedPerNote[newest - created] = 1 }
            #expect(perNote == expectedPerNote, "\(context)")
            expectedPerNote = perNote

            // The store's notes are the server's, nothing left pending.
            try await store.catchUp()
            #expect(store.pendingMutations.isEmpty, "\(context): \(store.pendingMutations.map { "\($0.seq) \($0.state)" })")
            let notes = await upstream.server.notes
            for confirmedOnly in [false, true] {
                let view = try #require(ItemsView(state: store.snapshot.state, source: "catalog", resource: "notes", confirmedOnly: confirmedOnly))
                let shown = Dictionary(uniqueKeysWithValues: view.items.map { (ItemsView.text($0["id"]), $0.canonicalText()) })
                let expected = Dictionary(uniqueKeysWithValues: try notes.map { (String($0.key), try JSONValue.parse($0.value).canonicalText()) })
                #expect(shown == expected, "\(context): confirmedOnly \(confirmedOnly)")
            }
        }
        // The pushes did race: some waited for another (and said so in their answer).
        #expect(waited > 0, "seed \(seed): no push waited for another")
        try await server.stop()
        await store.close()
        await upstream.stop()
    }
}
