// fetchlog-bench: Fetchlog's event log beside the raw liblmdb ceiling, same run,
// same machine, same record sizes. Build and run in release:
//
//     swift run -c release fetchlog-bench [--quick]   (--decode, --views: the view-layer sets;
//                                                     --manifests: a manifest vs dlt, search vs SQLite,
//                                                       an incremental refetch vs dlt's (alone: --manifests --incremental);
//                                                     --year: a year of revalidations, compaction;
//                                                     --replication: JetStream seeding and catch-up vs raw nats.c;
//                                                     --writes: offline writes, visible at once and pushed vs AsyncHTTPClient;
//                                                     --scale: censuses of 1.3k to 1.3M gnomes vs SQLite and jq, logs to 1M events;
//                                                     --serve: GET /api/views/NAME vs a bare Hummingbird handler, 100 SSE clients;
//                                                     --sync: requests and wake-ups of `sync` over a simulated day vs the minimum)
//
// Every "raw" figure calls liblmdb's C API directly with a pre-built record of the
// exact size Fetchlog stores, so the ratio is the price of the engine's own work
// (envelope encoding, CRC-32C, the writer-thread hand-off, decoding on read).
import CLMDB
import CFetchlogSupport
import FetchlogCore
import FetchlogSources
import FetchlogLMDB
import Foundation

let quick = CommandLine.arguments.contains("--quick")
if let at = CommandLine.arguments.firstIndex(of: "--profile-decode"), at + 2 < CommandLine.arguments.count {
    // For `perf record`: decode one body in a loop for about three seconds.
    // fetchlog-bench --profile-decode brastlewark/census.json brastlewark.census
    let body = [UInt8](try! Data(contentsOf: URL(fileURLWithPath: "Tools/SampleUpstream/Sources/SampleUpstream/Fixtures/" + CommandLine.arguments[at + 1])))
    guard let kind = DocumentKind.seedKinds.first(where: { $0.rawValue == CommandLine.arguments[at + 2] }) else {
        fatalError("--profile-decode FIXTURE KIND: KIND is one of \(DocumentKind.seedKinds.map(\.rawValue).joined(separator: ", "))")
    }
    let end = DispatchTime.now().uptimeNanoseconds + 3_000_000_000
    while DispatchTime.now().uptimeNanoseconds < end { _ = try! SeedSources.decode(kind, body: body) }
    exit(0)
}
if CommandLine.arguments.contains("--decode") {
    runDecodeBenchmarks(quick: quick)
    exit(0)
}
if CommandLine.arguments.contains("--manifests") {
    await runManifestBenchmarks(quick: quick)
    removeBenchTemporaries()
    exit(0)
}
if CommandLine.arguments.contains("--writes") {
    await runWritesBenchmark(quick: quick)
    removeBenchTemporaries()
    exit(0)
}
if CommandLine.arguments.contains("--replication") {
    runReplicationBenchmark(quick: quick)
    removeBenchTemporaries()
    exit(0)
}
if let at = CommandLine.arguments.firstIndex(of: "--scale-open"), at + 1 < CommandLine.arguments.count {
    runScaleOpen(CommandLine.arguments[at + 1])
    exit(0)
}
if CommandLine.arguments.contains("--scale") {
    await runScaleBenchmark(quick: quick)
    removeBenchTemporaries()
    exit(0)
}
if CommandLine.arguments.contains("--year") {
    runYearBenchmark(quick: quick)
    exit(0)
}
if let at = CommandLine.arguments.firstIndex(of: "--padded-log"), CommandLine.arguments.count > at + 2, let count = Int(CommandLine.arguments[at + 1]) {
    try writePaddedLogExport(count: count, to: CommandLine.arguments[at + 2])
    exit(0)
}
if CommandLine.arguments.contains("--serve") {
    await runServeBenchmark(quick: quick)
    removeBenchTemporaries()
    exit(0)
}
if CommandLine.arguments.contains("--sync") {
    await runSyncBenchmark()
    exit(0)
}
if CommandLine.arguments.contains("--sql") {
    if !CommandLine.arguments.contains("--shell-only") { await runSQLBenchmarks(quick: quick) }
    await runSQLShellBenchmarks(quick: quick)
    removeBenchTemporaries()
    exit(0)
}
if CommandLine.arguments.contains("--views") {
    runViewBenchmarks(quick: quick)
    removeBenchTemporaries()
    exit(0)
}
let bodySize = 4096

func tempDir(_ name: String) -> String {
    let path = NSTemporaryDirectory() + "fetchlog-bench-\(name)-\(getpid())"
    try? FileManager.default.removeItem(atPath: path)
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// `store.saveCheckpoint()` from synchronous bench code.
func saveCheckpointBlocking(_ store: Store) {
    let saved = DispatchSemaphore(value: 0)
    Task { try! await store.saveCheckpoint(); saved.signal() }
    saved.wait()
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let rounds = quick ? 1 : 5

/// Runs raw and ours alternately `rounds` times (fresh directories each time, order
/// swapped every round so neither side always follows the other's disk flush) and
/// returns the median of each.
func paired(_ raw: () -> Double, _ ours: () -> Double) -> (raw: Double, ours: Double) {
    var r: [Double] = [], o: [Double] = []
    for round in 0 ..< rounds {
        if round % 2 == 0 { r.append(raw()); o.append(ours()) } else { o.append(ours()); r.append(raw()) }
        removeBenchTemporaries()
    }
    return (r.sorted()[r.count / 2], o.sorted()[o.count / 2])
}

/// Removes every temporary store and file the benchmarks made (`fetchlog-bench-…`).
func removeBenchTemporaries() {
    try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
        .filter { $0.hasPrefix("fetchlog-bench-") }
        .forEach { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + $0) }
}

/// Event `i` with `body` stamped with `i` in its first 8 bytes: every body differs, so the
/// store cannot keep one copy for many events (bodies are stored once, by digest) and the
/// comparison with raw liblmdb stays the worst case for Fetchlog.
func benchEvent(_ i: Int, body: [UInt8]) -> Event {
    var unique = body
    withUnsafeBytes(of: UInt64(i).bigEndian) { unique.replaceSubrange(0 ..< 8, with: $0) }
    return Event(recordedAt: Timestamp(milliseconds: 1_795_000_000_000 + Int64(i)), kind: .fetched, source: "bench",
                 label: "/item/\(i)", attempt: 1, durationMicros: 1000,
                 request: Event.Request(url: "http://127.0.0.1:8080/bench/item/\(i)"),
                 response: Event.Response(status: 200, headers: [Header("ETag", "\"\(i)\"")]), body: unique)
}

let body = TestPattern.bytes(count: bodySize, seed: 7)
let recordSize = EnvelopeCodec.encodedSize(of: benchEvent(100_000, body: body))

// MARK: Raw liblmdb

final class RawEnv {
    var env: OpaquePointer?
    var dbi: MDB_dbi = 0
    init(_ path: String, sync: Bool = true) {
        mdb_env_create(&env)
        mdb_env_set_mapsize(env, 8 << 30)
        mdb_env_set_maxdbs(env, 4)
        let flags = UInt32(MDB_NOTLS) | (sync ? 0 : UInt32(MDB_NOSYNC))
        precondition(mdb_env_open(env, path, flags, 0o644) == 0)
        var txn: OpaquePointer?
        mdb_txn_begin(env, nil, 0, &txn)
        precondition(mdb_dbi_open(txn, "events", UInt32(MDB_CREATE), &dbi) == 0)
        mdb_txn_commit(txn)
    }
    deinit { mdb_env_close(env) }

    /// `perTxn` records a transaction, each `recordSize` bytes, MDB_APPEND, durable commit.
    func append(total: Int, perTxn: Int, record: [UInt8]) {
        var seq: UInt64 = 1
        var rec = record
        var written = 0
        while written < total {
            var txn: OpaquePointer?
            precondition(mdb_txn_begin(env, nil, 0, &txn) == 0)
            for _ in 0 ..< min(perTxn, total - written) {
                var key = seq.bigEndian
                withUnsafeMutableBytes(of: &key) { k in
                    rec.withUnsafeMutableBytes { v in
                        var mk = MDB_val(mv_size: 8, mv_data: k.baseAddress)
                        var mv = MDB_val(mv_size: v.count, mv_data: v.baseAddress)
                        precondition(mdb_put(txn, dbi, &mk, &mv, UInt32(MDB_APPEND)) == 0)
                    }
                }
                seq += 1
                written += 1
            }
            precondition(mdb_txn_commit(txn) == 0)
        }
    }

    /// Walks every record and copies it out (readers copy what they need).
    func scan() -> Int {
        var txn: OpaquePointer?
        mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn)
        var cursor: OpaquePointer?
        mdb_cursor_open(txn, dbi, &cursor)
        var k = MDB_val(), v = MDB_val()
        var count = 0
        var sink = [UInt8](repeating: 0, count: 1 << 20)
        var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
        while rc == 0 {
            sink.withUnsafeMutableBytes { _ = memcpy($0.baseAddress!, v.mv_data, v.mv_size) }
            count += 1
            rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
        }
        mdb_cursor_close(cursor)
        mdb_txn_abort(txn)
        return count
    }
}

struct Row {
    let name: String
    let events: Int
    let ours: Double
    let raw: Double
    var oursRate: Double { Double(events) / ours }
    var rawRate: Double { Double(events) / raw }
    var ratio: Double { raw / ours }
}

var rows: [Row] = []

if CommandLine.arguments.contains("--profile-scan") {
    // For `perf record`: build one log, then scan it repeatedly.
    var options = EventLog.Options()
    options.initialMapSize = 8 << 30
    let log = try! EventLog.open(at: tempDir("profile"), options: options)
    for start in stride(from: 0, to: 30_000, by: 10_000) {
        try! log.appendBlocking(contentsOf: (start ..< start + 10_000).map { benchEvent($0, body: TestPattern.bytes(count: bodySize, seed: 7)) })
    }
    var count = 0
    let t = seconds { for _ in 0 ..< 20 { try! log.scan(batchSize: 1024) { _ in count += 1; return true } } }
    print("\(count) events decoded, \(Double(count) / t) events/s")
    exit(0)
}
let record = [UInt8](repeating: 0xAB, count: recordSize)

func openLog(_ path: String) -> EventLog {
    var options = EventLog.Options()
    options.initialMapSize = 8 << 30
    return try! EventLog.open(at: path, options: options)
}

// 1. Durable single-event append, one after another.
do {
    let n = quick ? 300 : 2000
    let events = (0 ..< n).map { benchEvent($0, body: body) }
    let (raw, ours) = paired({ seconds { RawEnv(tempDir("raw1")).append(total: n, perTxn: 1, record: record) } }, {
        let log = openLog(tempDir("ours1"))
        return seconds { for e in events { try! log.appendBlocking(contentsOf: [e]) } }
    })
    rows.append(Row(name: "durable single-event append", events: n, ours: ours, raw: raw))
}

// 2. Batched append, 100 and 10,000 events a transaction (4 KiB bodies), durable.
for perTxn in [100, 10_000] {
    let n = quick ? perTxn * 2 : (perTxn == 100 ? 30_000 : 30_000)
    let batches = stride(from: 0, to: n, by: perTxn).map { start in (start ..< min(n, start + perTxn)).map { benchEvent($0, body: body) } }
    let (raw, ours) = paired({ seconds { RawEnv(tempDir("raw\(perTxn)")).append(total: n, perTxn: perTxn, record: record) } }, {
        let log = openLog(tempDir("ours\(perTxn)"))
        return seconds { for batch in batches { try! log.appendBlocking(contentsOf: batch) } }
    })
    rows.append(Row(name: "batched append, \(perTxn) a transaction", events: n, ours: ours, raw: raw))
    if perTxn == 10_000 {
        let log = openLog(tempDir("oursscan"))
        for batch in batches { try! log.appendBlocking(contentsOf: batch) }
        // 3. Full scan of that log.
        let rawEnv = RawEnv(tempDir("rawscan"))
        rawEnv.append(total: n, perTxn: 10_000, record: record)
        var rawCount = 0
        let rawScan = seconds { rawCount = rawEnv.scan() }
        var count = 0
        let decoded = seconds { try! log.scan(batchSize: 1024) { _ in count += 1; return true } }
        precondition(count == n && rawCount == n)
        rows.append(Row(name: "full scan, decoded `Event` values (`scan`)", events: n, ours: decoded, raw: rawScan))
        var storedCount = 0
        let stored = seconds { try! log.scanStored(batchSize: 1024) { _ in storedCount += 1; return true } }
        precondition(storedCount == n)
        rows.append(Row(name: "full scan, verified copied-out records (`scanStored`)", events: n, ours: stored, raw: rawScan))
    }
}

// 4. Group commit: 16 tasks each appending single 4 KiB events durably.
let groupEvents = quick ? 1600 : 16_000
let log = openLog(tempDir("group"))
let groupSeconds: Double = await {
    let start = DispatchTime.now().uptimeNanoseconds
    await withTaskGroup(of: Void.self) { group in
        for task in 0 ..< 16 {
            group.addTask {
                for i in 0 ..< groupEvents / 16 { try! await log.append(benchEvent(task * 100_000 + i, body: body)) }
            }
        }
    }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}()
let stats = log.writerStatistics
let rawSingle = rows[0].rawRate

func fmt(_ v: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", v) }

print("fetchlog-bench — \(ProcessInfo.processInfo.processorCount) cores, record \(recordSize) B (4 KiB body), CRC32C hardware: \(fl_crc32c_is_hardware() == 1 ? "yes" : "no")")
print("")
print("| work | events | Fetchlog events/s | raw liblmdb events/s | ratio |")
print("|---|---:|---:|---:|---:|")
for row in rows {
    print("| \(row.name) | \(row.events) | \(fmt(row.oursRate)) | \(fmt(row.rawRate)) | \(fmt(row.ratio, 2))× |")
}
print("| group commit, 16 tasks × single durable appends | \(groupEvents) | \(fmt(Double(groupEvents) / groupSeconds)) | \(fmt(rawSingle)) (one commit each) | \(fmt(Double(groupEvents) / groupSeconds / rawSingle, 2))× |")
print("")
print("group commit: \(stats.commits) commits for \(stats.events) events (\(fmt(Double(stats.events) / Double(max(stats.commits, 1)), 1)) events a commit)")
