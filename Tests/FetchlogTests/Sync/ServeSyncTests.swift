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
}
