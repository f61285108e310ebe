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
    @Test func aFetchThatAddsAPageWritesThatPagesRowsAndTheTableEqualsOneBuiltWhole() async throws {
        var upstreamConfiguration = SampleUpstreamConfiguration()
        upstreamConfiguration.tvmazePages = 5
        upstreamConfiguration.tvmazePageSize = 20
        let upstream = try SampleUpstream(configuration: upstreamConfiguration)
        let base = try await upstream.start()
        defer { Task { await upstream.stop() } }
        let temporary = TemporaryDirectory("segmented-shows")
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: base)
        configuration.fetching.bearTheSuitesLoad()
        let store = try await SeedSources.openStore(at: URL(filePath: temporary.path), configuration: configuration)
        let service = SQLService.of(store)
        func counters() async throws -> (tables: Int, rows: Int) { try await service.run { ($0.tablesBuilt, $0.rowsWritten) } }
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
}
