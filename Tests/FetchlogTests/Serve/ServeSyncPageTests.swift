import Foundation
import Testing
@testable import FetchlogCore

/// Issue 37, item 2, on the page: `fetchlog serve --sync` with the page open in headless
/// chromium (Tests/Browser/sync_page_test.py; a machine without chromium and chromedriver
/// fails here, as ServePageTests says). The sync panel shows when each resource is next
/// asked, and a note changed upstream arrives in the open page once a pass brings it.
///
/// The server's clock is fixed (`FETCHLOG_NOW`), so every time shown is known here: the
/// notes were fetched ten minutes before it and a manifest's resource is fresh for a day
/// (the catalog sends no Cache-Control), so the loop's first pass asks nothing. A pass only
/// revalidates what is due, and a fixed clock never makes the notes due by age: the test
/// makes them due through the log instead (the manifest redefined with a five-minute ttl,
/// an event the open page also receives), then `POST /api/sync` runs the pass.
@Suite(.serialized) struct ServeSyncPageTests {
    static let fetchedAt = "2026-11-22T07:50:00Z"
    static let now = "2026-11-22T08:00:00Z"

    @Test func theSyncPanelShowsTheNextRefreshAndAChangeUpstreamArrivesLive() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = try await ServeSyncTests.store("serve-sync-page")
        let store = dir.sub("store")
        let fetched = try await runFetchlog(["--store", store, "--upstream", upstream.base, "--retries", "0", "fetch", "catalog", "notes"],
                                            environment: ["FETCHLOG_NOW": Self.fetchedAt])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let server = try await ServeProcess(store: store, arguments: ["--upstream", upstream.base, "--sync"], environment: ["FETCHLOG_NOW": Self.now],
                                            readsActionToken: true)

        // Fresh for a day from the fetch: the first refresh, and the loop's first pass's summary.
        let fetchTime = try #require(Timestamp(iso8601: Self.fetchedAt))
        let nextRefresh = Timestamp(milliseconds: fetchTime.milliseconds + 86_400_000).iso8601
        #expect(nextRefresh == "2026-11-23T07:50:00.000Z")
        let items = try #require(try await ServePageTests.json(store, ["export", "items/catalog/notes"])["items"]?.arrayValue)
        let titles = items.compactMap { $0["title"]?.stringValue }
        #expect(titles == ["buy milk", "call the plumber", "write the report"])
        let expected: JSONValue = .object([
            ("resource", .string("catalog/notes")), ("nextRefresh", .string(nextRefresh)), ("shown", .string("next refresh \(nextRefresh)")),
            ("lastPassAt", .string("2026-11-22T08:00:00.000Z")),
            ("summary", .string("sync: 1 resource: 1 fresh; 0 requests; next due \(nextRefresh)")),
            ("view", .string("items/catalog/notes")), ("rows", .number(items.count)), ("title", .string("buy milk")),
        ])
        let expectedFile = dir.sub("expected.json")
        try expected.canonicalText().write(toFile: expectedFile, atomically: true, encoding: .utf8)

        let browser = try BrowserScript(script: Repo.root + "/Tests/Browser/sync_page_test.py", arguments: [server.base + "/", expectedFile],
                                        log: dir.sub("sync_page_test.stderr"))
        let ready = try await browser.readLine()
        if ready != "ready" {
            let early = try await browser.finish()
            Issue.record("sync_page_test.py stopped before the change upstream (\(early.status)): \(early.stderr)")
        } else {
            // The change, upstream, over HTTP: the store knows nothing of it yet.
            let changed = try await server.get("/catalog/notes/1", method: .PATCH, headers: [("Content-Type", "application/json")],
                                               body: #"{"title":"buy oat milk"}"#, via: upstream.base)
            #expect(changed.status == 200, "\(changed.body)")
            // Due now: the manifest again with a five-minute ttl (fetched ten minutes ago).
            let manifest = try String(contentsOfFile: Repo.root + "/docs/manifests/notes.json", encoding: .utf8)
                .replacingOccurrences(of: #""fetchlog": {"#, with: #""fetchlog": {"ttl": "5m", "#)
            #expect(manifest.contains(#""ttl": "5m""#))
            try manifest.write(toFile: dir.sub("notes-5m.json"), atomically: true, encoding: .utf8)
            let redefined = try await runFetchlog(["--store", store, "source", "add", dir.sub("notes-5m.json")], environment: ["FETCHLOG_NOW": Self.now])
            #expect(redefined.status == 0, "\(redefined.stderr)")
            let schedule = try JSONValue.parse(try await server.get("/api/sync").body)
            #expect(schedule["resources"]?.arrayValue?.first?["due"] == .bool(true), "\(schedule.canonicalText())")
            // The pass, now: the notes asked again with their validators; the new body comes back.
            let pass = try await server.get("/api/sync", method: .POST, headers: [("Authorization", "Bearer \(server.actionToken)")])
            #expect(pass.status == 200, "\(pass.body)")
            #expect(try ServeSyncTests.rows(pass.body) == ["catalog/notes refreshed 1"])
            // Fresh for five minutes from the pass.
            let after = "2026-11-22T08:05:00.000Z"
            let live: JSONValue = .object([
                ("title", .string("buy oat milk")), ("gone", .string("buy milk")), ("nextRefresh", .string(after)),
                ("summary", .string("sync: 1 resource: 1 refreshed; 1 request; next due \(after)")),
            ])
            browser.send(live.canonicalText() + "\n")
        }
        let result = try await browser.finish()
        #expect(result.status == 0, "sync_page_test.py: \(result.stderr)")
        #expect(result.stdout == "ok\n", "\(result.stdout)")
        try await server.stop()
        await upstream.stop()
    }
    /// A resource whose fetch failed (nothing listens on port 1): the panel says it backs off
    /// until its failed attempt plus 30 s and its jitter (1.922 s, as ServeSyncTests checks
    /// against `GET /api/sync`), and what the loop's first pass did.
    @Test func theSyncPanelSaysWhatBacksOffUntilWhen() async throws {
        let dir = try await ServeSyncTests.store("serve-sync-page-backoff")
        let store = dir.sub("store")
        let unreachable = "http://127.0.0.1:1"
        let failed = try await runFetchlog(["--store", store, "--upstream", unreachable, "--retries", "0", "fetch", "catalog", "notes"],
                                           environment: ["FETCHLOG_NOW": Self.now])
        #expect(failed.status == 1, "\(failed.stderr)")
        let server = try await ServeProcess(store: store, arguments: ["--upstream", unreachable, "--sync"], environment: ["FETCHLOG_NOW": "2026-11-22T08:00:10Z"])
        let until = "2026-11-22T08:00:31.922Z"
        let expected: JSONValue = .object([
            ("resource", .string("catalog/notes")), ("nextRefresh", .string(until)), ("shown", .string("backing off until \(until)")),
            ("lastPassAt", .string("2026-11-22T08:00:10.000Z")),
            ("summary", .string("sync: 1 resource: 1 backing-off; 0 requests; next due \(until)")),
        ])
        let expectedFile = dir.sub("expected.json")
        try expected.canonicalText().write(toFile: expectedFile, atomically: true, encoding: .utf8)
        let browser = try BrowserScript(script: Repo.root + "/Tests/Browser/sync_page_test.py", arguments: [server.base + "/", expectedFile],
                                        log: dir.sub("sync_page_test.stderr"))
        let result = try await browser.finish()
        #expect(result.status == 0, "sync_page_test.py: \(result.stderr)")
        #expect(result.stdout == "ok\n", "\(result.stdout)")
        try await server.stop()
    }
}
