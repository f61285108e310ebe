import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore

/// `fetchlog sync --once` against the sample upstream over loopback, on a real store: what
/// it asks, what it answers, how it exits. Time is `FETCHLOG_NOW`, never the wall clock.
@Suite struct SyncCommandTests {
    static let t0 = "2026-11-22T08:00:00Z"

    static func at(_ time: String) -> [String: String] { ["FETCHLOG_NOW": time] }

    /// `sync --once ARGS` on the rig's store through its upstream, no retries.
    static func sync(_ rig: ManifestCLIRig, _ arguments: [String], at time: String, upstream: String? = nil) async throws -> CommandResult {
        try await runFetchlog(["--store", rig.store, "--upstream", upstream ?? rig.upstream.base, "--retries", "0", "sync", "--once"] + arguments,
                              environment: at(time))
    }

    /// The rows of a `--format json` run: resource → outcome.
    static func outcomes(_ result: CommandResult) throws -> [String] {
        try (JSONValue.parse(result.stdout).arrayValue ?? []).map { "\($0["resource"]?.stringValue ?? "?") \($0["outcome"]?.stringValue ?? "?")" }
    }

    /// The catalog's GETs the upstream answered since its log was last cleared: `STATUS PATH`.
    static func answered(_ rig: ManifestCLIRig) async -> [String] {
        await rig.upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }.map { "\($0.method) \($0.status) \($0.path)" }
    }

    static let catalog = (try? String(contentsOfFile: Repo.root + "/docs/manifests/catalog.json", encoding: .utf8)) ?? ""
    static let notes = (try? String(contentsOfFile: Repo.root + "/docs/manifests/notes.json", encoding: .utf8)) ?? ""

    @Test func everyResourceOnceThenNothingWhileFreshThen304sOnceStale() async throws {
        let rig = try await ManifestCLIRig.start("sync-once", manifest: Self.catalog)
        let first = try await Self.sync(rig, ["--format", "json"], at: Self.t0)
        #expect(first.status == 0, "\(first.stderr)")
        // Every selected resource, each child after its parent, all new.
        #expect(try Self.outcomes(first) == ["catalog/items refreshed", "catalog/linked refreshed", "catalog/cursored refreshed",
                                             "catalog/offsets refreshed", "catalog/headed refreshed", "catalog/ended refreshed",
                                             "catalog/reviews refreshed"])
        let asked = await Self.answered(rig)
        #expect(asked.count == 31)
        // The parent's list once (reviews' fetch lists it first; items is not asked again).
        #expect(asked.filter { $0.hasSuffix(" /catalog/pages?page=1") } == ["GET 200 /catalog/pages?page=1"])
        #expect(first.stderr == "fetchlog: sync: 7 resources: 7 refreshed; 31 requests; next due 2026-11-22T08:15:00.000Z\n")
        let rows = try JSONValue.parse(first.stdout).arrayValue ?? []
        #expect(rows.first?.canonicalText() == #"{"detail":null,"nextDue":"2026-11-22T08:15:00.000Z","outcome":"refreshed","requests":3,"resource":"catalog/items"}"#)

        // Five minutes on: everything is fresh (the list's known end too); nothing is asked.
        await rig.upstream.server.clearRequestLog()
        let fresh = try await Self.sync(rig, [], at: "2026-11-22T08:05:00Z")
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(await Self.answered(rig).isEmpty)
        #expect(fresh.stderr == "fetchlog: sync: 7 resources: 7 fresh; 0 requests; next due 2026-11-22T08:15:00.000Z\n")
        #expect(fresh.stdout.contains("catalog/items     fresh    2026-11-22T08:15:00.000Z  -"), "\(fresh.stdout)")

        // Twenty minutes on: every page is asked again with its validators, and unchanged.
        let stale = try await Self.sync(rig, ["--format", "json"], at: "2026-11-22T08:20:00Z")
        #expect(stale.status == 0, "\(stale.stderr)")
        let again = await rig.upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }
        #expect(again.count == 31)
        // Every page unchanged, asked with its ETag; the list's end (a 404 past its last page,
        // no body held, so no validator) is asked again to confirm it still ends there.
        #expect(again.filter { $0.status != 304 }.map { "\($0.status) \($0.path) \($0.ifNoneMatch ?? "-")" } == ["404 /catalog/ended?page=4 -"])
        #expect(again.filter { $0.status == 304 }.allSatisfy { $0.ifNoneMatch != nil })
        #expect(try Self.outcomes(stale).allSatisfy { $0.hasSuffix(" not-modified") })
        #expect(stale.stderr == "fetchlog: sync: 7 resources: 7 not-modified; 31 requests; next due 2026-11-22T08:35:00.000Z\n")
        await rig.stop()
    }

    /// An incremental resource, once stale, is asked only for what changed since the last
    /// value held (its cursor read from the log), not listed again from its start.
    @Test func anIncrementalResourceAsksOnlyWhatChanged() async throws {
        let manifest = IncrementalTests.manifest.replacingOccurrences(
            of: #""initial_value":"2026-01-01T00:00:00Z"}}}"#, with: #""initial_value":"2026-01-01T00:00:00Z"}},"fetchlog":{"ttl":"10m"}}"#)
        #expect(manifest != IncrementalTests.manifest)
        let rig = try await ManifestCLIRig.start("sync-incremental", manifest: manifest)
        let first = try await Self.sync(rig, ["catalog/changes", "--format", "json"], at: Self.t0)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(await rig.upstream.asked == (1 ... 3).map { "/catalog/changes?\(IncrementalTests.since(1))&page=\($0)" })
        // Fresh for ten minutes: nothing asked.
        let fresh = try await Self.sync(rig, ["catalog/changes", "--format", "json"], at: "2026-11-22T08:05:00Z")
        #expect(try Self.outcomes(fresh) == ["catalog/changes fresh"])
        #expect(await rig.upstream.asked.count == 3)
        // Stale: one request, from the newest `updated_at` held (item 12's).
        let stale = try await Self.sync(rig, ["catalog/changes", "--format", "json"], at: "2026-11-22T08:11:00Z")
        #expect(stale.status == 0, "\(stale.stderr)")
        #expect(await rig.upstream.asked.dropFirst(3) == ["/catalog/changes?\(IncrementalTests.since(12))&page=1"])
        #expect(try await rig.ids("changes") == Array(1 ... 12))
        await rig.stop()
    }

    @Test func selectorsNarrowTheSyncAndAnUnknownSourceIsAUsageError() async throws {
        let rig = try await ManifestCLIRig.start("sync-only", manifest: Self.catalog)
        let items = try await Self.sync(rig, ["catalog/items", "--format", "json"], at: Self.t0)
        #expect(items.status == 0, "\(items.stderr)")
        #expect(try Self.outcomes(items) == ["catalog/items refreshed"])
        #expect(await Self.answered(rig) == ["GET 200 /catalog/pages?page=1", "GET 200 /catalog/pages?page=2", "GET 200 /catalog/pages?page=3"])
        let unknown = try await Self.sync(rig, ["catalgo"], at: Self.t0)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no source named 'catalgo' (did you mean 'catalog'?)"), "\(unknown.stderr)")
        await rig.stop()
    }

    @Test func anUpstreamDownExitsOneThenBacksOff() async throws {
        let rig = try await ManifestCLIRig.start("sync-down", manifest: Self.catalog)
        await rig.upstream.server.setFaults([Fault(kind: .status(503))])
        let down = try await Self.sync(rig, ["catalog/items", "--format", "json"], at: Self.t0)
        #expect(down.status == 1)
        #expect(try Self.outcomes(down) == ["catalog/items failed"])
        #expect(await Self.answered(rig) == ["GET 503 /catalog/pages?page=1"])
        let row = try #require(JSONValue.parse(down.stdout).arrayValue?.first)
        #expect(row["detail"]?.stringValue == "http-status: HTTP 503 Service Unavailable", "\(row)")
        #expect(down.stderr == "fetchlog: sync: 1 resource: 1 failed; 1 request; next due \(row["nextDue"]?.stringValue ?? "?")\n")
        // Backing off: asked again no sooner than 30 s on (a tenth more at most), still exit 1.
        let nextDue = try #require(row["nextDue"]?.stringValue.flatMap { Timestamp(iso8601: $0) })
        let start = try #require(Timestamp(iso8601: Self.t0))
        #expect((30_000 ..< 33_000).contains(nextDue.milliseconds - start.milliseconds))
        await rig.upstream.server.clearFaults()
        await rig.upstream.server.clearRequestLog()
        let waiting = try await Self.sync(rig, ["catalog/items", "--format", "json"], at: "2026-11-22T08:00:10Z")
        #expect(waiting.status == 1)
        #expect(try Self.outcomes(waiting) == ["catalog/items backing-off"])
        #expect(await Self.answered(rig).isEmpty)
        // Back up, and the backoff over: fetched, exit 0.
        let back = try await Self.sync(rig, ["catalog/items", "--format", "json"], at: "2026-11-22T08:01:00Z")
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try Self.outcomes(back) == ["catalog/items refreshed"])
        await rig.stop()
    }

    @Test func pendingWritesArePushedOnceBeforeTheRefetch() async throws {
        let rig = try await ManifestCLIRig.start("sync-writes", manifest: Self.notes)
        #expect(try await rig.fetch(["notes"], environment: Self.at(Self.t0)).status == 0)
        let set = try await runFetchlog(["--store", rig.store, "--offline", "item", "set", "catalog", "notes", "1", "done=true"],
                                        environment: Self.at(Self.t0))
        #expect(set.status == 0, "\(set.stderr)")
        await rig.upstream.server.clearRequestLog()
        // Still fresh (a day's ttl), but a write waits: pushed, then the list read back.
        let sync = try await Self.sync(rig, ["--format", "json"], at: "2026-11-22T08:01:00Z")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try Self.outcomes(sync) == ["catalog/notes pushed", "catalog/notes refreshed"])
        #expect(await Self.answered(rig) == ["PATCH 200 /catalog/notes/1", "GET 200 /catalog/notes"])
        #expect(await rig.upstream.server.appliedWrites.count == 1)
        #expect(sync.stderr == "fetchlog: sync: 1 resource: 1 pushed, 1 refreshed; 2 requests; next due 2026-11-23T08:01:00.000Z\n")
        // Nothing waits now: the next sync sends nothing.
        await rig.upstream.server.clearRequestLog()
        let next = try await Self.sync(rig, [], at: "2026-11-22T08:02:00Z")
        #expect(next.status == 0, "\(next.stderr)")
        #expect(await Self.answered(rig).isEmpty)
        #expect(await rig.upstream.server.appliedWrites.count == 1)
        await rig.stop()
    }

    @Test func writesGoAsSoonAsTheUpstreamAnswersAgain() async throws {
        let rig = try await ManifestCLIRig.start("sync-back-online", manifest: Self.notes)
        #expect(try await rig.fetch(["notes"], environment: Self.at(Self.t0)).status == 0)
        #expect(try await runFetchlog(["--store", rig.store, "--offline", "item", "set", "catalog", "notes", "1", "done=true"],
                                      environment: Self.at(Self.t0)).status == 0)
        // Down, telling the write to come back in an hour; the list's 503 names no time.
        await rig.upstream.server.setFaults([Fault(match: "/catalog/notes/1", kind: .status(503, retryAfter: 3600)),
                                             Fault(match: "/catalog/notes", kind: .status(503, retryAfter: nil))])
        await rig.upstream.server.clearRequestLog()
        let down = try await Self.sync(rig, ["--format", "json"], at: "2026-11-22T08:01:00Z")
        #expect(down.status == 1)
        #expect(try Self.outcomes(down) == ["catalog/notes failed", "catalog/notes failed"])
        #expect(await Self.answered(rig) == ["PATCH 503 /catalog/notes/1", "GET 503 /catalog/notes"])
        // Back: the list's backoff is over (the write's hour is not); the list answers, and
        // the write goes at once.
        await rig.upstream.server.clearFaults()
        await rig.upstream.server.clearRequestLog()
        let back = try await Self.sync(rig, ["--format", "json"], at: "2026-11-22T08:03:00Z")
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try Self.outcomes(back) == ["catalog/notes pushed", "catalog/notes not-modified"])
        #expect(await Self.answered(rig) == ["GET 304 /catalog/notes", "PATCH 200 /catalog/notes/1"])
        #expect(await rig.upstream.server.appliedWrites.count == 1)
        await rig.stop()
    }

    @Test func atMostNRequestsAtOncePerOrigin() async throws {
        let rig = try await ManifestCLIRig.start("sync-per-origin", manifest: Self.catalog)
        // Each answer held a moment at the server, so requests sent together overlap there.
        await rig.upstream.server.setFaults([Fault(kind: .latency(milliseconds: 50))])
        let some = ["catalog/items", "catalog/linked", "catalog/cursored", "catalog/offsets", "catalog/headed"]
        let one = try await Self.sync(rig, some + ["--per-origin", "1"], at: Self.t0)
        #expect(one.status == 0, "\(one.stderr)")
        let asked = await Self.answered(rig).count
        #expect(asked > 5)
        #expect(await rig.upstream.server.maxRequestsAtOnce == 1)
        await rig.upstream.server.clearRequestLog()
        let two = try await Self.sync(rig, some + ["--per-origin", "2"], at: "2026-11-22T09:00:00Z")
        #expect(two.status == 0, "\(two.stderr)")
        #expect(await Self.answered(rig).count == asked)
        #expect(await rig.upstream.server.maxRequestsAtOnce <= 2)
        let zero = try await Self.sync(rig, ["--per-origin", "0"], at: Self.t0)
        #expect(zero.status == 64)
        #expect(zero.stderr.contains("--per-origin takes a whole number from 1 to 64"), "\(zero.stderr)")
        await rig.stop()
    }

    @Test func aRegisteredSourceKeepsWhatTheStoreHolds() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("sync-seed")
        let store = dir.sub("store")
        func run(_ arguments: [String], at time: String) async throws -> CommandResult {
            try await runFetchlog(["--store", store, "--upstream", upstream.base, "--retries", "0"] + arguments, environment: Self.at(time))
        }
        #expect(try await run(["fetch", "tvmaze", "shows", "--pages", "0-1"], at: Self.t0).status == 0)
        #expect(try await run(["fetch", "brastlewark", "census"], at: Self.t0).status == 0)
        await upstream.server.clearRequestLog()
        // A seed source lists no resources: what is held is what is kept. The census is held
        // until refreshed by hand (never due); the show pages are fresh for 15 minutes.
        let fresh = try await run(["sync", "--once", "--format", "json"], at: "2026-11-22T08:10:00Z")
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(try Self.outcomes(fresh) == ["brastlewark/data.json fresh", "tvmaze/shows?page=0 fresh", "tvmaze/shows?page=1 fresh"])
        let rows = try JSONValue.parse(fresh.stdout).arrayValue ?? []
        #expect(rows.map { $0["nextDue"]?.stringValue ?? "never" } == ["never", "2026-11-22T08:15:00.000Z", "2026-11-22T08:15:00.000Z"])
        #expect(await upstream.server.requestLog.isEmpty)
        let stale = try await run(["sync", "--once", "--format", "json", "tvmaze"], at: "2026-11-22T08:20:00Z")
        #expect(stale.status == 0, "\(stale.stderr)")
        #expect(try Self.outcomes(stale) == ["tvmaze/shows?page=0 not-modified", "tvmaze/shows?page=1 not-modified"])
        // Both pages at once (one origin, up to four): in either order.
        let asked = await upstream.server.requestLog.map { "\($0.status) \($0.path)" }
        #expect(asked.sorted() == ["304 /tvmaze/shows?page=0", "304 /tvmaze/shows?page=1"])
        await upstream.stop()
    }

    @Test func aSecondSyncOnTheStoreIsRefusedAtOnce() async throws {
        let rig = try await ManifestCLIRig.start("sync-claim", manifest: Self.catalog)
        let claim = try SyncClaim.take(rig.store, started: Timestamp(iso8601: Self.t0)!)
        let second = try await Self.sync(rig, [], at: Self.t0)
        #expect(second.status == 75)
        #expect(second.stderr == "fetchlog: another sync is running on \(rig.store) (pid \(getpid()), started 2026-11-22T08:00:00.000Z); nothing was done\n")
        #expect(second.stdout.isEmpty)
        #expect(await Self.answered(rig).isEmpty)
        claim.release()
        #expect(try await Self.sync(rig, ["catalog/items"], at: Self.t0).status == 0)
        await rig.stop()
    }
}
