import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// RFC 9111's `no-store` (§5.2.2.5) and `Vary` (§4.1) against the catalog upstream on
/// loopback: a `no-store` answer is kept for the session (the log gets only a `not-stored`
/// marker) unless `fetchlog.keep_no_store` says otherwise, and a response that varies on
/// a request header answers only requests presenting the same value.
@Suite struct NoStoreAndVaryTests {
    static func manifest(keepNoStore: Bool? = nil, language: String = "en") -> String {
        let keep = keepNoStore.map { #","fetchlog":{"keep_no_store":\#($0)}"# } ?? ""
        return #"""
        {"name":"catalog","client":{"base_url":"https://catalog.example"},"resource_defaults":{"primary_key":"id"},"resources":[
          {"name":"secret","endpoint":{"path":"no-store","paginator":"single_page"}\#(keep)},
          {"name":"localized","endpoint":{"path":"localized","paginator":"single_page","headers":{"Accept-Language":"\#(language)"}},
           "fetchlog":{"ttl":"1h"}}
        ]}
        """#
    }

    typealias Rig = ClockedRig

    static let secretItems: [JSONValue] = try! JSONValue.parse(#"[{"id":1,"name":"item 1","size":10},{"id":2,"name":"item 2","size":20}]"#)
        .arrayValue!

    @Test func aNoStoreAnswerIsKeptForTheSessionAndTheLogGetsOnlyAMarker() async throws {
        var rig = try await Rig.start("no-store-session", manifest: Self.manifest())
        let before = try rig.store.log.lastSeq()
        #expect(before == 1) // the manifest's definition
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: "secret")
        #expect(reports.count == 1)
        let report = try #require(reports.first)
        #expect(report.outcome == .fetched)
        #expect(report.recorded == .sessionOnly)
        #expect(report.attempts.map(\.seq) == [0])
        #expect(report.attempts.map(\.sessionOnly) == [.noStore])
        #expect(report.attempts.map(\.pendingSync) == [false])
        // Visible in this session.
        #expect(try rig.items("secret") == Self.secretItems)
        // The log gained exactly one event: the marker, with nothing of the request or response.
        #expect(try rig.store.log.lastSeq() == before + 1)
        let marker = try #require(try rig.events().last)
        #expect(marker.kind == .intent)
        #expect(marker.source == "catalog")
        #expect(marker.label == "not-stored")
        #expect(marker.body.map { String(decoding: $0, as: UTF8.self) } == #"{"path":"/no-store"}"#)
        #expect(marker.request == nil && marker.response == nil)
        #expect(marker.recordedAt == fixedTime)
        #expect(try rig.events().filter { $0.kind != .intent }.isEmpty)
        // The durable state knows when it was asked, and holds nothing of it.
        let key = ResourceKey(source: "catalog", path: "/no-store")
        #expect(rig.store.durableState.documents[key] == nil)
        #expect(rig.store.durableState.status[key]?.notStoredAt == fixedTime)
        #expect(rig.store.durableState.status[key]?.cacheHeaders == [])
        #expect(await rig.upstream.asked == ["/catalog/no-store"])

        // A new session shows nothing of it.
        try await rig.reopen()
        #expect(try rig.items("secret") == [])
        #expect(rig.store.snapshot.state.documents[key] == nil)
        #expect(rig.store.snapshot.state.status[key]?.notStoredAt == fixedTime)
        await rig.stop()
    }

    @Test func keepNoStoreWritesTheAnswerToTheLog() async throws {
        var rig = try await Rig.start("no-store-kept", manifest: Self.manifest(keepNoStore: true))
        let report = try #require(try await rig.store.fetchManifestResource(source: "catalog", resource: "secret").first)
        #expect(report.recorded == .durable)
        #expect(report.attempts.map(\.seq) == [2])
        #expect(report.attempts.map(\.sessionOnly) == [nil])
        #expect(try rig.store.log.lastSeq() == 2)
        let fetched = try #require(try rig.events().last)
        #expect(fetched.kind == .fetched)
        #expect(fetched.response?.header("Cache-Control") == "no-store")
        try await rig.reopen()
        #expect(try rig.items("secret") == Self.secretItems)
        #expect(rig.store.snapshot.state.status[ResourceKey(source: "catalog", path: "/no-store")]?.notStoredAt == nil)
        await rig.stop()
    }

    /// With nothing durable the resource is "missing", which a sync asks at once: the
    /// marker makes it wait its lifetime from the time asked instead (here the source's
    /// `ttl`, an hour: `secret` writes none), never less than `minimumInterval` — the same
    /// plan from the log alone after a reopen (replay), at the same instant.
    @Test func syncWaitsTheResourcesLifetimeAfterANoStoreAnswer() async throws {
        var rig = try await Rig.start("no-store-sync", manifest: Self.manifest())
        let only = [SyncSelector("catalog/secret")]
        var timing = SyncTiming()
        timing.minimumInterval = .seconds(90)
        let policy = FreshnessPolicy(sources: .seed)
        let lifetime: Int64 = 3_600_000
        func entry(at now: Timestamp, timing: SyncTiming = timing) throws -> SyncEntry {
            let plan = SyncPlan(state: rig.store.durableState, policy: policy, now: now, storeID: "s", only: only, timing: timing)
            return try #require(plan.entries.first)
        }
        // Never asked: due now.
        #expect(try entry(at: fixedTime).dueAt == fixedTime)
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "secret")
        let due = Timestamp(milliseconds: fixedTime.milliseconds + lifetime)
        let asked = try entry(at: fixedTime)
        #expect(asked.level == .missing)
        #expect(asked.dueAt == due)
        #expect(!asked.isDue(at: fixedTime))
        #expect(try entry(at: Timestamp(milliseconds: due.milliseconds - 1)).isDue(at: Timestamp(milliseconds: due.milliseconds - 1)) == false)
        #expect(try entry(at: due).isDue(at: due))
        // A minimum interval longer than the lifetime is the floor.
        var slow = timing
        slow.minimumInterval = .seconds(7200)
        #expect(try entry(at: fixedTime, timing: slow).dueAt == Timestamp(milliseconds: fixedTime.milliseconds + 7_200_000))
        // A sync pass now asks nothing; at the due time it asks once more.
        var runner = SyncRunner(store: rig.store, policy: policy, clock: rig.clock, only: only)
        runner.timing = timing
        _ = try await runner.pass()
        #expect(await rig.upstream.asked == ["/catalog/no-store"])
        rig.clock.set(due)
        _ = try await runner.pass()
        #expect(await rig.upstream.asked == ["/catalog/no-store", "/catalog/no-store"])
        #expect(try rig.store.log.lastSeq() == 3) // the definition and two markers
        // The session holds the newest answer only.
        #expect(rig.store.session.events.map(\.recordedAt) == [due])
        // Replayed from the log alone, the same schedule; a checkpoint keeps the marker's time.
        try await rig.reopen()
        #expect(rig.store.origin == .replay(events: 3))
        #expect(try entry(at: due).dueAt == Timestamp(milliseconds: due.milliseconds + lifetime))
        try await rig.store.saveCheckpoint()
        try await rig.reopen()
        #expect(rig.store.origin == .checkpoint(seq: 3, tail: 0))
        let next = Timestamp(milliseconds: due.milliseconds + lifetime)
        #expect(try entry(at: due).dueAt == next)
        await rig.stop()
    }

    /// `Vary: Accept-Language`: the request's value is kept with the response; a request
    /// with another value gets no conditional request and finds it not fresh; the same
    /// value revalidates (304).
    @Test func aVaryingResponseAnswersOnlyTheSameRequestHeaderValue() async throws {
        var rig = try await Rig.start("vary", manifest: Self.manifest(language: "en"))
        let key = ResourceKey(source: "catalog", path: "/localized")
        func fetch() async throws -> FetchReport {
            try #require(try await rig.store.fetchManifestResource(source: "catalog", resource: "localized").first)
        }
        #expect(try await fetch().attempts.map(\.status) == [200])
        #expect(try rig.items("localized").map { $0["name"]?.stringValue } == ["one", "two"])
        #expect(rig.store.durableState.status[key]?.selectingHeaders == [Header("Accept-Language", "en")])
        let englishTag = try #require(rig.store.durableState.status[key]?.etag)
        // Same value: a conditional request, answered 304.
        #expect(try await fetch().attempts.map(\.status) == [304])
        // Fresh for the request it answered (the resource's ttl is an hour).
        let policy = FreshnessPolicy(sources: .seed)
        func level() -> Freshness.Level {
            policy.evaluate(key, in: rig.store.durableState, now: fixedTime, presenting: rig.store.presentedHeaders(of: key)).level
        }
        #expect(level() == .fresh)

        // The manifest now asks in French: the English response is not this request's.
        try await rig.store.define(RestManifest(json: JSONValue.parse(Self.manifest(language: "fr"))))
        #expect(rig.store.presentedHeaders(of: key)?.filter { $0.name == "Accept-Language" } == [Header("Accept-Language", "fr")])
        #expect(level() == .stale)
        let store = rig.store
        let plan = SyncPlan(state: store.durableState, policy: policy, now: fixedTime, storeID: "s", only: [SyncSelector("catalog/localized")],
                            presenting: { store.presentedHeaders(of: $0) })
        // Stale for this request: due once the minimum interval since the last request has
        // passed (a minute), not when the hour's ttl ends.
        #expect(plan.entries.map(\.level) == [.stale])
        #expect(plan.entries.map(\.dueAt) == [Timestamp(milliseconds: fixedTime.milliseconds + 60_000)])
        let unvaried = SyncPlan(state: store.durableState, policy: policy, now: fixedTime, storeID: "s", only: [SyncSelector("catalog/localized")])
        #expect(unvaried.entries.map(\.dueAt) == [Timestamp(milliseconds: fixedTime.milliseconds + 3_600_000)])
        #expect(try await fetch().attempts.map(\.status) == [200])
        #expect(try rig.items("localized").map { $0["name"]?.stringValue } == ["un", "deux"])
        #expect(rig.store.durableState.status[key]?.selectingHeaders == [Header("Accept-Language", "fr")])
        #expect(rig.store.durableState.status[key]?.etag != englishTag)
        #expect(level() == .fresh)
        // French again: conditional, 304.
        #expect(try await fetch().attempts.map(\.status) == [304])

        let log = await rig.upstream.server.requestLog.filter { $0.path == "/catalog/localized" }
        #expect(log.map(\.status) == [200, 304, 200, 304])
        #expect(log.map { $0.headers?["accept-language"] } == ["en", "en", "fr", "fr"])
        #expect(log.map { $0.headers?["if-none-match"] != nil } == [false, true, false, true])
        #expect(log[3].headers?["if-none-match"] == rig.store.durableState.status[key]?.etag)

        // A checkpoint keeps the selecting lines (reducer version 7), and a replay from seq 1
        // folds the same status from the log alone.
        let status = try #require(rig.store.durableState.status[key])
        try await rig.store.saveCheckpoint()
        try await rig.reopen()
        #expect(rig.store.origin == .checkpoint(seq: 6, tail: 0))
        #expect(rig.store.durableState.status[key] == status)
        let replayed = LogReducer.fold(try rig.events(), sources: .seed)
        #expect(replayed.status[key] == status)
        #expect(replayed.status[key]?.selectingHeaders == [Header("Accept-Language", "fr")])
        await rig.stop()
    }

    /// The command line's fetch line says the answer was kept for this session and why.
    @Test func theFetchLineSaysNoStore() async throws {
        let rig = try await ManifestCLIRig.start("no-store-cli", manifest: Self.manifest())
        let result = try await rig.fetch(["secret"])
        let records = try await rig.fetch(["secret", "--format", "json"])
        await rig.stop()
        #expect(records.status == 0, "\(records.stderr)")
        let record = try #require(try JSONValue.parse(bytes: Array(records.stdout.utf8)).arrayValue?.first)
        #expect(record["seq"] == .null)
        #expect(record["sessionOnly"] == .bool(true))
        #expect(record["sessionOnlyBecause"] == .string("no-store"))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "  session  GET \(rig.upstream.base)/catalog/no-store  → 200 fetched, 71 B"
            + " — kept for this session only: the upstream said no-store (fetchlog.keep_no_store keeps it)")
        #expect(lines.dropFirst().first?.hasPrefix("1 request (200×1); 0 events appended, 1 kept for this session only; ") == true)
        // The definition and the two markers.
        #expect(try EventLog.open(at: rig.store).lastSeq() == 3)
    }

    /// `Vary: *` never matches; names compare case-insensitively and values after list
    /// whitespace is dropped (RFC 9111 §4.1), on the lines the log keeps.
    @Test func varyMatchingOnRecordedLines() {
        let vary = [Header("vary", "accept-language , X-Mode")]
        let selecting = CacheHeaders.selecting([Header("Accept-Language", "en, fr"), Header("x-mode", "a"), Header("Other", "1")], by: vary)
        #expect(selecting == [Header("Accept-Language", "en, fr"), Header("x-mode", "a")])
        #expect(CachedResponse.varyMatches(vary: vary, selecting: selecting, presented: [Header("ACCEPT-LANGUAGE", "en,fr"), Header("X-Mode", "a")]))
        #expect(!CachedResponse.varyMatches(vary: vary, selecting: selecting, presented: [Header("Accept-Language", "en"), Header("X-Mode", "a")]))
        #expect(!CachedResponse.varyMatches(vary: vary, selecting: selecting, presented: [Header("Accept-Language", "en, fr")]))
        #expect(!CachedResponse.varyMatches(vary: [Header("Vary", "*")], selecting: [], presented: []))
        #expect(CacheHeaders.selecting([Header("A", "1")], by: [Header("Vary", "*")]) == [])
        #expect(CachedResponse.varyMatches(vary: [], selecting: [], presented: [Header("A", "1")]))
    }
}
