import AsyncHTTPClient
import Foundation
import NIOCore
import SampleUpstream
import Synchronization
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Issue 37's acceptance, in one process on a clock only the test moves: an upstream whose
/// data changes, which goes down and comes back, with a write made while it is down.
///
/// - every change is in the view within one freshness lifetime of happening;
/// - an unchanged resource costs one conditional request per lifetime and no more;
/// - during the outage the requests follow the backoff schedule, counted at the server;
/// - on return the pending write is pushed once, with its `Idempotency-Key`, before the
///   resource is refetched.
@Suite struct SyncAcceptanceTests {
    /// Three pages of items that never change (15 minutes fresh) and the writable notes
    /// (10 minutes), on the catalog upstream.
    static let manifest = #"""
    {"name":"catalog","client":{"base_url":"https://catalog.example"},"resource_defaults":{"primary_key":"id"},"resources":[
      {"name":"items","endpoint":{"path":"pages","data_selector":"data",
        "paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}},"fetchlog":{"ttl":"15m"}},
      {"name":"notes","endpoint":{"path":"notes","data_selector":"data","paginator":"single_page"},
        "fetchlog":{"ttl":"10m","writes":{"update":{"method":"PATCH","path":"notes/{id}"}}}}
    ]}
    """#

    /// Another client of the upstream changing a note over HTTP (not through this store).
    static func changeUpstream(_ base: String, note: Int, _ json: String) async throws {
        var request = HTTPClientRequest(url: base + "/catalog/notes/\(note)")
        request.method = .PATCH
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: json))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        #expect(response.status.code == 200)
    }

    static func note(_ store: Store, _ key: String) -> JSONValue? {
        ItemsView(state: store.snapshot.state, source: "catalog", resource: "notes")?.item(key: key)
    }

    @Test func changesArriveWithinALifetimeAndAnOutageBacksOffThenPushesOnceBeforeTheRefetch() async throws {
        let rig = try await ClockedRig.start("sync-acceptance", manifest: Self.manifest)
        let (upstream, clock, store) = (rig.upstream, rig.clock, rig.store)

        let t0 = fixedTime.milliseconds
        let minute: Int64 = 60_000
        let timing = SyncTiming()
        // The backoff each resource waits after its first, second and third failure in a
        // row: 30 s, 60 s, 120 s, each with its own jitter (a tenth at most, from its name).
        let itemsWait = (1...3).map { timing.backoff(failures: $0, of: "catalog/items") }
        let notesWait = (1...3).map { timing.backoff(failures: $0, of: "catalog/notes") }
        #expect(itemsWait.map { $0 / 1000 } == [31, 64, 124] && notesWait.map { $0 / 1000 } == [31, 64, 124])
        // The outage starts after the pass at 20 minutes; both are next asked at 30 (the
        // items' lifetime ends, the notes' too), fail, and back off from there.
        let down = t0 + 30 * minute
        let itemsTries = [down, down + itemsWait[0], down + itemsWait[0] + itemsWait[1]]
        let notesTries = [down, down + notesWait[0], down + notesWait[0] + notesWait[1]]
        let itemsBack = itemsTries[2] + itemsWait[2]
        let notesBack = notesTries[2] + notesWait[2]
        // The jitter orders them: the items' schedule runs a little ahead of the notes'.
        #expect(itemsTries[1] < notesTries[1] && itemsTries[2] < notesTries[2] && itemsBack < notesBack)

        let changedAt = Mutex<Timestamp?>(nil)
        let seenAt = Mutex<Timestamp?>(nil)
        let mutation = Mutex<UInt64>(0)
        let sleeper = ClockSleeper(clock: clock, stopAfter: 11) { pass in
            switch pass {
            case 0:
                // Right after the first pass (the worst moment): another client renames note 2.
                #expect(Self.note(store, "2")?["title"] == .string("call the plumber"))
                try await Self.changeUpstream(upstream.base, note: 2, #"{"title":"fix the sink"}"#)
                changedAt.withLock { $0 = clock.now() }
            case 1:
                seenAt.withLock { $0 = clock.now() }
                #expect(Self.note(store, "2")?["title"] == .string("fix the sink"))
            case 3:
                // The upstream goes down, and a change is made here while it is.
                await upstream.server.setFaults([Fault(match: "/catalog", kind: .status(503, retryAfter: nil))])
                let made = try await store.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("done", .bool(true))])
                mutation.withLock { $0 = made.seq }
            case 8:
                // After the notes' third failure: the upstream is back.
                await upstream.server.clearFaults()
            default:
                break
            }
        }

        let passes = Mutex<[SyncPass]>([])
        var runner = SyncRunner(store: store, policy: FreshnessPolicy(sources: .seed), clock: clock)
        runner.onEvent = { event in
            if case .passed(let pass) = event { passes.withLock { $0.append(pass) } }
        }
        await #expect(throws: CancellationError.self) { try await runner.run(sleeper: sleeper) }

        // Within one lifetime: changed right after the pass at 0, in the view at 10 minutes.
        let changed = try #require(changedAt.withLock { $0 })
        let seen = try #require(seenAt.withLock { $0 })
        #expect(changed.milliseconds == t0 && seen.milliseconds == t0 + 10 * minute)

        // One wake-up per due time: each lifetime's end, then each backoff's.
        let wakeUps = [10 * minute, 15 * minute, 20 * minute].map { t0 + $0 }
            + [down, itemsTries[1], notesTries[1], itemsTries[2], notesTries[2], itemsBack, notesBack, notesBack + 10 * minute]
        #expect(sleeper.asked.withLock { $0 } == wakeUps.map { Timestamp(milliseconds: $0) })
        let done = passes.withLock { $0 }
        #expect(done.map(\.at.milliseconds) == [t0] + wakeUps.dropLast())
        #expect(done.map { $0.rows.map { "\($0.target) \($0.outcome.name)" } } == [
            ["catalog/items refreshed", "catalog/notes refreshed"],
            ["catalog/items fresh", "catalog/notes refreshed"],
            ["catalog/items not-modified", "catalog/notes fresh"],
            ["catalog/items fresh", "catalog/notes not-modified"],
            // Down: the write is tried first, then both resources.
            ["catalog/items failed", "catalog/notes failed", "catalog/notes failed"],
            ["catalog/items failed", "catalog/notes backing-off"],
            ["catalog/items backing-off", "catalog/notes failed", "catalog/notes failed"],
            ["catalog/items failed", "catalog/notes backing-off"],
            ["catalog/items backing-off", "catalog/notes failed", "catalog/notes failed"],
            // Back: the items answer, so the write goes at once; the notes are refetched when due.
            ["catalog/items not-modified", "catalog/notes pushed", "catalog/notes backing-off"],
            ["catalog/items fresh", "catalog/notes refreshed"],
        ])

        // Counted at the server, pass by pass (a pass's resources are asked side by side).
        let items = ["/catalog/pages?page=1", "/catalog/pages?page=2", "/catalog/pages?page=3"]
        let log = await upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }.map { "\($0.method) \($0.status) \($0.path)" }
        var expected: [[String]] = [
            items.map { "GET 200 " + $0 } + ["GET 200 /catalog/notes"],
            ["PATCH 200 /catalog/notes/2"], // the other client
            ["GET 200 /catalog/notes"], // 10 min: the change, one lifetime later
            items.map { "GET 304 " + $0 }, // 15 min: unchanged, one conditional request a page
            ["GET 304 /catalog/notes"], // 20 min
        ]
        // 30 min, down: the write, then one request per resource (the list stops at page 1).
        expected.append(["PATCH 503 /catalog/notes/1"])
        expected.append(["GET 503 /catalog/notes", "GET 503 /catalog/pages?page=1"])
        for _ in 1...2 {
            expected.append(["GET 503 /catalog/pages?page=1"])
            expected.append(["PATCH 503 /catalog/notes/1"])
            expected.append(["GET 503 /catalog/notes"])
        }
        // Back: the items revalidated, the write sent once, then the notes refetched with it.
        expected.append(items.map { "GET 304 " + $0 })
        expected.append(["PATCH 200 /catalog/notes/1"])
        expected.append(["GET 200 /catalog/notes"])
        var at = 0
        for group in expected {
            let slice = Array(log.dropFirst(at).prefix(group.count))
            #expect(slice.sorted() == group.sorted(), "requests \(at)..<\(at + group.count)")
            at += group.count
        }
        #expect(log.count == at)

        // Applied once: the other client's change, and this store's with its key (four tries).
        let key = "\(store.log.metadata.storeID):\(mutation.withLock { $0 })"
        #expect(await upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.key ?? "-") \($0.status)" } == [
            "PATCH /catalog/notes/2 - 200", "PATCH /catalog/notes/1 \(key) 200",
        ])
        #expect(await upstream.server.appliedPerNote == [1: 1, 2: 1])
        #expect(store.pendingMutations.isEmpty)
        #expect(Self.note(store, "1")?.canonicalText() == (try JSONValue.parse(#"{"id":1,"title":"buy milk","done":true,"priority":2,"version":2}"#)).canonicalText())
        await rig.stop()
    }
}
