import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources
@testable import FetchlogSQL

/// Issue 35, speed in the shell: the `shows` table of a long-lived store is kept by segments
/// (one per page, `ShowsView.segments`), so a fetch that adds a page costs that page's rows in
/// the next query, not the table written again, and the table equals one built whole.
@Suite struct SegmentedTableTests {
    /// The sample upstream (as `configure` sets it; stopped when the test ends), a new seed
    /// store fetching from it with margins the suite's load never trips, and the counters of
    /// the store's SQL engine (tables built, rows written).
    static func rig(_ name: String, _ configure: (inout SampleUpstreamConfiguration) -> Void = { _ in })
        async throws -> (upstream: SampleUpstream, directory: TemporaryDirectory, store: Store, counters: () async throws -> (tables: Int, rows: Int)) {
        var upstreamConfiguration = SampleUpstreamConfiguration()
        configure(&upstreamConfiguration)
        let upstream = try SampleUpstream(configuration: upstreamConfiguration)
        let base = try await upstream.start()
        let temporary = TemporaryDirectory(name)
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: base)
        configuration.fetching.bearTheSuitesLoad()
        let store = try await SeedSources.openStore(at: URL(filePath: temporary.path), configuration: configuration)
        let service = SQLService.of(store)
        return (upstream, temporary, store, { try await service.run { ($0.tablesBuilt, $0.rowsWritten) } })
    }

    @Test func aFetchThatAddsAPageWritesThatPagesRowsAndTheTableEqualsOneBuiltWhole() async throws {
        let (upstream, directory, store, counters) = try await Self.rig("segmented-shows") {
            $0.tvmazePages = 5
            $0.tvmazePageSize = 20
        }
        defer { Task { await upstream.stop() }; _ = directory }
        func fetch(_ page: Int) async throws {
            let report = try await store.fetch(.tvmazeShowsPage(page))
            try #require(report.holdsBody, "\(report)")
        }
        let query = "SELECT count(*), max(itemIndex) FROM shows"
        try await fetch(0)
        try await fetch(1)
        #expect(try await store.sql(query).rows == [[.number("40"), .number("39")]])
        let first = try await counters()
        #expect(first.rows == 40)

        // A page after the others: its 20 rows inserted, no table built.
        try await fetch(2)
        #expect(try await store.sql(query).rows == [[.number("60"), .number("59")]])
        var now = try await counters()
        #expect(now.tables == first.tables)
        #expect(now.rows - first.rows == 20)

        // A page skipped, then filled in: page 4's rows, then 3's and 4's again (4 moved on).
        try await fetch(4)
        #expect(try await store.sql(query).rows == [[.number("80"), .number("79")]])
        let afterFour = try await counters()
        #expect(afterFour.rows - now.rows == 20)
        try await fetch(3)
        #expect(try await store.sql(query).rows == [[.number("100"), .number("99")]])
        now = try await counters()
        #expect(now.rows - afterFour.rows == 40)
        #expect(now.tables == first.tables)

        // The table as kept equals one built whole from the export, row by row, rowids and all.
        let all = "SELECT rowid, * FROM shows"
        let kept = try await store.sql(all)
        let whole = try SQLEngine(events: { _ in [] }).query(all, state: store.snapshot.state)
        #expect(kept.rows.count == 100)
        #expect(kept.columns == whole.columns)
        #expect(kept.rows == whole.rows)
        // Page 3 asked again: the upstream answers 304 (its validators were sent), the page
        // held is the one held before, and nothing is written.
        try await fetch(3)
        #expect(store.snapshot.state.documents[ResourceKey(.tvmazeShowsPage(3))]?.seq == 5)
        _ = try await store.sql(query)
        #expect(try await counters().rows - now.rows == 0)
        #expect(try await store.sql(all).rows == kept.rows)
        await store.close()
    }

    /// A manifest resource's table (`catalog.items`, paged by number) is kept by page too:
    /// the next page's items are inserted, and the table equals one built whole.
    @Test func aManifestResourcesNextPageWritesThatPagesItems() async throws {
        let (upstream, directory, store, counters) = try await Self.rig("segmented-items")
        defer { Task { await upstream.stop() }; _ = directory }
        try await store.define(try RestManifest(json: try JSONValue.parse(bytes: Array("""
            {"name": "catalog", "client": {"base_url": "https://catalog.example"}, "resource_defaults": {"primary_key": "id"},
             "resources": [{"name": "items", "endpoint": {"path": "pages", "data_selector": "data",
                            "paginator": {"type": "page_number", "base_page": 1, "total_path": "total_pages"}}}]}
            """.utf8))))
        func fetch(page: Int) async throws -> Int {
            let reports = try await store.fetchManifestResource(source: "catalog", resource: "items", firstPage: page, maxPages: 1)
            try #require(reports.count == 1 && reports[0].holdsBody, "\(reports)")
            return try #require(ItemsView(state: store.snapshot.state, source: "catalog", resource: "items")).items.count
        }
        let query = "SELECT count(*) FROM catalog.items"
        let one = try await fetch(page: 1)
        #expect(one == 5)
        #expect(try await store.sql(query).rows == [[.number("5")]])
        let first = try await counters()
        #expect(first.rows == 5)
        // Page 3 (items 11 and 12, no key held before): its two items inserted.
        #expect(try await fetch(page: 3) == 7)
        #expect(try await store.sql(query).rows == [[.number("7")]])
        var now = try await counters()
        #expect(now.tables == first.tables)
        #expect(now.rows - first.rows == 2)
        let all = "SELECT rowid, * FROM catalog.items"
        func expectWhole(_ count: Int) async throws {
            let kept = try await store.sql(all)
            let whole = try SQLEngine(events: { _ in [] }).query(all, state: store.snapshot.state)
            #expect(kept.rows.count == count)
            #expect(kept.columns == whole.columns)
            #expect(kept.rows == whole.rows)
        }
        try await expectWhole(7)
        // Page 2 holds item 5 again (5…10): merged by key, the items are no longer the pages'
        // one after the other, so the table is built whole.
        #expect(try await fetch(page: 2) == 12)
        #expect(try await store.sql(query).rows == [[.number("12")]])
        let before = now
        now = try await counters()
        #expect(now.tables == before.tables + 1)
        #expect(now.rows - before.rows == 12)
        try await expectWhole(12)
        await store.close()
    }
}
