// fetchlog-bench --year: a year of revalidations every 15 minutes (35,040 rounds) of 20
// resources, bytes on disk before and after `log compact` (and `--rewrite`), the time
// compaction takes, and the head checked byte-identical.
//
// The events are the ones the fetcher records (200 with body and validators, 304 with
// the validator sent), appended in rounds of 20 with the time from an injected clock
// stepped 15 minutes a round — what FETCHLOG_NOW does for the CLI — not fetched over HTTP
// (700,800 requests would measure the loopback, not the log).
import CLMDB
import FetchlogCore
import FetchlogLMDB
import FetchlogSources
import Foundation

struct YearResource {
    let source: String
    let path: String
    let fixture: String
    /// A new body every this many rounds (96 = daily, 672 = weekly, 2,920 = monthly).
    let changeEvery: Int
    /// Answers 304 to a matching If-None-Match; else a 200 with the body every time.
    let validators: Bool
}

func runYearBenchmark(quick: Bool) {
    let fixtures = "Tools/SampleUpstream/Sources/SampleUpstream/Fixtures/"
    let daily = 96, weekly = 672, monthly = 2920
    var resources: [YearResource] = [
        YearResource(source: "brastlewark", path: "/data.json", fixture: "brastlewark/census.json", changeEvery: weekly, validators: false),
        YearResource(source: "tvmaze", path: "/shows?page=0", fixture: "tvmaze/shows-page-0-2024.json", changeEvery: weekly, validators: true),
        YearResource(source: "tvmaze", path: "/shows?page=1", fixture: "tvmaze/shows-page-1-2025-04-18.json", changeEvery: weekly, validators: true),
        YearResource(source: "tvmaze", path: "/shows?page=2", fixture: "tvmaze/shows-page-0-2019.json", changeEvery: weekly, validators: true),
        YearResource(source: "tvmaze", path: "/shows/1/episodes", fixture: "tvmaze/show-1-episodes.json", changeEvery: daily, validators: true),
        YearResource(source: "tvmaze", path: "/shows/43/episodes", fixture: "tvmaze/show-43-episodes.json", changeEvery: daily, validators: true),
        YearResource(source: "viaplay", path: "/ios-se", fixture: "viaplay/ios-se-root-2024.json", changeEvery: daily, validators: false),
        YearResource(source: "thmanyah", path: "/home_sections?page=1", fixture: "thmanyah/home-sections-page-1.json", changeEvery: daily, validators: true),
        YearResource(source: "tvmaze", path: "/search/shows?q=girls", fixture: "tvmaze/search-shows-q-girls.json", changeEvery: weekly, validators: true),
        YearResource(source: "tvmaze", path: "/search/shows?q=terminator", fixture: "tvmaze/search-shows-q-terminator.json", changeEvery: weekly, validators: true),
    ]
    for id in 1 ... 10 {
        resources.append(YearResource(source: "tvmaze", path: "/shows/\(id)", fixture: "tvmaze/show-1.json", changeEvery: monthly, validators: true))
    }
    let rounds = quick ? 3504 : 35_040
    let bodies = resources.map { [UInt8](try! Data(contentsOf: URL(fileURLWithPath: fixtures + $0.fixture))) }
    /// Version `v` of a body: the fixture with `v` trailing spaces (still the same JSON, a different digest).
    func body(_ index: Int, version: Int) -> [UInt8] { bodies[index] + [UInt8](repeating: 0x20, count: version) }

    let path = tempDir("year")
    let clockStart: Int64 = 1_767_225_600_000 // 2026-01-01T00:00:00Z
    var log: EventLog! = try! EventLog.open(at: path)
    var held: [Int] = Array(repeating: -1, count: resources.count)
    var pending: [Event] = []
    var appended = 0
    let writeTime = seconds {
        for round in 0 ..< rounds {
            let now = Timestamp(milliseconds: clockStart + Int64(round) * 15 * 60_000)
            for (index, resource) in resources.enumerated() {
                let version = round / resource.changeEvery
                let url = "https://example.invalid/\(resource.source)\(resource.path)"
                let etag = "\"\(index)-\(version)\""
                if resource.validators && held[index] == version {
                    pending.append(Event(recordedAt: now, kind: .notModified, source: resource.source, label: resource.path, durationMicros: 40_000,
                                         request: Event.Request(url: url, headers: [Header("If-None-Match", etag)]),
                                         response: Event.Response(status: 304, headers: [Header("ETag", etag)])))
                } else {
                    let sent = resource.validators && held[index] >= 0 ? [Header("If-None-Match", "\"\(index)-\(held[index])\"")] : []
                    pending.append(Event(recordedAt: now, kind: .fetched, source: resource.source, label: resource.path, durationMicros: 120_000,
                                         request: Event.Request(url: url, headers: sent),
                                         response: Event.Response(status: 200, headers: resource.validators ? [Header("ETag", etag)] : []),
                                         body: body(index, version: version)))
                    held[index] = version
                }
            }
            if pending.count >= 2000 {
                appended += try! log.appendBlocking(contentsOf: pending).count
                pending.removeAll(keepingCapacity: true)
            }
        }
        if !pending.isEmpty { appended += try! log.appendBlocking(contentsOf: pending).count }
    }
    func fileBytes() -> (size: Int, onDisk: Int) {
        var info = stat()
        stat(path + "/data.mdb", &info)
        return (Int(info.st_size), Int(info.st_blocks) * 512)
    }
    let statsBefore = try! log.statistics()
    let before = fileBytes()
    var headBefore = ""
    let replayBefore = seconds { headBefore = SHA256.hex(try! ViewCatalog.export("all", state: try! Store.replay(log, sources: SeedSources.registry).state).canonicalText()) }

    // Raw ceiling beside compaction: one liblmdb cursor pass over the same records.
    var rawScanned = 0
    let rawScan = seconds {
        let env = log.lmdbEnvironment
        rawScanned = (try? env.read { txn in
            try txn.withCursor(try txn.openDatabase("events")) { cursor in
                var n = 0
                var entry = try cursor.get(.first)
                while let current = entry { n += current.value.count > 0 ? 1 : 0; entry = try cursor.get(.next) }
                return n
            }
        }) ?? 0
    }
    var planned: Compaction.Plan?
    let planTime = seconds { planned = try! Compaction.plan(log, sources: SeedSources.registry) }
    let plan = planned!
    var done = BodyCompaction()
    let compactTime = seconds { done = try! log.compactBodies(plan.seqs, horizon: plan.horizon) }
    let afterCompact = fileBytes()
    var headAfter = ""
    let replayAfter = seconds { headAfter = SHA256.hex(try! ViewCatalog.export("all", state: try! Store.replay(log, sources: SeedSources.registry).state).canonicalText()) }
    let statsAfter = try! log.statistics()
    log.close()
    log = nil
    var rewritten: StoreRewrite.Result!
    let rewriteTime = seconds { rewritten = try! StoreRewrite.rewrite(at: path) }
    let afterRewrite = fileBytes()
    let reopened = try! EventLog.open(at: path)
    let healthy = try! reopened.verify().isHealthy
    let headRewritten = SHA256.hex(try! ViewCatalog.export("all", state: try! Store.replay(reopened, sources: SeedSources.registry).state).canonicalText())
    reopened.close()

    func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
    print("## A year of revalidations: \(rounds) rounds × \(resources.count) resources = \(appended) events")
    print("(every 15 min from 2026-01-01; 5 bodies change daily, 6 weekly, 10 monthly — changeEvery per resource in YearBench.swift;")
    print(" the census and the Viaplay root come without validators, so every round is a 200 with the body)")
    print("")
    print("| | events | data.mdb size | on disk (blocks) | record bytes | distinct bodies stored apart |")
    print("|---|---:|---:|---:|---:|---:|")
    print("| before | \(statsBefore.events) | \(mb(before.size)) | \(mb(before.onDisk)) | \(mb(statsBefore.recordBytes)) | \(statsBefore.distinctBodies) (\(mb(statsBefore.distinctBodyBytes))) |")
    print("| after `log compact` | \(statsAfter.events) | \(mb(afterCompact.size)) | \(mb(afterCompact.onDisk)) | \(mb(statsAfter.recordBytes)) | \(statsAfter.distinctBodies) (\(mb(statsAfter.distinctBodyBytes))) |")
    print("| after `--rewrite` | \(statsAfter.events) | \(mb(afterRewrite.size)) | \(mb(afterRewrite.onDisk)) | \(mb(statsAfter.recordBytes)) | \(statsAfter.distinctBodies) |")
    print("")
    print("- body bytes as received: \(mb(statsBefore.bodyBytes)); stored once by digest saved \(mb(statsBefore.bodyBytesSaved)) before compaction")
    print("- appended in \(String(format: "%.1f", writeTime)) s (\(Int(Double(appended) / writeTime)) events/s, commits of 2,000)")
    print("- plan: \(String(format: "%.2f", planTime)) s for \(plan.eventsRead) events (\(plan.bodiesRead) bodies, each distinct one decoded once); raw liblmdb cursor pass over the same \(rawScanned) records: \(String(format: "%.3f", rawScan)) s")
    print("- compact: \(done.events) bodies dropped (\(mb(done.bodyBytesDropped)) as received) in \(String(format: "%.2f", compactTime)) s = \(Int(Double(done.events) / compactTime)) events/s, \(mb(Int(Double(done.bodyBytesDropped) / compactTime)))/s; \(done.bodiesRemoved) bodies stored apart removed; freed \(mb(done.freedBytes)) inside the file")
    print("- rewrite (mdb_env_copy2 MDB_CP_COMPACT, fsync, check, rename): \(String(format: "%.2f", rewriteTime)) s, \(mb(rewritten.bytesBefore)) → \(mb(rewritten.bytesAfter))")
    print("- replay of the whole log to the head: \(String(format: "%.2f", replayBefore)) s before, \(String(format: "%.2f", replayAfter)) s after")
    print("- head `export all` SHA-256 before / after compaction / after rewrite: \(headBefore.prefix(16))… / \(headAfter.prefix(16))… / \(headRewritten.prefix(16))… — \(headBefore == headAfter && headAfter == headRewritten ? "identical" : "DIFFERENT")")
    print("- log verify after the rewrite: \(healthy ? "ok" : "FAILED")")
    try? FileManager.default.removeItem(atPath: path)
    if headBefore != headAfter || headAfter != headRewritten || !healthy { exit(1) }
}
