import FetchlogCore
import FetchlogSources
import FetchlogLMDB
import Foundation

/// `fetchlog-bench --views`: decode throughput, replay throughput (full, superseded bodies
/// skipped, from a checkpoint) and open time with a checkpoint as the log grows. Query
/// latency is the ordo-one suite's (Tools/Benchmarks/Decoding). Reads the recorded
/// responses from the sample upstream's fixtures, so run it from the repository root.
func runViewBenchmarks(quick: Bool) {
    let fixtures = "Tools/SampleUpstream/Sources/SampleUpstream/Fixtures/"
    func bytes(_ name: String) -> [UInt8] { [UInt8](try! Data(contentsOf: URL(fileURLWithPath: fixtures + name))) }
    func time(_ body: () throws -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try! body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
    func fmt(_ v: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", v) }

    runDecodeBenchmarks(quick: quick)

    // 2. Replay throughput over fetch events of many resources (most superseded).
    let events = quick ? 2_000 : 10_000
    let bodies: [(Resource, [UInt8])] = [
        (.tvmazeShow(1), bytes("tvmaze/show-1.json")), (.tvmazeEpisodes(1), bytes("tvmaze/show-1-episodes.json")),
        (.viaplayRoot, bytes("viaplay/ios-se-root-2022.json")), (.thmanyahHome(1), bytes("thmanyah/home-sections-page-1.json")),
        (.articAgent(2), Array(("{\"data\":" + String(decoding: bytes("artic/api-data/agents/2.json"), as: UTF8.self) + "}").utf8)),
    ]
    let dir = tempDir("replay")
    var options = EventLog.Options()
    options.initialMapSize = 4 << 30
    let log = try! EventLog.open(at: dir, options: options)
    var batch: [Event] = []
    var bodyBytes = 0
    for i in 0 ..< events {
        let (resource, body) = bodies[i % bodies.count]
        // 20 resources of each shape: every body is superseded 99 times out of 100.
        let path = resource.path + (resource.path.contains("?") ? "&" : "?") + "v=\(i / bodies.count % 20)"
        bodyBytes += body.count
        batch.append(Event(recordedAt: Timestamp(milliseconds: Int64(i)), kind: .fetched, source: resource.source.rawValue,
                           label: path, request: Event.Request(url: "http://x/\(path)"),
                           response: Event.Response(status: 200, headers: [Header("ETag", "\"\(i)\"")]), body: body))
        if batch.count == 500 { try! log.appendBlocking(contentsOf: batch); batch.removeAll() }
    }
    if !batch.isEmpty { try! log.appendBlocking(contentsOf: batch) }
    let mb = Double(bodyBytes) / 1e6
    var full = LogState(sources: .seed), fast = LogState(sources: .seed)
    let fullTime = time { full = try Store.fullReplay(log, sources: .seed) }
    let fastTime = time { fast = try Store.replay(log, sources: .seed).state }
    precondition(full == fast)
    let store = try! Store(log: log, sources: .seed)
    saveCheckpointBlocking(store)
    let openTime = time { _ = try Store(log: log, sources: .seed) }
    print("\n## Replay of \(events) fetch events (\(fmt(mb, 1)) MB of bodies, 100 resources, each body superseded 99×)\n")
    print("| replay | time | events/s | MB/s of body |")
    print("|---|---:|---:|---:|")
    print("| full: every body decoded | \(fmt(fullTime * 1000)) ms | \(fmt(Double(events) / fullTime)) | \(fmt(mb / fullTime)) |")
    print("| superseded bodies skipped (`replay`, `export --at`) | \(fmt(fastTime * 1000)) ms | \(fmt(Double(events) / fastTime)) | \(fmt(mb / fastTime)) |")
    print("| open from a checkpoint (tail 0) | \(fmt(openTime * 1000, 1)) ms | \(fmt(Double(events) / openTime)) | \(fmt(mb / openTime)) |")

    // 3. Open time with a checkpoint as the log grows.
    print("\n## Opening a store with a checkpoint as its log grows\n")
    print("| events in the log | open (checkpoint + empty tail) | open without a checkpoint |")
    print("|---:|---:|---:|")
    let agent = bodies[4].1
    let growDir = tempDir("grow")
    let grow = try! EventLog.open(at: growDir, options: options)
    var appended = 0
    for target in quick ? [1_000, 10_000] : [1_000, 10_000, 100_000] {
        while appended < target {
            let n = min(1_000, target - appended)
            try! grow.appendBlocking(contentsOf: (0 ..< n).map { j in
                let id = (appended + j) % 100
                return Event(recordedAt: Timestamp(milliseconds: Int64(appended + j)), kind: .fetched, source: "artic",
                             label: "/api/v1/agents/\(id)", response: Event.Response(status: 200), body: agent)
            })
            appended += n
        }
        saveCheckpointBlocking(try! Store(log: grow, sources: .seed))
        let withCheckpoint = time { _ = try Store(log: grow, sources: .seed) }
        let without = time { _ = try Store.replay(grow, sources: .seed) }
        print("| \(target) | \(fmt(withCheckpoint * 1000, 1)) ms | \(fmt(without * 1000, 1)) ms |")
    }
}

/// `fetchlog-bench --decode`: body decoding throughput alone (also the first part of `--views`).
/// Each figure is the best of several timed rounds after a warm-up, in MB/s of body.
func runDecodeBenchmarks(quick: Bool) {
    let fixtures = "Tools/SampleUpstream/Sources/SampleUpstream/Fixtures/"
    func bytes(_ name: String) -> [UInt8] { [UInt8](try! Data(contentsOf: URL(fileURLWithPath: fixtures + name))) }
    func fmt(_ v: Double) -> String { String(format: "%.0f", v) }
    /// Best MB/s over `trials` runs of `rounds` calls.
    func rate(_ size: Int, _ body: () throws -> Void) -> Double {
        let rounds = quick ? 5 : 20, trials = quick ? 2 : 5
        try! body() // warm-up
        var best = Double.infinity
        for _ in 0 ..< trials {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0 ..< rounds { try! body() }
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return Double(size * rounds) / 1e6 / best
    }
    print("## Body decoding (MB/s; higher is better)\n")
    print("| body | size | DocumentDecoder (DTOs) | JSONValue.parse (whole tree) | JSONSerialization |")
    print("|---|---:|---:|---:|---:|")
    let bodies: [(String, DocumentKind)] = [
        ("brastlewark/census.json", .brastlewarkCensus),
        ("tvmaze/shows-page-0-2024.json", .tvmazeShowsPage),
        ("tvmaze/shows-page-0-2019.json", .tvmazeShowsPage),
        ("tvmaze/show-1-episodes.json", .tvmazeEpisodes),
        ("viaplay/ios-se-root-2022.json", .viaplayPage),
        ("viaplay/pc-se-serier-samtliga-category.json", .viaplayPage),
        ("thmanyah/home-sections-page-1.json", .thmanyahHome),
        ("artic/api-artworks-page-1.json", .articArtworks),
    ]
    for (name, kind) in bodies {
        guard FileManager.default.fileExists(atPath: fixtures + name) else { continue }
        let body = bytes(name)
        let data = Data(body)
        let ours = rate(body.count) { _ = try SeedSources.decode(kind, body: body) }
        let tree = rate(body.count) { _ = try JSONValue.parse(bytes: body) }
        let foundation = rate(body.count) { _ = try JSONSerialization.jsonObject(with: data) }
        print("| \(name) | \(body.count) B | \(fmt(ours)) | \(fmt(tree)) | \(fmt(foundation)) |")
    }
    print()
}
