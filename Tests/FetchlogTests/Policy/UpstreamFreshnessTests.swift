import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Issue 37, item 4: a held body is fresh by the upstream's own rules (RFC 9111, RFC 5861)
/// where the user wrote no `ttl`: `max-age` with `Age` and `Date`, `Expires`, `no-cache`,
/// heuristic freshness from `Last-Modified` (capped at 24 h), and a 304 updating the stored
/// headers. A `ttl` the user wrote wins. Folded by the real reducer from the events a fetch
/// records, judged at injected times.
@Suite struct UpstreamFreshnessTests {
    /// 2027-01-15T08:00:00Z, the time every first response was recorded at.
    static let t0: Int64 = 1_800_000_000_000
    /// `feed` writes no ttl; `clocked` writes one for `timed`, which its `other` shares.
    static let manifests = [#"{"name":"feed","client":{"base_url":"https://feed.example"},"resources":["#
        + #"{"name":"posts","endpoint":{"path":"posts","paginator":"single_page"},"primary_key":"id"}]}"#,
                            #"{"name":"clocked","client":{"base_url":"https://clocked.example"},"resources":["#
        + #"{"name":"timed","endpoint":{"path":"timed","paginator":"single_page"},"primary_key":"id","fetchlog":{"ttl":"5m"}},"#
        + #"{"name":"other","endpoint":{"path":"other","paginator":"single_page"},"primary_key":"id"}]}"#]

    static func date(_ ms: Int64) -> Header { Header("Date", HTTPDate.format(ms / 1000)) }

    /// The state after the manifest's definition and `posts` (or `resource`) fetched at t0
    /// with `headers`, then any 304s `(at, headers)`.
    static func state(_ headers: [Header], resource: String = "posts", notModified: [(Int64, [Header])] = []) -> (LogState, ResourceKey) {
        let label = "/" + resource
        let source = resource == "posts" ? "feed" : "clocked"
        var events = manifests.map { Event(recordedAt: Timestamp(milliseconds: t0 - 1000), kind: .intent, source: ManifestDefinition.source,
                                           label: ManifestDefinition.label, body: Array($0.utf8)) }
        events.append(Event(recordedAt: Timestamp(milliseconds: t0), kind: .fetched, source: source, label: label,
                            response: Event.Response(status: 200, headers: headers + [Header("Content-Type", "application/json")]),
                            body: Array(#"[{"id":1}]"#.utf8)))
        for (at, headers) in notModified {
            events.append(Event(recordedAt: Timestamp(milliseconds: at), kind: .notModified, source: source, label: label,
                                response: Event.Response(status: 304, headers: headers)))
        }
        for index in events.indices { events[index].seq = UInt64(index + 1) }
        return (LogReducer.fold(events, sources: .seed), ResourceKey(source: source, path: label))
    }

    static func until(_ headers: [Header], resource: String = "posts", notModified: [(Int64, [Header])] = []) -> Int64? {
        let (state, key) = state(headers, resource: resource, notModified: notModified)
        return FreshnessPolicy(sources: .seed).evaluate(key, in: state, now: Timestamp(milliseconds: t0)).validUntil?.milliseconds
    }

    @Test func maxAgeLessTheAgeTheResponseAlreadyHad() {
        #expect(Self.until([Self.date(Self.t0), Header("Cache-Control", "max-age=60")]) == Self.t0 + 60_000)
        #expect(Self.until([Self.date(Self.t0), Header("Cache-Control", "max-age=60"), Header("Age", "20")]) == Self.t0 + 40_000)
        let (state, key) = Self.state([Self.date(Self.t0), Header("Cache-Control", "max-age=60")])
        let policy = FreshnessPolicy(sources: .seed)
        #expect(policy.evaluate(key, in: state, now: Timestamp(milliseconds: Self.t0 + 59_999)).level == .fresh)
        #expect(policy.evaluate(key, in: state, now: Timestamp(milliseconds: Self.t0 + 60_000)).level == .stale)
    }

    @Test func theUsersTimeToLiveWinsOverTheUpstreams() {
        // `timed` has `ttl: 5m`: the upstream's minute does not shorten it (it used to).
        #expect(Self.until([Self.date(Self.t0), Header("Cache-Control", "max-age=60")], resource: "timed") == Self.t0 + 300_000)
        #expect(Self.until([Self.date(Self.t0), Header("Cache-Control", "no-cache")], resource: "timed") == Self.t0 + 300_000)
        // `other` wrote none: the upstream's word decides; where it says nothing explicit,
        // the shortest ttl its source wrote (not the heuristic).
        #expect(Self.until([Self.date(Self.t0), Header("Cache-Control", "max-age=60")], resource: "other") == Self.t0 + 60_000)
        #expect(Self.until([Self.date(Self.t0), Header("Last-Modified", HTTPDate.format(Self.t0 / 1000 - 5 * 3600))], resource: "other")
                == Self.t0 + 300_000)
    }

    @Test func expiresCountsFromTheResponsesDate() {
        #expect(Self.until([Self.date(Self.t0), Header("Expires", HTTPDate.format(Self.t0 / 1000 + 120))]) == Self.t0 + 120_000)
        // An Expires that is no date ("0") has already expired.
        #expect(Self.until([Self.date(Self.t0), Header("Expires", "0")]) == Self.t0)
        // max-age wins over Expires.
        #expect(Self.until([Self.date(Self.t0), Header("Expires", HTTPDate.format(Self.t0 / 1000 + 120)), Header("Cache-Control", "max-age=30")])
                == Self.t0 + 30_000)
    }

    @Test func noCacheAndMustRevalidateAskTheUpstreamFirst() {
        let (state, key) = Self.state([Self.date(Self.t0), Header("Cache-Control", "no-cache")])
        let fresh = FreshnessPolicy(sources: .seed).evaluate(key, in: state, now: Timestamp(milliseconds: Self.t0))
        #expect(fresh.level == .stale)
        #expect(fresh.validUntil?.milliseconds == Self.t0)
        #expect(fresh.mustRevalidate)
        let (held, heldKey) = Self.state([Self.date(Self.t0), Header("Cache-Control", "max-age=60, must-revalidate")])
        let must = FreshnessPolicy(sources: .seed).evaluate(heldKey, in: held, now: Timestamp(milliseconds: Self.t0))
        #expect(must.level == .fresh && must.mustRevalidate && must.validUntil?.milliseconds == Self.t0 + 60_000)
    }

    @Test func withNothingExplicitTheHeuristicReadsLastModifiedCappedAtADay() {
        // 10 % of the five hours since Last-Modified: 30 minutes.
        #expect(Self.until([Self.date(Self.t0), Header("Last-Modified", HTTPDate.format(Self.t0 / 1000 - 5 * 3600))]) == Self.t0 + 1_800_000)
        // 10 % of 30 days is 3 days: capped at 24 h.
        #expect(Self.until([Self.date(Self.t0), Header("Last-Modified", HTTPDate.format(Self.t0 / 1000 - 30 * 86_400))]) == Self.t0 + 86_400_000)
        // Nothing to go on (an ETag alone): the manifest's own default, a day.
        #expect(Self.until([Self.date(Self.t0), Header("ETag", "\"a\"")]) == Self.t0 + 86_400_000)
    }

    @Test func aPluginsOwnTimeToLiveIsItsHeuristic() {
        var b = StateBuilder()
        b.append(Event(recordedAt: Timestamp(milliseconds: Self.t0), kind: .fetched, source: "artic", label: "/api/v1/agents/2",
                       response: Event.Response(status: 200, headers: [Self.date(Self.t0), Header("Last-Modified", HTTPDate.format(Self.t0 / 1000 - 5 * 3600))]),
                       body: Array(#"{"data":{"id":2,"title":"A"}}"#.utf8)))
        let policy = FreshnessPolicy(sources: .seed)
        guard case .timeToLive(let ttl, _) = policy.rule(for: "artic") else { Issue.record("artic keeps no time to live"); return }
        let key = ResourceKey(.articAgent(2))
        #expect(policy.evaluate(key, in: b.state, now: Timestamp(milliseconds: Self.t0)).validUntil?.milliseconds
                == Self.t0 + ttl.components.seconds * 1000)
    }

    @Test func aNotModifiedUpdatesTheStoredHeadersFreshnessIsComputedFrom() {
        let t1 = Self.t0 + 100_000
        let headers = [Self.date(Self.t0), Header("Cache-Control", "max-age=60"), Header("ETag", "\"v1\"")]
        #expect(Self.until(headers, notModified: [(t1, [Self.date(t1), Header("Cache-Control", "max-age=600")])]) == t1 + 600_000)
        // A 304 that says nothing of freshness keeps the stored max-age, counted from it.
        #expect(Self.until(headers, notModified: [(t1, [Self.date(t1)])]) == t1 + 60_000)
        let (state, key) = Self.state(headers, notModified: [(t1, [Self.date(t1), Header("Cache-Control", "max-age=600"), Header("ETag", "\"v1\"")])])
        let status = state.status[key]!
        #expect(status.cacheControl == "max-age=600")
        #expect(status.etag == "\"v1\"")
        // Every field the 304 sent replaced the stored one, in the 304's order.
        #expect(status.cacheHeaders == [Self.date(t1), Header("Cache-Control", "max-age=600"), Header("ETag", "\"v1\"")])
    }

    @Test func staleWhileRevalidateAndStaleIfErrorAreWindowsPastFreshness() {
        let (state, key) = Self.state([Self.date(Self.t0), Header("Cache-Control", "max-age=60, stale-while-revalidate=30, stale-if-error=3600")])
        let f = FreshnessPolicy(sources: .seed).evaluate(key, in: state, now: Timestamp(milliseconds: Self.t0 + 70_000))
        #expect(f.level == .stale)
        #expect(f.staleWhileRevalidateUntil?.milliseconds == Self.t0 + 90_000)
        #expect(f.staleIfErrorUntil?.milliseconds == Self.t0 + 3_660_000)
        #expect(!f.mustRevalidate)
    }

    /// `Expires` and `Vary` are kept when a response is recorded (they were dropped).
    @Test func expiresAndVaryAreRecorded() {
        #expect(Header.keptResponseHeaders.isSuperset(of: ["expires", "vary", "cache-control", "age", "date", "last-modified", "etag"]))
    }
}
