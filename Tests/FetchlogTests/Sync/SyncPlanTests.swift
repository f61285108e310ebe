import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// `SyncPlan`: which resources are due at a moment and when the next falls due, from the
/// folded state alone.
@Suite struct SyncPlanTests {
    /// A child listed before its parent, a resource left out (`selected: false`), two ttls
    /// and a resource without one.
    static let manifest = #"""
    {"name":"shop","client":{"base_url":"https://shop.example"},"resources":[
      {"name":"lines","endpoint":{"path":"items/{resources.items.id}/lines","paginator":"single_page"},"fetchlog":{"ttl":"1h"}},
      {"name":"items","endpoint":{"path":"items","paginator":"single_page"},"fetchlog":{"ttl":"15m"}},
      {"name":"hidden","selected":false,"endpoint":{"path":"hidden","paginator":"single_page"}},
      {"name":"feed","endpoint":{"path":"feed","paginator":"single_page"}}
    ]}
    """#

    static let t0 = fixedTime.milliseconds

    /// Defined at t0, `items` fetched at t0+1 s, a held agent of a registered source at t0+2 s.
    static func builder() -> StateBuilder {
        var b = StateBuilder()
        b.intent(ManifestDefinition.source, ManifestDefinition.label, manifest)
        b.append(Event(recordedAt: Timestamp(milliseconds: t0 + 1000), kind: .fetched, source: "shop", label: "/items",
                       response: Event.Response(status: 200, headers: [Header("ETag", "\"i1\"")]), body: Array(#"[{"id":1}]"#.utf8)))
        b.append(Event(recordedAt: Timestamp(milliseconds: t0 + 2000), kind: .fetched, source: "artic", label: "/api/v1/agents/2",
                     response: Event.Response(status: 200), body: Array(#"{"data":{"id":2,"title":"A"}}"#.utf8)))
        return b
    }

    static func plan(_ state: LogState, at ms: Int64, only: [String] = []) -> SyncPlan {
        SyncPlan(state: state, policy: FreshnessPolicy(sources: state.sources), now: Timestamp(milliseconds: ms),
                 storeID: "me", only: only.map(SyncSelector.init))
    }

    @Test func parentsFirstSelectedOnlyNeverFetchedDueNow() {
        let state = Self.builder().state
        let plan = Self.plan(state, at: Self.t0 + 60_000)
        #expect(plan.entries.map(\.target.description) == ["shop/items", "shop/feed", "shop/lines", "artic/api/v1/agents/2"])
        #expect(plan.entries.map(\.level) == [.fresh, .missing, .missing, .fresh])
        // Never fetched: due at the plan's moment.
        #expect(plan.due.map(\.target.description) == ["shop/feed", "shop/lines"])
        #expect(plan.entries[2].dueAt == Timestamp(milliseconds: Self.t0 + 60_000))
        // items: fresh for 15 minutes from its fetch; the agent for its source's hour.
        #expect(plan.entries[0].dueAt == Timestamp(milliseconds: Self.t0 + 1000 + 900_000))
        #expect(plan.entries[3].dueAt == Timestamp(milliseconds: Self.t0 + 2000 + 3_600_000))
        #expect(plan.nextDue == Timestamp(milliseconds: Self.t0 + 1000 + 900_000))
        #expect(plan.entries[0].pages == 1 && plan.entries[2].pages == 0)
    }

    @Test func staleOnceItsLifetimeEndsAndTheSamePlanOnReplay() {
        let state = Self.builder().state
        let at = Self.t0 + 1000 + 900_000
        let plan = Self.plan(state, at: at)
        #expect(plan.due.map(\.target.description) == ["shop/items", "shop/feed", "shop/lines"])
        #expect(plan.entries[0].level == .stale)
        #expect(plan.nextDue == Timestamp(milliseconds: Self.t0 + 2000 + 3_600_000))
        // A pure function of the state and the moment: the same again, from a fresh fold.
        #expect(Self.plan(Self.builder().state, at: at) == plan)
    }

    @Test func aFailingResourceWaitsOutItsBackoff() {
        var b = Self.builder()
        b.append(Event(recordedAt: Timestamp(milliseconds: Self.t0 + 10_000), kind: .fetchFailed, source: "shop",
                       label: "/items/1/lines", failure: Event.Failure(.transport, "connection refused")))
        b.append(Event(recordedAt: Timestamp(milliseconds: Self.t0 + 20_000), kind: .fetchFailed, source: "shop",
                       label: "/items/1/lines", failure: Event.Failure(.transport, "connection refused")))
        let plan = Self.plan(b.state, at: Self.t0 + 30_000)
        let lines = plan.entries[2]
        #expect(lines.target.description == "shop/lines")
        #expect(lines.failures == 2)
        // Two failures: 30 s doubled, plus the resource's own jitter (under a tenth).
        let wait = SyncTiming().backoff(failures: 2, of: "shop/lines")
        #expect(wait >= 60_000 && wait < 66_000)
        #expect(lines.dueAt == Timestamp(milliseconds: Self.t0 + 20_000 + wait))
        // What `GET /api/sync` shows: backing off until then, and not once it has passed.
        #expect(lines.backoffUntil == Timestamp(milliseconds: Self.t0 + 20_000 + wait))
        #expect(lines.isBackingOff(at: plan.now))
        #expect(!lines.isBackingOff(at: Timestamp(milliseconds: Self.t0 + 20_000 + wait)))
        #expect(plan.entries[0].backoffUntil == nil && !plan.entries[0].isBackingOff(at: plan.now))
        #expect(plan.due.map(\.target.description) == ["shop/feed"])
        #expect((30_000 ..< 33_000).contains(SyncTiming().backoff(failures: 1, of: "x")))
        #expect(SyncTiming().backoff(failures: 1, of: "x") == SyncTiming().backoff(failures: 1, of: "x"))
        #expect(SyncTiming().backoff(failures: 40, of: "x") >= 3_600_000)
        #expect(SyncTiming().backoff(failures: 40, of: "x") < 3_960_000)
    }

    @Test func aResourceNeverFreshIsAskedAtMostOncePerMinimumInterval() {
        // No ttl anywhere in its manifest, and the upstream says max-age=0: stale on arrival.
        var b = StateBuilder()
        b.intent(ManifestDefinition.source, ManifestDefinition.label,
                 #"{"name":"bare","client":{"base_url":"https://bare.example"},"resources":[{"name":"feed","endpoint":{"path":"feed","paginator":"single_page"}}]}"#)
        b.append(Event(recordedAt: Timestamp(milliseconds: Self.t0 + 5000), kind: .fetched, source: "bare", label: "/feed",
                       response: Event.Response(status: 200, headers: [Header("Cache-Control", "max-age=0")]), body: Array("[]".utf8)))
        let plan = Self.plan(b.state, at: Self.t0 + 6000)
        #expect(plan.entries.map(\.target.description) == ["bare/feed"])
        #expect(plan.entries[0].level == .stale)
        #expect(plan.entries[0].dueAt == Timestamp(milliseconds: Self.t0 + 5000 + 60_000))
        #expect(plan.due.isEmpty)
        #expect(plan.nextDue == Timestamp(milliseconds: Self.t0 + 5000 + 60_000))
    }

    @Test func thisStoresWaitingWritesMakeTheirResourceDueNow() {
        var b = Self.builder()
        b.intent("shop", "write.mutation", #"{"store":"me","op":"update","resource":"items","key":"1","fields":{"name":"a"}}"#)
        b.intent("shop", "write.mutation", #"{"store":"me","op":"update","resource":"items","key":"1","fields":{"name":"b"}}"#)
        // A replica's: only the store that made it sends it.
        b.intent("shop", "write.mutation", #"{"store":"other","op":"update","resource":"feed","key":"1","fields":{"name":"c"}}"#)
        let state = b.state
        #expect(state.writes.mutations.count == 3)
        let at = Self.t0 + 60_000
        let plan = Self.plan(state, at: at)
        let items = plan.entries[0]
        #expect(items.target.description == "shop/items" && items.level == .fresh)
        #expect(items.pendingWrites == 2 && items.writesDueAt == Timestamp(milliseconds: at) && items.dueAt == Timestamp(milliseconds: at))
        #expect(items.pushesWrites(at: Timestamp(milliseconds: at)))
        #expect(plan.entries[1].pendingWrites == 0)
        #expect(plan.due.map(\.target.description) == ["shop/items", "shop/feed", "shop/lines"])
    }

    @Test func theStatusLineSaysTheNextRefreshTheBackoffAndTheWritesWaiting() {
        func at(_ text: String) -> Timestamp { Timestamp(iso8601: text)! }
        let items = SyncTarget(source: "catalog", resource: "items"), notes = SyncTarget(source: "catalog", resource: "notes")
        let reviews = SyncTarget(source: "catalog", resource: "reviews")
        var pass = SyncPass(rows: [
            SyncRow(target: notes, outcome: .failed("x"), nextDue: at("2026-11-22T08:00:31Z"), requests: 1),
            SyncRow(target: items, outcome: .refreshed, nextDue: at("2026-11-22T08:15:00Z"), requests: 3),
            SyncRow(target: reviews, outcome: .fresh, nextDue: at("2026-11-22T08:15:00Z"), requests: 0),
        ], nextDue: at("2026-11-22T08:00:31Z"), requests: 4, at: at("2026-11-22T08:00:00Z"))
        pass.waitingWrites = 1
        #expect(pass.statusLine == "next refresh 08:00:31Z; backing off until 08:00:31Z catalog/notes; 1 write pending")
        let calm = SyncPass(rows: Array(pass.rows.dropFirst()), nextDue: at("2026-11-22T08:15:00Z"), requests: 3, at: pass.at)
        #expect(calm.statusLine == "next refresh 08:15:00Z catalog/items (+1)")
        #expect(SyncPass(rows: [], nextDue: nil, requests: 0, at: pass.at).statusLine == "nothing falls due by age")
    }

    @Test func selectorsNarrowThePlan() {
        let state = Self.builder().state
        #expect(Self.plan(state, at: Self.t0, only: ["shop/items"]).entries.map(\.target.description) == ["shop/items"])
        #expect(Self.plan(state, at: Self.t0, only: ["shop"]).entries.count == 3)
        #expect(Self.plan(state, at: Self.t0, only: ["artic/api/v1/agents/2"]).entries.count == 1)
        #expect(Self.plan(state, at: Self.t0, only: ["nothing"]).entries.isEmpty)
    }
}

/// Issue 37: a failing origin backs off, honouring its `Retry-After`.
@Suite struct SyncRetryAfterTests {
    static func failed(_ b: inout StateBuilder, at ms: Int64, retryAfter: String?) {
        b.append(Event(recordedAt: Timestamp(milliseconds: ms), kind: .fetchFailed, source: "shop", label: "/items/1/lines",
                       response: Event.Response(status: 503, headers: retryAfter.map { [Header("Retry-After", $0)] } ?? []),
                       failure: Event.Failure(.httpStatus, "HTTP 503")))
    }

    @Test func aFailureWaitsForTheUpstreamsRetryAfterWhenLongerThanItsBackoff() {
        let t0 = SyncPlanTests.t0
        let backoff = SyncTiming().backoff(failures: 1, of: "shop/lines")
        // Ten minutes asked for: longer than the 30 s backoff, so it decides.
        var b = SyncPlanTests.builder()
        Self.failed(&b, at: t0 + 10_000, retryAfter: "600")
        #expect(SyncPlanTests.plan(b.state, at: t0 + 20_000).entries[2].dueAt == Timestamp(milliseconds: t0 + 10_000 + 600_000))
        // An HTTP date, two hours after the failure.
        var dated = SyncPlanTests.builder()
        Self.failed(&dated, at: t0 + 10_000, retryAfter: HTTPDate.format((t0 + 10_000) / 1000 + 7200))
        #expect(SyncPlanTests.plan(dated.state, at: t0 + 20_000).entries[2].dueAt == Timestamp(milliseconds: t0 + 10_000 + 7_200_000))
        // Shorter than the backoff, or none: the backoff decides.
        var short = SyncPlanTests.builder()
        Self.failed(&short, at: t0 + 10_000, retryAfter: "5")
        #expect(SyncPlanTests.plan(short.state, at: t0 + 20_000).entries[2].dueAt == Timestamp(milliseconds: t0 + 10_000 + backoff))
        var none = SyncPlanTests.builder()
        Self.failed(&none, at: t0 + 10_000, retryAfter: nil)
        #expect(SyncPlanTests.plan(none.state, at: t0 + 20_000).entries[2].dueAt == Timestamp(milliseconds: t0 + 10_000 + backoff))
        // A year asked for waits a day at most.
        var far = SyncPlanTests.builder()
        Self.failed(&far, at: t0 + 10_000, retryAfter: "31536000")
        #expect(SyncPlanTests.plan(far.state, at: t0 + 20_000).entries[2].dueAt == Timestamp(milliseconds: t0 + 10_000 + 86_400_000))
    }
    /// This store's writes waiting for a failing resource wait out its backoff with it (its
    /// origin is failing: a write's own one-second timer must not ask it again and again),
    /// and `backoffUntil` says until when (what `GET /api/sync` shows).
    @Test func writesWaitingDoNotHideTheBackoff() {
        let t0 = SyncPlanTests.t0
        var b = SyncPlanTests.builder()
        Self.failed(&b, at: t0 + 10_000, retryAfter: "600")
        b.intent("shop", "write.mutation", #"{"store":"me","op":"update","resource":"lines","key":"1","fields":{"qty":2}}"#)
        let now = Timestamp(milliseconds: t0 + 20_000)
        let lines = SyncPlanTests.plan(b.state, at: now.milliseconds).entries[2]
        #expect(lines.target.description == "shop/lines")
        #expect(lines.pendingWrites == 1 && lines.writesDueAt == now)
        #expect(lines.backoffUntil == Timestamp(milliseconds: t0 + 10_000 + 600_000))
        #expect(lines.dueAt == lines.backoffUntil)
        #expect(lines.isBackingOff(at: now) && !lines.isDue(at: now))
    }
}
