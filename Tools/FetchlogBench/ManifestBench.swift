import FetchlogCore
import FetchlogSources
import Foundation
import SampleUpstream

/// `fetchlog-bench --manifests`: a manifest resource fetched end to end into a queryable
/// view by Fetchlog beside dlt 1.31's `rest_api` loading the same pages into DuckDB (and
/// dlt only extracting them), from the same sample upstream, alternating, in one run; then
/// `items … TEXT` latency over 100,000 items beside SQLite answering the same search; then
/// an incremental refetch of 100,000 items after 1 % changed beside dlt's (IncrementalBench).
/// Needs Python's dlt (`pip install 'dlt[duckdb]==1.31.*'`); run from the repository root.
func runManifestBenchmarks(quick: Bool) async {
    let upstream = try! SampleUpstream()
    let base = try! await upstream.start().absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    if CommandLine.arguments.contains("--incremental") {
        // `--manifests --incremental`: the incremental refetch alone.
        await runIncrementalManifestBenchmark(upstream: upstream, base: base, quick: quick)
        await upstream.stop()
        return
    }
    func manifest(size: Int, pages: Int) -> String {
        #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":[{"name":"bulk","primary_key":"id","#
            + #""endpoint":{"path":"bulk","data_selector":"data","params":{"size":\#(size),"pages":\#(pages)},"#
            + #""paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}},"fetchlog":{"search":["name"]}}]}"#
    }
    func seconds(_ start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    func run(_ arguments: [String]) -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["RUNTIME__LOG_LEVEL"] = "WARNING"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try! process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    /// Fetchlog: open a new store, define the source, fetch every page, build the view and
    /// answer one search (the view is queryable). Returns seconds and the item count.
    func fetchlog(_ text: String, directory: String) async -> (Double, Int) {
        let start = DispatchTime.now().uptimeNanoseconds
        let (log, fetcher, store) = await openManifestStore(at: directory, upstream: base, manifest: text)
        _ = try! await store.fetchManifestResource(source: "catalog", resource: "bulk")
        let view = ItemsView(state: store.snapshot.state, source: "catalog", resource: "bulk")!
        _ = view.query(text: "fox")
        let elapsed = seconds(start)
        await fetcher.shutdown()
        log.close()
        return (elapsed, view.items.count)
    }

    let (size, pages) = (250, 40)
    let manifestFile = NSTemporaryDirectory() + "fetchlog-bench-manifest.json"
    try! Data(manifest(size: size, pages: pages).utf8).write(to: URL(fileURLWithPath: manifestFile))
    let probe = run(["python3", "-c", "import dlt; print(dlt.__version__)"])
    guard probe.0 == 0 else {
        print("fetchlog-bench --manifests: Python's dlt is missing: pip install 'dlt[duckdb]==1.31.*'")
        await upstream.stop()
        return
    }
    print("## Manifest fetch: \(pages) pages × \(size) items, Fetchlog vs dlt \(probe.1.trimmingCharacters(in: .whitespacesAndNewlines)) rest_api (same server, alternating)\n")
    var ours: [Double] = [], intoDuckDB: [Double] = [], extractOnly: [Double] = []
    var counts: (Int, String, String) = (0, "", "")
    for round in 0 ..< (quick ? 1 : 5) {
        let duck = tempDir("dlt"), store = tempDir("manifest")
        func dltRun() {
            var start = DispatchTime.now().uptimeNanoseconds
            let loaded = run(["python3", "Tools/dlt/rest-api-items.py", "--duckdb", duck, manifestFile, base + "/catalog", "bulk"])
            intoDuckDB.append(seconds(start))
            precondition(loaded.0 == 0, loaded.2)
            // `{"bulk": N}`: the rows DuckDB holds.
            counts.1 = (try? JSONValue.parse(bytes: Array(loaded.1.utf8)))?["bulk"]?.intValue.map(String.init) ?? loaded.1
            start = DispatchTime.now().uptimeNanoseconds
            let extracted = run(["python3", "Tools/dlt/rest-api-items.py", manifestFile, base + "/catalog", "bulk"])
            extractOnly.append(seconds(start))
            precondition(extracted.0 == 0, extracted.2)
        }
        if round % 2 == 0 { dltRun() }
        let (elapsed, count) = await fetchlog(manifest(size: size, pages: pages), directory: store)
        ours.append(elapsed)
        counts.0 = count
        if round % 2 == 1 { dltRun() }
    }
    print("| work | median seconds | items | Fetchlog ÷ peer (time) |")
    print("|---|---:|---:|---:|")
    print("| Fetchlog: open store, define, fetch \(pages) pages, build the view, one search | \(String(format: "%.3f", median(ours))) | \(counts.0) | 1 |")
    print("| dlt rest_api → DuckDB (`pipeline.run`, python3 process) | \(String(format: "%.3f", median(intoDuckDB))) | \(counts.1) | \(String(format: "%.3f", median(ours) / median(intoDuckDB))) (\(String(format: "%.1f", median(intoDuckDB) / median(ours)))× faster) |")
    print("| dlt rest_api extraction only (items in a Python list) | \(String(format: "%.3f", median(extractOnly))) | \(counts.0) | \(String(format: "%.3f", median(ours) / median(extractOnly))) (\(String(format: "%.1f", median(extractOnly) / median(ours)))× faster) |")

    // items … TEXT over 100,000 items: the view from the snapshot (reused while its pages are
    // the same) and one search, first 20 matches and the count, as the command answers.
    let bigDirectory = tempDir("manifest-100k")
    let log = try! EventLog.open(at: bigDirectory)
    var configuration = FetchConfiguration()
    configuration.upstream = Upstream(base: base)
    let fetcher = Fetcher(sources: .seed, configuration: configuration)
    let store = try! Store(log: log, sources: .seed, fetcher: fetcher)
    try! await store.define(try! RestManifest(json: try! JSONValue.parse(bytes: Array(manifest(size: 1000, pages: 100).utf8))))
    _ = try! await store.fetchManifestResource(source: "catalog", resource: "bulk")
    let state = store.snapshot.state
    var start = DispatchTime.now().uptimeNanoseconds
    let first = ItemsView(state: state, source: "catalog", resource: "bulk")!
    _ = first.query(text: "x")
    let build = seconds(start)
    var generator = TestPattern.Generator(seed: 15)
    let words = ["amber", "blue", "fox", "koala", "jade", "eel", "gold ibis", "crow 1", "77", "4242", "zebra", "e", "an", "dune hare 9"]
    let needles = (0 ..< 400).map { _ in words[Int(generator.next() % UInt64(words.count))] }
    var times: [Double] = [], matches: [Int] = []
    for needle in needles {
        start = DispatchTime.now().uptimeNanoseconds
        let view = ItemsView(state: state, source: "catalog", resource: "bulk")!
        let found = view.positions(text: needle)
        _ = found.prefix(20).map { view.items[$0] }
        times.append(seconds(start) * 1e6)
        matches.append(found.count)
    }
    times.sort()
    let itemsFile = NSTemporaryDirectory() + "fetchlog-bench-items.json", needlesFile = NSTemporaryDirectory() + "fetchlog-bench-needles.json"
    try! Data(first.export(asOf: 0).canonicalText().utf8).write(to: URL(fileURLWithPath: itemsFile))
    try! Data(JSONValue.array(needles.map(JSONValue.string)).canonicalText().utf8).write(to: URL(fileURLWithPath: needlesFile))
    let peer = run(["python3", "Tools/FetchlogBench/sqlite-search.py", itemsFile, needlesFile])
    let sqlite = try! JSONValue.parse(bytes: Array(peer.1.utf8))
    let agree = (sqlite["matches"]?.arrayValue?.compactMap(\.intValue) ?? []) == matches
    let p50 = times[times.count / 2], p99 = times[min(times.count - 1, times.count * 99 / 100)]
    let s50 = sqlite["p50_us"]?.doubleValue ?? .nan, s99 = sqlite["p99_us"]?.doubleValue ?? .nan
    print("\n## `items catalog bulk TEXT` over \(first.items.count) items: 400 searches (first 20 matches and the count)\n")
    print("Index built on the first search: \(String(format: "%.1f", build * 1000)) ms (view and index; reused while the pages are the same). Same counts as SQLite for every search: \(agree ? "yes" : "NO").\n")
    print("| | p50 µs | p99 µs |")
    print("|---|---:|---:|")
    print("| Fetchlog (view from the snapshot + one-pass search) | \(String(format: "%.0f", p50)) | \(String(format: "%.0f", p99)) |")
    print("| SQLite in memory, `LIKE '%text%'` on a folded column (Python sqlite3) | \(String(format: "%.0f", s50)) | \(String(format: "%.0f", s99)) |")
    print("| ratio (SQLite ÷ Fetchlog) | \(String(format: "%.1f", s50 / p50))× | \(String(format: "%.1f", s99 / p99))× |")
    await fetcher.shutdown()
    log.close()

    await runIncrementalManifestBenchmark(upstream: upstream, base: base, quick: quick)
    await upstream.stop()
}

/// A new store in `directory` fetching through the sample upstream at `base`, with the
/// manifest `text` defined: where each manifest bench starts.
func openManifestStore(at directory: String, upstream base: String, manifest text: String) async -> (EventLog, Fetcher, Store) {
    let log = try! EventLog.open(at: directory)
    var configuration = FetchConfiguration()
    configuration.upstream = Upstream(base: base)
    let fetcher = Fetcher(sources: .seed, configuration: configuration)
    let store = try! Store(log: log, sources: .seed, fetcher: fetcher)
    try! await store.define(try! RestManifest(json: try! JSONValue.parse(bytes: Array(text.utf8))))
    return (log, fetcher, store)
}
