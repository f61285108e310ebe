import FetchlogCore
import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// `fetchlog-bench --sync` (issue 37): what `fetchlog sync` costs an upstream and the machine
/// over a simulated day. 100 single-page resources on one loopback server, 20 each living
/// 5 m, 15 m, 1 h, 6 h and 24 h — even-numbered ones by their manifest's `ttl`, odd-numbered
/// (in a second manifest) by the upstream's `max-age` — so both sources of freshness are counted. The server answers
/// 304 to every conditional request (nothing changes: an idle sync). `SyncRunner.run` is
/// driven by a sleeper that moves the clock to the time asked at once, so a day takes
/// seconds and every wake-up is counted.
///
/// The minimum is what freshness allows over the closed day [t0, t0 + 24 h]: the first fetch
/// at t0, then one revalidation each time a lifetime ends inside the day, floor(24 h / L) + 1
/// requests per resource of lifetime L. The ideal wake-ups are the distinct moments in
/// (t0, t0 + 24 h] at which any lifetime ends: one per due time, none in between (no polling).
func runSyncBenchmark() async {
    let lifetimes: [Int64] = [300, 900, 3600, 21_600, 86_400]
    let ttlText = ["5m", "15m", "1h", "6h", "24h"]
    let count = 100
    let day: Int64 = 86_400_000

    // The simulated day starts three days before the real clock, on the hour: the server's
    // own `Date` (real time) is then always later than the recorded times, so a response's
    // apparent age (RFC 9111 §4.2.3) is zero, as between clocks that agree.
    let realNow = Int64(Date().timeIntervalSince1970 * 1000)
    let t0 = Timestamp(milliseconds: (realNow - 3 * day) / 3_600_000 * 3_600_000)
    let end = Timestamp(milliseconds: t0.milliseconds + day)
    let clock = FixedClock(t0)

    let sent = Atomic<Int>(0)
    // Per resource, so the table can say which kind of lifetime costs more than it should.
    let perResource = Mutex<[Int]>(Array(repeating: 0, count: 100))
    let notModified = Atomic<Int>(0)
    let router = Router()
    router.get("/r/:id") { request, context in
        sent.add(1, ordering: .relaxed)
        let id = Int(context.parameters.get("id") ?? "") ?? 0
        perResource.withLock { $0[id] += 1 }
        let etag = "\"r\(id)-v1\""
        var headers: HTTPFields = [.contentType: "application/json", .eTag: etag]
        if id % 2 == 1 { headers[.cacheControl] = "max-age=\(lifetimes[id % lifetimes.count])" }
        if request.headers[.ifNoneMatch] == etag {
            notModified.add(1, ordering: .relaxed)
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: #"[{"id":\#(id)}]"#)))
    }
    var logger = Logger(label: "sync-bench-upstream")
    logger.logLevel = .error
    let (addresses, listening) = AsyncStream<String>.makeStream()
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
                          onServerRunning: { listening.yield("http://127.0.0.1:\($0.localAddress!.port!)") }, logger: logger)
    // Left running to the end (a cancelled Hummingbird server logs its shutdown as errors).
    Task { try await app.runService() }
    var iterator = addresses.makeAsyncIterator()
    let base = await iterator.next()!

    // Two manifests on the one server: a manifest resource without a `ttl` takes the shortest
    // `ttl` its siblings wrote (FreshnessPolicy.ownTimeToLive: a source's pages age alike), so
    // the upstream's max-age decides only in a manifest that writes none.
    func manifest(_ name: String, parity: Int) -> String {
        let resources = (0 ..< count).filter { $0 % 2 == parity }.map { i in
            let ttl = parity == 0 ? #","fetchlog":{"ttl":"\#(ttlText[i % lifetimes.count])"}"# : ""
            return #"{"name":"r\#(i)","endpoint":{"path":"r/\#(i)","paginator":"single_page"},"primary_key":"id"\#(ttl)}"#
        }
        return #"{"name":"\#(name)","client":{"base_url":"\#(base)"},"resources":[\#(resources.joined(separator: ","))]}"#
    }

    let directory = tempDir("sync")
    var configuration = Store.Configuration()
    configuration.clock = clock
    configuration.fetching.upstream = .real
    configuration.fetching.allowPrivateHosts = true
    configuration.fetching.retry.retries = 0
    let store = try! await Store.open(at: URL(filePath: directory), configuration: configuration)
    try! await store.define(RestManifest(json: JSONValue.parse(manifest("byttl", parity: 0))))
    try! await store.define(RestManifest(json: JSONValue.parse(manifest("bymaxage", parity: 1))))

    /// Moves the clock to each time asked at once; the first sleep past the day (or with
    /// nothing ever due) ends the loop. Every time asked is kept: the wake-ups.
    final class DaySleeper: SyncSleeper {
        let clock: FixedClock
        let end: Timestamp
        let asked = Mutex<[Timestamp]>([])
        init(clock: FixedClock, end: Timestamp) {
            self.clock = clock
            self.end = end
        }

        func sleep(until: Timestamp?, planned _: Set<SyncWriteMark>, clock _: any WallClock) async throws {
            guard let until, until <= end else { throw CancellationError() }
            asked.withLock { $0.append(until) }
            clock.set(until)
        }
    }

    var runner = SyncRunner(store: store, policy: FreshnessPolicy(sources: SourceRegistry([])), clock: clock)
    let sleeper = DaySleeper(clock: clock, end: end)
    let passes = Atomic<Int>(0)
    runner.onEvent = { event in
        if case .passed = event { passes.add(1, ordering: .relaxed) }
    }
    let started = DispatchTime.now().uptimeNanoseconds
    // The sleeper ends the loop by throwing CancellationError, as SIGTERM would.
    _ = try? await runner.run(sleeper: sleeper)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    await store.close()

    let minimum = (0 ..< count).reduce(0) { $0 + Int(day / (lifetimes[$1 % lifetimes.count] * 1000)) + 1 }
    var dueTimes = Set<Int64>()
    for lifetime in lifetimes {
        var at = lifetime * 1000
        while at <= day { dueTimes.insert(t0.milliseconds + at); at += lifetime * 1000 }
    }
    let wakeUps = sleeper.asked.withLock { $0 }.map(\.milliseconds)
    let firstDue = dueTimes.min()!
    func window(_ from: Int64, _ to: Int64) -> (due: Int, woke: Int) {
        (dueTimes.filter { $0 > from && $0 <= to }.count, wakeUps.filter { $0 > from && $0 <= to }.count)
    }
    let rows: [(String, (due: Int, woke: Int))] = [
        ("first minute (t0, t0+1m]", window(t0.milliseconds, t0.milliseconds + 60_000)),
        ("minute up to the first due time", window(firstDue - 60_000, firstDue)),
        ("day (t0, t0+24h]", window(t0.milliseconds, end.milliseconds)),
    ]
    let total = sent.load(ordering: .relaxed)
    let unchanged = notModified.load(ordering: .relaxed)

    print("Sync over a simulated day: \(count) resources on one loopback origin, 20 each living 5m/15m/1h/6h/24h")
    print("(even: their manifest's ttl; odd, in a manifest with no ttl: the upstream's max-age), every conditional request answered 304")
    print("")
    print("requests over [t0, t0+24h]     sent  minimum  sent/minimum")
    print("  at the server           " + pad(total, 10) + pad(minimum, 9) + "  " + String(format: "%.3f×", Double(total) / Double(minimum)))
    print("  of which 304            " + pad(unchanged, 10) + pad(minimum - count, 9) + "  (every revalidation after the first fetch)")
    let asked = perResource.withLock { $0 }
    for (index, lifetime) in lifetimes.enumerated() {
        for (kind, parity) in [("ttl", 0), ("max-age", 1)] {
            let ids = (0 ..< count).filter { $0 % lifetimes.count == index && $0 % 2 == parity }
            let got = ids.reduce(0) { $0 + asked[$1] }
            let least = ids.count * (Int(day / (lifetime * 1000)) + 1)
            print("  " + "\(ttlText[index]) by \(kind) (\(ids.count))".padding(toLength: 23, withPad: " ", startingAt: 0)
                + pad(got, 10) + pad(least, 9) + "  " + String(format: "%.3f×", Double(got) / Double(least)))
        }
    }
    print("")
    print("wake-ups of the idle loop              due times  wake-ups  per due time")
    for (name, counts) in rows {
        let ratio = counts.due == 0 ? (counts.woke == 0 ? "—" : "∞") : String(format: "%.2f", Double(counts.woke) / Double(counts.due))
        print("  " + name.padding(toLength: 36, withPad: " ", startingAt: 0) + pad(counts.due, 9) + pad(counts.woke, 10) + "  " + ratio)
    }
    let exact = wakeUps == dueTimes.sorted()
    print("  wake-ups at exactly the due times, in order: \(exact ? "yes" : "no")")
    print("")
    print("\(passes.load(ordering: .relaxed)) passes, \(String(format: "%.1f", seconds)) s of wall time")
    try? FileManager.default.removeItem(atPath: directory)
}

private func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: " ", count: max(0, width - text.count)) + text
}
