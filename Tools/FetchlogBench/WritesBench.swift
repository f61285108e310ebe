import AsyncHTTPClient
import FetchlogCore
import Foundation
import NIOCore
import NIOHTTP1
import SampleUpstream

/// `fetchlog-bench --writes` (issue 26): offline writes.
///
/// 1. Visible at once: over 100,000 held items (the bulk catalog, 400 pages of 250), an
///    update of one item is recorded, then the optimistic view is read back. Timed apart:
///    the view (`ItemsView` over the state with the new mutation folded on top: the
///    acceptance's "visible in the optimistic view") and the write itself (validation and
///    the durable commit, before `write` returns). The mutations stay pending, so the last
///    sample folds a thousand of them.
/// 2. Sending: 10,000 creates recorded offline (the events `item add` records, a thousand
///    a commit, untimed), then one `push()` timed (each mutation's
///    `write.sending` and `write.answered` events durable, as `push` records them) beside
///    the same 10,000 POSTs (same bodies, an `Idempotency-Key` each) sent directly with
///    AsyncHTTPClient to the same sample upstream, alternating, in one run: one at a time
///    (`push()`'s default) and 16 at once (`push(width: 16)`; an item's mutations still go
///    one after another). The server's applied writes are counted.
///
/// `--writes --view` or `--writes --push`: one part alone. Run from the repository root.
func runWritesBenchmark(quick: Bool) async {
    let upstream = try! SampleUpstream()
    let base = try! await upstream.start().absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    let arguments = CommandLine.arguments
    let both = !arguments.contains("--view") && !arguments.contains("--push")
    if both || arguments.contains("--view") { await writesVisibleBenchmark(base: base, quick: quick) }
    if both || arguments.contains("--push") { await writesPushBenchmark(upstream: upstream, base: base, quick: quick) }
    await upstream.stop()
}

private func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

private func nanosecondsSince(_ start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) }

private func writesVisibleBenchmark(base: String, quick: Bool) async {
    let (size, pages) = (250, 400)
    let manifest = #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":[{"name":"bulk","primary_key":"id","#
        + #""endpoint":{"path":"bulk","data_selector":"data","params":{"size":\#(size),"pages":\#(pages)},"#
        + #""paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}},"#
        + #""fetchlog":{"writes":{"update":{"method":"PATCH","path":"bulk/{id}"}}}}]}"#
    let directory = tempDir("writes-view")
    let (log, fetcher, store) = await openManifestStore(at: directory, upstream: base, manifest: manifest)
    _ = try! await store.fetchManifestResource(source: "catalog", resource: "bulk")
    let held = ItemsView(state: store.snapshot.state, source: "catalog", resource: "bulk")!
    precondition(held.items.count == size * pages, "the bulk catalog holds \(held.items.count) items, not \(size * pages)")
    let keys = held.items.map { ItemsView.text($0["id"]) }
    let samples = quick ? 200 : 1000
    var view: [Double] = [], write: [Double] = []
    for i in 0 ..< samples + 20 {
        // Spread over the items (a prime stride): each sample changes another item.
        let key = keys[(i * 7919) % keys.count]
        var start = DispatchTime.now().uptimeNanoseconds
        try! await store.write(.update, source: "catalog", resource: "bulk", key: key, fields: [("size", .number(String(100_000 + i)))])
        let wrote = nanosecondsSince(start)
        start = DispatchTime.now().uptimeNanoseconds
        let optimistic = ItemsView(state: store.snapshot.state, source: "catalog", resource: "bulk")!
        let shown = nanosecondsSince(start)
        // Checked outside the timing: the view shows the change, marked pending.
        let item = optimistic.item(key: key)
        precondition(item?["size"] == .number(String(100_000 + i)) && item?["pending"] != nil, "item \(key) does not show its pending change")
        precondition(optimistic.items.count == size * pages)
        if i >= 20 { view.append(shown); write.append(wrote) }  // the first 20 warm up
    }
    view.sort(); write.sort()
    func ms(_ ns: Double) -> String { String(format: "%.3f", ns / 1e6) }
    print("## Offline writes: a mutation visible in the optimistic view, \(size * pages) items held, \(samples) updates (1 to \(samples) pending)\n")
    print("| step | p50 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|")
    print("| optimistic view after the mutation (`ItemsView`, every pending mutation folded) | \(ms(percentile(view, 0.5))) | \(ms(percentile(view, 0.99))) | \(ms(view.last!)) |")
    print("| the write itself (`item set`: checked against the items, committed durably) | \(ms(percentile(write, 0.5))) | \(ms(percentile(write, 0.99))) | \(ms(write.last!)) |")
    print("")
    await fetcher.shutdown()
    log.close()
    removeBenchTemporaries()
}

/// Note `i`'s fields: a unique title (titles are unique on the server) and a priority.
private func noteBody(_ round: Int, _ side: String, _ i: Int) -> JSONValue {
    .object([("priority", .number(String(1 + i % 5))), ("title", .string("bench \(side) \(round) note \(i)"))])
}

private func writesPushBenchmark(upstream: SampleUpstream, base: String, quick: Bool) async {
    let count = quick ? 1000 : 10_000
    let manifest = #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":[{"name":"notes","primary_key":"id","#
        + #""endpoint":{"path":"notes","data_selector":"data","paginator":"single_page"},"#
        + #""fetchlog":{"writes":{"create":{"method":"POST","path":"notes"}}}}]}"#
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    func applied() async -> Int { await upstream.appliedWrites.count }

    /// The same POSTs, sent directly: `width` at once. Returns seconds.
    func direct(_ round: Int, width: Int) async -> Double {
        await upstream.resetNotes()
        let side = "direct\(width)"
        let start = DispatchTime.now().uptimeNanoseconds
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                let i = next
                next += 1
                group.addTask {
                    var request = HTTPClientRequest(url: base + "/catalog/notes")
                    request.method = .POST
                    request.headers.add(name: "User-Agent", value: "fetchlog-bench")
                    request.headers.add(name: "Accept", value: "application/json")
                    request.headers.add(name: "Idempotency-Key", value: "\(side)-\(round):\(i)")
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.body = .bytes(ByteBuffer(bytes: Array(noteBody(round, side, i).canonicalText().utf8)))
                    let response = try! await client.execute(request, timeout: .seconds(30))
                    _ = try! await response.body.collect(upTo: 1 << 20)
                    precondition(response.status == .created, "direct POST answered \(response.status)")
                }
            }
            for _ in 0 ..< min(width, count) { add() }
            while await group.next() != nil { if next < count { add() } }
        }
        let elapsed = nanosecondsSince(start) / 1e9
        let done = await applied()
        precondition(done == count, "the server applied \(done) direct writes, not \(count)")
        return elapsed
    }

    /// Records `count` creates (untimed), then times one push, `width` at once. Returns seconds.
    func ours(_ round: Int, width: Int) async -> Double {
        await upstream.resetNotes()
        let directory = tempDir("writes-push-\(round)")
        let (log, fetcher, store) = await openManifestStore(at: directory, upstream: base, manifest: manifest)
        _ = try! await store.fetchManifestResource(source: "catalog", resource: "notes")
        // The `write.mutation` events `store.write(.create, …)` records, a thousand a commit:
        // recording them one by one checks each against the schema of every item held
        // (the creates before it included), which is not what is measured here.
        let me = store.log.metadata.storeID
        for first in stride(from: 0, to: count, by: 1000) {
            try! await store.sendIntents((first ..< min(first + 1000, count)).map { i in
                (source: Source("catalog"), label: WriteEvents.mutation, body: .object([
                    ("store", .string(me)), ("op", .string("create")), ("resource", .string("notes")), ("key", .null),
                    ("fields", noteBody(round, "push\(width)", i)),
                ]))
            })
        }
        precondition(store.pendingMutations.count == count)
        let start = DispatchTime.now().uptimeNanoseconds
        let report = try! await store.push(width: width)
        let elapsed = nanosecondsSince(start) / 1e9
        precondition(report.confirmed.count == count, "push confirmed \(report.confirmed.count) of \(count): \(report.lines.prefix(3))")
        let done = await applied()
        precondition(done == count && store.pendingMutations.isEmpty, "the server applied \(done) pushed writes, not \(count)")
        await fetcher.shutdown()
        log.close()
        removeBenchTemporaries()
        return elapsed
    }

    let width = 16
    let rounds = quick ? 1 : 3
    var pushed: [Double] = [], pushedWide: [Double] = [], serial: [Double] = [], wide: [Double] = []
    for round in 0 ..< rounds {
        if round % 2 == 0 {
            pushed.append(await ours(round, width: 1))
            serial.append(await direct(round, width: 1))
            pushedWide.append(await ours(round, width: width))
            wide.append(await direct(round, width: width))
        } else {
            wide.append(await direct(round, width: width))
            pushedWide.append(await ours(round, width: width))
            serial.append(await direct(round, width: 1))
            pushed.append(await ours(round, width: 1))
        }
    }
    try? await client.shutdown()
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    func rate(_ values: [Double]) -> Double { Double(count) / median(values) }
    print("## Offline writes: pushing \(count) creates vs the same POSTs sent directly with AsyncHTTPClient (same server, alternating, median of \(rounds))\n")
    print("| at once | `push()` s | `push()` writes/s | AsyncHTTPClient s | AsyncHTTPClient writes/s | push ÷ direct |")
    print("|---:|---:|---:|---:|---:|---:|")
    print(String(format: "| 1 (`push()`, the default) | %.3f | %.0f | %.3f | %.0f | %.2f× |", median(pushed), rate(pushed), median(serial), rate(serial), rate(pushed) / rate(serial)))
    print(String(format: "| \(width) (`push(width: \(width))`) | %.3f | %.0f | %.3f | %.0f | %.2f× |", median(pushedWide), rate(pushedWide), median(wide), rate(wide), rate(pushedWide) / rate(wide)))
    print(String(format: "\n`push(width: \(width))` ÷ AsyncHTTPClient one at a time: %.2f×\n", rate(pushedWide) / rate(serial)))
}
