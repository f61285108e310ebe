import Foundation
import Testing
@testable import FetchlogCore

/// Issue 37, item 2: `fetchlog serve --sync` keeps the store in sync while serving, and
/// `POST /api/sync` (the action token) runs a pass now, taking turns with the loop. A real
/// `serve` process, the catalog upstream on loopback, a fixed `FETCHLOG_NOW`.
@Suite(.serialized) struct ServeSyncTests {
    static let now = ["FETCHLOG_NOW": "2026-11-22T08:00:00Z"]

    /// A store that defines `catalog` (its `notes`), nothing fetched yet.
    static func store(_ name: String) async throws -> TemporaryDirectory {
        let dir = TemporaryDirectory(name)
        let defined = try await runFetchlog(["--store", dir.sub("store"), "source", "add", Repo.root + "/docs/manifests/notes.json"])
        #expect(defined.status == 0, "\(defined.stderr)")
        return dir
    }

    /// `POST /api/sync`'s rows, as `[resource: outcome]`, with the request count.
    static func rows(_ body: String) throws -> [String] {
        try (JSONValue.parse(body).arrayValue ?? []).map { row in
            "\(row["resource"]?.stringValue ?? "?") \(row["outcome"]?.stringValue ?? "?") \(row["requests"]?.intValue ?? -1)"
        }
    }

    @Test func aPassOnDemandWithoutTheLoop() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = try await Self.store("serve-sync-once")
        let server = try await ServeProcess(store: dir.sub("store"), arguments: ["--upstream", upstream.base], environment: Self.now,
                                            readsActionToken: true)
        let auth = ("Authorization", "Bearer \(server.actionToken)")
        // An action: refused without the token, nothing fetched.
        #expect(try await server.get("/api/sync", method: .POST).status == 401)
        let first = try await server.get("/api/sync", method: .POST, headers: [auth])
        #expect(first.status == 200, "\(first.body)")
        #expect(try Self.rows(first.body) == ["catalog/notes refreshed 1"])
        // Fresh now (a day, the manifest's default): asked again, nothing is sent.
        let again = try await server.get("/api/sync", method: .POST, headers: [auth])
        #expect(try Self.rows(again.body) == ["catalog/notes fresh 0"])
        try await server.stop()
        await upstream.stop()
    }

    @Test func theLoopSyncsWhileServingAndHoldsTheStoresSync() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = try await Self.store("serve-sync-loop")
        let server = try await ServeProcess(store: dir.sub("store"), arguments: ["--upstream", upstream.base, "--sync"], environment: Self.now,
                                            readsActionToken: true)
        let auth = ("Authorization", "Bearer \(server.actionToken)")
        // The loop's first pass fetches `notes` by itself: wait for it in the log.
        var held = false
        for _ in 0 ..< 6000 where !held {
            let log = try await server.get("/api/log")
            held = log.body.contains(#""label":"/notes""#)
            if !held { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(held)
        // A pass asked for now takes its turn after the loop's, and finds it fresh.
        let now = try await server.get("/api/sync", method: .POST, headers: [auth])
        #expect(now.status == 200, "\(now.body)")
        #expect(try Self.rows(now.body) == ["catalog/notes fresh 0"])
        // The server holds the store's sync: another sync is refused (75), nothing done.
        let beside = try await runFetchlog(["--store", dir.sub("store"), "sync", "--once", "--upstream", upstream.base], environment: Self.now)
        #expect(beside.status == 75, "\(beside.stderr)")
        #expect(beside.stderr.contains("another sync is running on "), "\(beside.stderr)")
        try await server.stop()
        await upstream.stop()
    }
    /// `GET /api/sync` read until the loop's first pass has ended (it runs at the server's
    /// start, beside the first requests): the condition, not a time, ends the wait.
    static func scheduleAfterFirstPass(_ server: ServeProcess) async throws -> ServeProcess.Answer {
        for _ in 0 ..< 6000 {
            let answer = try await server.get("/api/sync")
            if answer.status != 200 || !answer.body.contains(#""lastPass":null"#) { return answer }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await server.get("/api/sync")
    }

    /// The schedule of a held resource, without the loop: fresh for the day a manifest's
    /// resource is fresh for (the catalog sends no Cache-Control), so next asked a day after
    /// its fetch; a read, so no token.
    @Test func theScheduleSaysWhenAHeldResourceIsNextAsked() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = try await Self.store("serve-sync-schedule")
        let fetched = try await runFetchlog(["--store", dir.sub("store"), "--upstream", upstream.base, "--retries", "0", "fetch", "catalog", "notes"],
                                            environment: ["FETCHLOG_NOW": "2026-11-22T07:50:00Z"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let server = try await ServeProcess(store: dir.sub("store"), arguments: ["--upstream", upstream.base], environment: Self.now)
        let schedule = try await server.get("/api/sync")
        #expect(schedule.status == 200)
        #expect(schedule.body == #"{"loop":null,"now":"2026-11-22T08:00:00.000Z","resources":[{"backingOff":false,"backoffUntil":null,"due":false,"failures":0,"level":"fresh","nextRefresh":"2026-11-23T07:50:00.000Z","pages":1,"pendingWrites":0,"resource":"catalog/notes"}]}"# + "\n")
        try await server.stop()
        await upstream.stop()
    }

    /// A resource whose fetch failed (nothing listens on port 1) backs off 30 s plus its
    /// jitter (1.922 s: FNV-1a of "catalog/notes" modulo a tenth of the wait) from the failed
    /// attempt: the loop's first pass leaves it alone, and the schedule says until when.
    @Test func theScheduleSaysWhatBacksOffUntilWhenAndWhatTheLoopDid() async throws {
        let dir = try await Self.store("serve-sync-backoff")
        let unreachable = "http://127.0.0.1:1"
        let failed = try await runFetchlog(["--store", dir.sub("store"), "--upstream", unreachable, "--retries", "0", "fetch", "catalog", "notes"],
                                           environment: Self.now)
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(SyncTiming().backoff(failures: 1, of: "catalog/notes") == 31_922)
        let server = try await ServeProcess(store: dir.sub("store"), arguments: ["--upstream", unreachable, "--sync"],
                                            environment: ["FETCHLOG_NOW": "2026-11-22T08:00:10Z"])
        let schedule = try await Self.scheduleAfterFirstPass(server)
        #expect(schedule.status == 200)
        let until = "2026-11-22T08:00:31.922Z"
        let pass = #"{"at":"2026-11-22T08:00:10.000Z","failed":true,"nextDue":"\#(until)","requests":0,"summary":"sync: 1 resource: 1 backing-off; 0 requests; next due \#(until)"}"#
        #expect(schedule.body == #"{"loop":{"lastPass":\#(pass),"passing":false,"running":true},"now":"2026-11-22T08:00:10.000Z","resources":[{"backingOff":true,"backoffUntil":"\#(until)","due":false,"failures":1,"level":"missing","nextRefresh":"\#(until)","pages":1,"pendingWrites":0,"resource":"catalog/notes"}]}"# + "\n")
        try await server.stop()
    }
}
