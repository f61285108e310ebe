import Foundation
import Synchronization
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Per-view observation (issue 18, item 2): an observer of a view wakes only when that
/// view's value changes.
@Suite struct ObservationTests {
    @Test func aGnomeFilterIntentDoesNotWakeAnObserverOfShows() async throws {
        let harness = try await FetchHarness.start()
        _ = try await harness.store.fetch(.brastlewarkCensus)
        _ = try await harness.store.fetch(.tvmazeShowsPage(0))
        let store = try Store(log: harness.log, sources: .seed, fetcher: harness.fetcher, clock: FixedClock(fixedTime))
        let shows = LockedBox<[JSONValue]>([])
        let filters = LockedBox<[JSONValue]>([])
        let showsMemo = ObservedView()
        let showsTask = Task { for await value in try store.observe(view: "shows", memo: showsMemo) { shows.set(shows.get() + [value]) } }
        let filtersTask = Task { for await value in try store.observe(view: "filters") { filters.set(filters.get() + [value]) } }
        defer { showsTask.cancel(); filtersTask.cancel() }
        // Waits for the values, not for a time: the ceiling is only there so a value that
        // never comes fails the test rather than hanging it (the whole suite shares two
        // cores, and the observers' tasks wait their turn behind it).
        try #require(try await waitUntil(timeout: .seconds(120)) { shows.get().count == 1 && filters.get().count == 1 })
        #expect(shows.get()[0]["count"] == .number(240))

        #expect(showsMemo.computations.load(ordering: .relaxed) == 1)

        // Twenty filter intents, the last with Pink: the filters observer sees the last; the
        // shows observer neither wakes nor computes the shows view (its sources did not move).
        for age in 1 ... 19 {
            var filter = GnomeFilter()
            filter.ageMin = age
            try await store.setGnomeFilter(filter)
        }
        var filter = GnomeFilter()
        filter.hairColor = "Pink"
        try await store.setGnomeFilter(filter)
        try #require(try await waitUntil(timeout: .seconds(120)) { filters.get().last?["active"]?["hairColor"] == .string("Pink") })
        try await Task.sleep(for: .milliseconds(300))
        #expect(shows.get().count == 1)
        #expect(showsMemo.computations.load(ordering: .relaxed) == 1)
        let filterValues = filters.get().count

        // A new page changes the shows view: one more value, with the second page's shows.
        _ = try await harness.store.fetch(.tvmazeShowsPage(1))
        try await store.catchUp()
        try #require(try await waitUntil(timeout: .seconds(120)) { shows.get().count == 2 })
        #expect(shows.get()[1]["pagesHeld"]?.canonicalText() == "[0,1]")
        #expect(showsMemo.computations.load(ordering: .relaxed) == 2)
        #expect(filters.get().count == filterValues)
        await harness.stop()
    }

    /// Issue 25: a view of a source defined by a manifest is observed by its name, as it is
    /// exported (the name was checked against a fresh state, which holds no manifest).
    @Test func aManifestViewIsObservedByName() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("observe-manifest-view")
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: upstream.base)
        configuration.fetching.retry.retries = 0
        let store = try await Store.open(at: URL(filePath: dir.path), configuration: configuration)
        #expect(throws: ViewNameError.self) { _ = try store.observe(view: "items/catalog/items") }
        #expect(ViewCatalog.exportNames(in: store.snapshot.state) == store.sources.exportNames)
        let items = try await store.define(try RestManifest(json: JSONValue.parse(ResourceHandleTests.manifest))).resource("items")
        // The names a store can export include each defined resource's own.
        #expect(ViewCatalog.exportNames(in: store.snapshot.state).filter { $0.hasPrefix("items/") }
            == ["items/catalog/items", "items/catalog/gone"])
        var changes = try store.observe(view: "items/catalog/items").makeAsyncIterator()
        #expect(await changes.next()?.canonicalText() == #"{"count":0,"items":[],"resource":"items","source":"catalog","view":"items"}"#)
        try await items.fetch()
        var last: JSONValue?
        while last?["count"] != .number(12), let value = await changes.next() { last = value }
        #expect(last?["items"]?.arrayValue?.compactMap { $0["id"]?.intValue } == Array(1 ... 12))
        await store.close()
        await upstream.stop()
    }

    @Test func anUnknownViewIsRefused() throws {
        let dir = TemporaryDirectory("observe-unknown")
        let store = try Store(log: try EventLog.open(at: dir.path), sources: .seed, fetcher: nil, clock: FixedClock(fixedTime))
        #expect(throws: ViewNameError.self) { _ = try store.observe(view: "nope") }
    }
}
