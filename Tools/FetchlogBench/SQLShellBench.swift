import FetchlogCore
import FetchlogSQL
import FetchlogSources
import Foundation
import SampleUpstream

/// `fetchlog-bench --sql`, second part (issue 35): in a long-lived process (the shell, a
/// library caller), what the next query costs after a fetch that adds one page, at two sizes
/// of the resource, so the growth shows: the tvmaze show index at 250 shows a page, P pages
/// held, then each of R more pages fetched and the same query asked after each. Timed in
/// process, the fetch (which folds the page into the views) and the query (which adds the
/// page's rows to the table it changed: `ViewSegment`) apart, medians of R.
func runSQLShellBenchmarks(quick: Bool) async {
    let sizes = quick ? [4, 40] : [20, 200]
    let added = quick ? 3 : 7
    print("## In the shell: the next query after a fetch that adds one page (250 shows)\n")
    print("Each row: P pages held, then \(added) more fetched one at a time; after each, `SELECT count(*), max(id) FROM shows`. Medians; one process.\n")
    print("| shows held | fetch of one page (folds it) | next query (adds the page to `shows`) | same query, nothing changed |")
    print("|---:|---:|---:|---:|")
    var rows: [(shows: Int, fetch: Double, query: Double)] = []
    for pages in sizes {
        var configuration = SampleUpstreamConfiguration()
        configuration.tvmazePages = pages + added
        configuration.tvmazePageSize = 250
        let upstream = try! SampleUpstream(configuration: configuration)
        let base = try! await upstream.start()
        let directory = tempDir("sql-shell-\(pages)")
        var storeConfiguration = Store.Configuration()
        storeConfiguration.fetching.upstream = Upstream(base: base)
        storeConfiguration.fetching.retry.retries = 0
        let store = try! await SeedSources.openStore(at: URL(fileURLWithPath: directory), configuration: storeConfiguration)
        for page in 0 ..< pages { try! await store.fetch(.tvmazeShowsPage(page)) }
        let query = "SELECT count(*), max(id) FROM shows"
        _ = try! await store.sql(query)
        var fetches: [Double] = [], queries: [Double] = [], unchanged: [Double] = []
        let clock = ContinuousClock()
        for page in pages ..< pages + added {
            var started = clock.now
            try! await store.fetch(.tvmazeShowsPage(page))
            fetches.append(seconds(clock.now - started))
            started = clock.now
            let answer = try! await store.sql(query)
            queries.append(seconds(clock.now - started))
            guard answer.rows.first?.first == .number((page + 1) * 250) else { fatalError("the query did not see page \(page): \(answer.rows)") }
            started = clock.now
            _ = try! await store.sql(query)
            unchanged.append(seconds(clock.now - started))
        }
        let row = (shows: pages * 250, fetch: median(fetches), query: median(queries))
        rows.append(row)
        print("| \(row.shows) | \(milliseconds(row.fetch)) | \(milliseconds(row.query)) | \(milliseconds(median(unchanged))) |")
        await store.close()
        await upstream.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
    if rows.count == 2 {
        let growth = Double(rows[1].shows) / Double(rows[0].shows)
        print("\nWith \(String(format: "%.0f", growth))× the shows held, the next query costs \(String(format: "%.1f", rows[1].query / rows[0].query))× and the fetch \(String(format: "%.1f", rows[1].fetch / rows[0].fetch))× (a page is the same 250 shows).\n")
    }
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

private func milliseconds(_ value: Double) -> String { String(format: "%.1f ms", value * 1000) }

private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
