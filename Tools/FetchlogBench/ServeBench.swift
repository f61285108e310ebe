import AsyncHTTPClient
import FetchlogCore
import FetchlogServe
import FetchlogSources
import Foundation
import Hummingbird
import Logging
import NIOCore
import SampleUpstream

/// `fetchlog-bench --serve`: `fetchlog serve`'s `GET /api/views/gnomes` (the census of 1,337
/// gnomes, fetched from the bundled sample upstream) beside a bare Hummingbird handler that
/// returns the same bytes and headers from memory, both in this process, loaded in turns by
/// the same AsyncHTTPClient clients on loopback: throughput and p99 latency, and their
/// ratio. Then 100 clients on `/api/stream` while 10,000 events are appended: each must
/// receive every one, in seq order.
func runServeBenchmark(quick: Bool) async {
    func fmt(_ v: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", v) }
    var logger = Logger(label: "fetchlog-bench.serve")
    logger.logLevel = .warning

    // The store: one census fetch, the way a user's store holds it.
    let upstream = try! SampleUpstream(configuration: SampleUpstreamConfiguration())
    let upstreamBase = try! await upstream.start().absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    let directory = tempDir("serve")
    var logOptions = EventLog.Options()
    logOptions.initialMapSize = 4 << 30
    let log = try! EventLog.open(at: directory, options: logOptions)
    var fetchConfiguration = FetchConfiguration()
    fetchConfiguration.upstream = Upstream(base: upstreamBase)
    let fetcher = Fetcher(sources: .seed, configuration: fetchConfiguration)
    let store = try! Store(log: log, sources: .seed, fetcher: fetcher)
    _ = try! await store.fetch(.brastlewarkCensus)
    await fetcher.shutdown()
    await upstream.stop()
    let content = ServeContent(store: store, clock: SystemClock()) { event in
        .object([("seq", .number(Int(event.seq))), ("kind", .string(event.kind.name)), ("source", .string(event.source)), ("label", .string(event.label))])
    }
    let (ourAddress, ourListening) = AsyncStream<String>.makeStream()
    Task { try await FetchlogServer.run(content, configuration: ServeConfiguration()) { ourListening.yield($0) } }
    var addresses = ourAddress.makeAsyncIterator()
    let ours = await addresses.next()!

    let concurrency = 16
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 200)
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

    // The census's gnomes (large), and a small view where the per-request work shows.
    for view in ["gnomes", "filters"] {
        let exported = try! ViewCatalog.export(view, state: store.snapshot.state).canonicalText() + "\n"
        let etag = "\"\(SHA256.hex(String(exported.dropLast())))\""
        // The bare handler with the same bytes and headers, on a server of its own.
        let (rawAddress, rawListening) = AsyncStream<String>.makeStream()
        let raw = Application(responder: SameBytes(body: ByteBuffer(string: exported), etag: etag),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
                              onServerRunning: { rawListening.yield("http://127.0.0.1:\($0.localAddress!.port!)") }, logger: logger)
        // Left running to the end (a cancelled Hummingbird server logs its shutdown as errors).
        Task { try await raw.runService() }
        var rawAddresses = rawAddress.makeAsyncIterator()
        let bare = await rawAddresses.next()!

        /// `total` GETs of `url` by `concurrency` clients at once: requests/s and p99 in ms.
        func load(_ url: String, total: Int) async -> (rate: Double, p99: Double) {
            let start = DispatchTime.now().uptimeNanoseconds
            let latencies = await withTaskGroup(of: [UInt64].self) { group in
                for _ in 0 ..< concurrency {
                    group.addTask {
                        var mine: [UInt64] = []
                        for _ in 0 ..< total / concurrency {
                            let begin = DispatchTime.now().uptimeNanoseconds
                            let response = try! await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
                            let body = try! await response.body.collect(upTo: 64 << 20)
                            precondition(response.status == .ok && body.readableBytes == exported.utf8.count)
                            mine.append(DispatchTime.now().uptimeNanoseconds - begin)
                        }
                        return mine
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }.sorted()
            }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            return (Double(latencies.count) / elapsed, Double(latencies[latencies.count * 99 / 100]) / 1e6)
        }

        // Same answer from both, byte for byte.
        for url in [ours, bare] {
            let response = try! await client.execute(HTTPClientRequest(url: url + "/api/views/" + view), timeout: .seconds(60))
            let body = String(buffer: try! await response.body.collect(upTo: 64 << 20))
            precondition(body == exported && response.headers.first(name: "ETag") == etag, "\(url) answered other bytes")
        }
        let total = (quick ? 800 : 4_000) * (exported.utf8.count > 100_000 ? 1 : 5)
        _ = await load(ours + "/api/views/" + view, total: total / 4) // warm-up
        _ = await load(bare + "/api/views/" + view, total: total / 4)
        var oursRuns: [(rate: Double, p99: Double)] = [], rawRuns: [(rate: Double, p99: Double)] = []
        for round in 0 ..< (quick ? 2 : 5) {
            if round % 2 == 0 {
                rawRuns.append(await load(bare + "/api/views/" + view, total: total))
                oursRuns.append(await load(ours + "/api/views/" + view, total: total))
            } else {
                oursRuns.append(await load(ours + "/api/views/" + view, total: total))
                rawRuns.append(await load(bare + "/api/views/" + view, total: total))
            }
        }
        // The same GET with ?at= the last seq: exported, serialized and hashed for each
        // request, as every GET was before the per-snapshot cache (`ViewCache`).
        let uncached = await load(ours + "/api/views/" + view + "?at=\(store.snapshot.seq)", total: total / 10)
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let (oursRate, rawRate) = (median(oursRuns.map(\.rate)), median(rawRuns.map(\.rate)))
        let (oursP99, rawP99) = (median(oursRuns.map(\.p99)), median(rawRuns.map(\.p99)))
        print("## fetchlog serve: GET /api/views/\(view) (\(exported.utf8.count) B), \(concurrency) clients on loopback\n")
        print("| | requests/s | p99 |")
        print("|---|---:|---:|")
        print("| fetchlog serve | \(fmt(oursRate)) | \(fmt(oursP99, 2)) ms |")
        print("| bare Hummingbird handler, same bytes | \(fmt(rawRate)) | \(fmt(rawP99, 2)) ms |")
        print("| fetchlog serve, `?at=\(store.snapshot.seq)` (exported per request: no cache) | \(fmt(uncached.rate)) | \(fmt(uncached.p99, 2)) ms |")
        print("| ratio (serve / bare) | \(fmt(oursRate / rawRate, 2))× | \(fmt(rawP99 / oursP99, 2))× (bare p99 / serve p99) |")
        print("\n(median of \(oursRuns.count) rounds of \(total) requests each, the two servers in turns; `?at=`: one round of \(total / 10))\n")
    }

    // 100 subscribers of /api/stream while 10,000 events are appended.
    let subscribers = 100, events = quick ? 2_000 : 10_000
    let first = store.snapshot.seq + 1, last = first + UInt64(events) - 1
    let (subscribed, announce) = AsyncStream<Void>.makeStream()
    let readers = (0 ..< subscribers).map { _ in
        Task { () -> (count: Int, inOrder: Bool) in
            let response = try await client.execute(HTTPClientRequest(url: ours + "/api/stream"), timeout: .seconds(600))
            var pending = "", count = 0, expected = first, inOrder = true
            reading: for try await chunk in response.body {
                pending += String(buffer: chunk)
                while let end = pending.range(of: "\n\n") {
                    let message = pending[..<end.lowerBound]
                    pending = String(pending[end.upperBound...])
                    if message.hasPrefix(": subscribed") { announce.yield() }
                    guard message.hasPrefix("id: "), let seq = UInt64(message.dropFirst(4).prefix { $0 != "\n" }) else { continue }
                    if seq != expected { inOrder = false }
                    expected = seq + 1
                    count += 1
                    if seq == last { break reading }
                }
            }
            return (count, inOrder)
        }
    }
    var announced = 0
    for await _ in subscribed {
        announced += 1
        if announced == subscribers { break }
    }
    // Appended as another process would (straight to the log, 100 events a durable commit),
    // and caught up by the store's watcher, as `fetchlog serve` runs it.
    let watcher = store.watch(every: .milliseconds(5))
    let start = DispatchTime.now().uptimeNanoseconds
    for batch in stride(from: 0, to: events, by: 100) {
        try! await log.append(contentsOf: (batch ..< batch + 100).map { i in
            Event(recordedAt: Timestamp(milliseconds: 1_795_000_000_000 + Int64(i)), kind: .intent, source: "bench", label: "tick",
                  body: Array(#"{"i":\#(i)}"#.utf8))
        })
    }
    var received: [(count: Int, inOrder: Bool)] = []
    for reader in readers { received.append(try! await reader.value) }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    watcher.cancel()
    let complete = received.filter { $0.count == events && $0.inOrder }.count
    print("## fetchlog serve: \(subscribers) clients on /api/stream while \(events) events are appended (100 a commit)\n")
    print("| clients with every event, in seq order | events delivered | time (first append → last client done) | events/s delivered |")
    print("|---:|---:|---:|---:|")
    print("| \(complete) of \(subscribers) | \(received.map(\.count).reduce(0, +)) of \(subscribers * events) | \(fmt(elapsed, 2)) s | \(fmt(Double(received.map(\.count).reduce(0, +)) / elapsed)) |")
    precondition(complete == subscribers, "a client lost or reordered events: \(received.filter { $0.count != events || !$0.inOrder })")
    try? await client.shutdown()
}

/// The bare handler: the view's bytes and headers, prepared once.
private struct SameBytes: HTTPResponder {
    typealias Context = BasicRequestContext
    let body: ByteBuffer
    let etag: String
    func respond(to request: Request, context: Context) async throws -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .eTag: etag], body: ResponseBody(byteBuffer: body))
    }
}
