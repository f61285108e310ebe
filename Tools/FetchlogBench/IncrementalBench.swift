import FetchlogCore
import FetchlogSources
import Foundation
import SampleUpstream

/// Part of `fetchlog-bench --manifests` (issue 24): an incremental resource of 100,000
/// items (`/catalog/bulkchanges`, pages of 1,000) fetched in full, then, after the server's
/// generation switch changed 1 % of them, fetched again by the same manifest: the refetch
/// asks from the latest `updated_at` held and gets one page. Fetchlog's refetch ÷ full fetch
/// beside dlt 1.31's two `pipeline.run`s of `rest_api` with the same `incremental` (its state
/// kept in the pipeline's directory between them), on the same server, alternating.
func runIncrementalManifestBenchmark(upstream: SampleUpstream, base: String, quick: Bool) async {
    let count = 100_000
    let text = #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":[{"name":"bulkchanges","primary_key":"id","#
        + #""write_disposition":"merge","endpoint":{"path":"bulkchanges","data_selector":"data","params":{"n":\#(count)},"#
        + #""paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"},"#
        + #""incremental":{"start_param":"updated_since","cursor_path":"updated_at","initial_value":"2026-01-01T00:00:00Z"}}}]}"#
    let manifestFile = NSTemporaryDirectory() + "fetchlog-bench-incremental.json"
    try! Data(text.utf8).write(to: URL(fileURLWithPath: manifestFile))
    func seconds(_ start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    func ms(_ value: Double) -> String { String(format: "%.1f", value * 1000) }
    /// The requests the server received for the resource since the log was last cleared.
    func asked() async -> [String] { await upstream.receivedPaths.filter { $0.hasPrefix("/catalog/bulkchanges") } }
    // Item N (the last, changed in generation 1) changed N seconds after 2026-01-01.
    let since = "updated_since=" + CatalogRoutes.timestamp2026(count).replacingOccurrences(of: ":", with: "%3A")

    /// One store: the full fetch, the switch, the refetch. With `split`, the view of the held
    /// items (what the refetch computes its start value from) is built and timed first, so
    /// the refetch that follows finds it built.
    func fetchlog(directory: String, split: Bool) async -> (full: Double, refetch: Double, view: Double?, pages: (Int, Int), items: Int) {
        await upstream.setCatalogGeneration(0)
        await upstream.clearRequestLog()
        let (log, fetcher, store) = await openManifestStore(at: directory, upstream: base, manifest: text)
        var start = DispatchTime.now().uptimeNanoseconds
        _ = try! await store.fetchManifestResource(source: "catalog", resource: "bulkchanges")
        let full = seconds(start)
        let fullPages = await asked().count

        await upstream.setCatalogGeneration(1)
        await upstream.clearRequestLog()
        var view: Double?
        if split {
            start = DispatchTime.now().uptimeNanoseconds
            let held = ItemsView(state: store.snapshot.state, source: "catalog", resource: "bulkchanges")!
            let plugin = store.snapshot.state.plugin("catalog") as! ManifestSource
            _ = plugin.manifest.resource("bulkchanges")!.preparedForFetch(held: held.items)
            view = seconds(start)
        }
        start = DispatchTime.now().uptimeNanoseconds
        _ = try! await store.fetchManifestResource(source: "catalog", resource: "bulkchanges")
        let refetch = seconds(start)
        let again = await asked()
        precondition(again == ["/catalog/bulkchanges?n=\(count)&\(since)&page=1"], "the refetch asked \(again)")
        // Every item held once, the hundredth ones with their generation-1 change.
        let items = ItemsView(state: store.snapshot.state, source: "catalog", resource: "bulkchanges")!.items
        let changed = items.filter { $0["updated_at"]?.stringValue?.hasPrefix("2026-04-") == true }
        precondition(changed.map { $0["id"]?.intValue ?? 0 }.sorted() == Array(stride(from: 100, through: count, by: 100)),
                     "the view holds \(changed.count) changed items")
        await fetcher.shutdown()
        log.close()
        return (full, refetch, view, (fullPages, again.count), items.count)
    }

    /// dlt: two runs of one pipeline (same directory, same name, so the second reads the
    /// incremental state the first saved) into DuckDB, the switch between them.
    func dlt(directory: String) async -> (full: Double, refetch: Double, pages: (Int, Int), rows: String) {
        func run() -> (Double, String) {
            let start = DispatchTime.now().uptimeNanoseconds
            let loaded = runTool(["python3", "Tools/dlt/rest-api-items.py", "--duckdb", directory, manifestFile, base + "/catalog", "bulkchanges"])
            let elapsed = seconds(start)
            precondition(loaded.status == 0, loaded.err)
            return (elapsed, (try? JSONValue.parse(bytes: Array(loaded.out.utf8)))?["bulkchanges"]?.intValue.map(String.init) ?? loaded.out)
        }
        await upstream.setCatalogGeneration(0)
        await upstream.clearRequestLog()
        let (full, _) = run()
        let fullPages = await asked().count
        await upstream.setCatalogGeneration(1)
        await upstream.clearRequestLog()
        let (refetch, rows) = run()
        let again = await asked()
        precondition(again.count == 1 && again[0].removingPercentEncoding!.contains(since.removingPercentEncoding!), "dlt's second run asked \(again)")
        return (full, refetch, (fullPages, again.count), rows)
    }

    var ours: [(full: Double, refetch: Double)] = [], theirs: [(full: Double, refetch: Double)] = []
    var pages = (ours: (0, 0), theirs: (0, 0)), held = (ours: 0, theirs: "")
    for round in 0 ..< (quick ? 1 : 5) {
        if round % 2 == 0 {
            let peer = await dlt(directory: tempDir("dlt-incremental-\(round)"))
            theirs.append((peer.full, peer.refetch))
            (pages.theirs, held.theirs) = (peer.pages, peer.rows)
        }
        let mine = await fetchlog(directory: tempDir("incremental-\(round)"), split: false)
        ours.append((mine.full, mine.refetch))
        (pages.ours, held.ours) = (mine.pages, mine.items)
        if round % 2 == 1 {
            let peer = await dlt(directory: tempDir("dlt-incremental-\(round)"))
            theirs.append((peer.full, peer.refetch))
            (pages.theirs, held.theirs) = (peer.pages, peer.rows)
        }
        removeBenchTemporaries()
        try! Data(text.utf8).write(to: URL(fileURLWithPath: manifestFile))
    }
    // For comparison: what the start value would cost from the view of every held item (the
    // refetch takes it from the held pages' last cursors instead), and the refetch after it.
    var views: [Double] = [], warm: [Double] = []
    for round in 0 ..< (quick ? 1 : 3) {
        let split = await fetchlog(directory: tempDir("incremental-split-\(round)"), split: true)
        views.append(split.view!)
        warm.append(split.refetch)
        removeBenchTemporaries()
        try! Data(text.utf8).write(to: URL(fileURLWithPath: manifestFile))
    }
    let python = runTool(["python3", "-c", "import time; t = time.time(); import dlt; from dlt.sources.rest_api import rest_api_source; print(time.time() - t)"])
    let ratios = ours.map { $0.refetch / $0.full }, theirRatios = theirs.map { $0.refetch / $0.full }

    print("\n## Incremental refetch: \(count) items (pages of 1,000), 1 % changed, Fetchlog vs dlt rest_api `incremental` (same server, alternating)\n")
    print("The same manifest both times (`incremental` on `updated_at`, `updated_since` inclusive); between the fetches the server's generation switch changes every hundredth item. Pages asked: Fetchlog \(pages.ours.0) then \(pages.ours.1), dlt \(pages.theirs.0) then \(pages.theirs.1). Items held after: Fetchlog \(held.ours), dlt's DuckDB table \(held.theirs) rows (`merge`).\n")
    print("| work | full fetch, median ms | refetch after 1 % changed, median ms | refetch ÷ full (median of the rounds' ratios) |")
    print("|---|---:|---:|---:|")
    print("| Fetchlog: `fetchManifestResource` on an open store (the start value from the held pages' last cursors) | \(ms(median(ours.map(\.full)))) | \(ms(median(ours.map(\.refetch)))) | \(String(format: "%.2f", median(ratios) * 100)) % |")
    print("| dlt rest_api → DuckDB, `pipeline.run` in a python3 process, state kept between runs | \(ms(median(theirs.map(\.full)))) | \(ms(median(theirs.map(\.refetch)))) | \(String(format: "%.2f", median(theirRatios) * 100)) % |")
    print("\nFor comparison: building the view of the \(count) held items and the next start value from it would take \(ms(median(views))) ms; the refetch after it (one request, one page of 1,000 recorded) \(ms(median(warm))) ms. dlt's python3 process spends \(ms(Double(python.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan)) ms importing dlt before asking anything.")
}
