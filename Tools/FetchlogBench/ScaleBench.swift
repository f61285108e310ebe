import FetchlogCore
import FetchlogSources
import Foundation
import SampleUpstream
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `fetchlog-bench --scale`: the gnome census at 1×, 10×, 100× and 1000× the recording
/// (1,337 to 1,337,000 gnomes) fetched from the sample upstream into a new store; per size
/// the fetch, the open with and without a checkpoint, 400 of each query as the shell
/// answers them (`gnomes TEXT`, a filter, `friends ID`, `path A B`), resident memory; the
/// same questions answered in the same run by SQLite with indexed tables
/// (Tools/FetchlogBench/scale-peers.py) and by `jq` over the raw body. Then logs of 10k,
/// 100k and 1M events: replay and open times beside the counts of bodies and of final
/// bodies. Run from the repository root; `--quick` stops at 100×.
func runScaleBenchmark(quick: Bool) async {
    print("## Scale (\(ProcessInfo.processInfo.activeProcessorCount) cores, load \(loadAverage()))\n")
    var lines: [String] = []
    // `--copies N`: that size alone (for profiling).
    let only = CommandLine.arguments.firstIndex(of: "--copies").flatMap { Int(CommandLine.arguments[$0 + 1]) }
    // `--events`: the log table alone.
    if CommandLine.arguments.contains("--events") { return scaleEvents(quick: quick) }
    for copies in only.map({ [$0] }) ?? (quick ? [1, 10, 100] : [1, 10, 100, 1000]) {
        lines.append(await scaleCensus(copies: copies))
        FileHandle.standardError.write(Data((lines.last! + "\n").utf8))
    }
    print("| gnomes | body | fetch | open, checkpoint | open, no checkpoint | open store's heap (÷ body) | search p50/p99 µs (SQLite) | filter p50/p99 µs (SQLite) | friends p50/p99 µs (SQLite) | path p50/p99 µs (SQLite) | jq search / filter / friends ms | answers agree |")
    print("|---:|---:|---:|---:|---:|---:|---|---|---|---|---|---|")
    for line in lines { print(line) }
    if only == nil { scaleEvents(quick: quick) }
}

private func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}

/// Resident bytes now, anonymous (the heap) and file-backed (LMDB's map, the binary), from
/// /proc/self/status, after returning the allocator's free pages to the system (so what is
/// counted is what is live, not what a past peak left in malloc's arenas).
private func residentBytes() -> (anonymous: Int, file: Int) {
    releaseFreeMemory()
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func field(_ name: String) -> Int {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
    }
    return (field("RssAnon"), field("RssFile"))
}

/// Returns the allocator's free pages to the system (glibc's `malloc_trim`), so what is
/// measured next is live memory. glibc declares it in <malloc.h>, which Swift's Glibc
/// module leaves out: it is looked up by name. Elsewhere there is nothing to do (the
/// figures come from /proc, Linux's).
private func releaseFreeMemory() {
    #if canImport(Glibc)
    guard let program = dlopen(nil, RTLD_NOW), let symbol = dlsym(program, "malloc_trim") else { return }
    typealias MallocTrim = @convention(c) (Int) -> Int32
    _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    #endif
}

private func elapsed(_ start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

private func percentiles(_ micros: [Double]) -> (Double, Double) {
    let sorted = micros.sorted()
    return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
}

/// The questions, drawn from the census (deterministic): search texts, filters, gnome ids,
/// pairs of gnomes.
private func scaleQueries(_ rows: [GnomeRow], count: Int) -> (searches: [String], filters: [GnomeFilter], friends: [Int], paths: [(Int, Int)]) {
    var random = TestPattern.Generator(seed: 18)
    func any() -> GnomeRow { rows[Int.random(in: 0 ..< rows.count, using: &random)] }
    func piece(_ text: String, _ length: ClosedRange<Int>) -> String {
        let characters = Array(text)
        guard !characters.isEmpty else { return "" }
        let n = min(characters.count, Int.random(in: length, using: &random))
        let start = Int.random(in: 0 ... characters.count - n, using: &random)
        return String(characters[start ..< start + n])
    }
    var searches: [String] = [], filters: [GnomeFilter] = [], friends: [Int] = [], paths: [(Int, Int)] = []
    for n in 0 ..< count {
        // Mostly pieces of names (3 to 8 letters, the common search), some of professions
        // and hair colours, some one or two letters (dense answers), some that match nothing.
        switch n % 10 {
        case 0 ... 4: searches.append(piece(any().name, 3 ... 8))
        case 5, 6: searches.append(piece(([any().hairColor] + any().professions).randomElement(using: &random)!, 3 ... 6))
        case 7: searches.append(piece(any().name, 1 ... 2))
        case 8: searches.append(piece(any().name, 4 ... 6) + "q")
        default: searches.append(piece(any().name, 2 ... 4).uppercased())
        }
        var f = GnomeFilter()
        let a = any(), b = any()
        switch n % 4 {
        case 0:
            f.hairColor = a.hairColor.lowercased()
            f.ageMin = min(a.age, b.age)
            f.ageMax = max(a.age, b.age)
        case 1:
            f.profession = a.professions.first.map { String($0.prefix(5)) }
            f.weightMin = min(a.weight, b.weight)
        case 2:
            f.name = piece(a.name, 3 ... 5)
            f.friendsMin = 1
        default:
            f.hairColor = a.hairColor
            f.profession = b.professions.first
            f.heightMax = max(a.height, b.height)
        }
        filters.append(f)
        friends.append(any().id)
        // A pair from one town (copies are separate towns), now and then from two.
        let from = any()
        let town = from.id / 1337
        let other = n % 20 == 0 ? any().id : town * 1337 + Int.random(in: 0 ..< 1337, using: &random)
        paths.append((from.id, other))
    }
    return (searches, filters, friends, paths)
}

private func scaleCensus(copies: Int) async -> String {
    let gnomes = 1337 * copies
    var configuration = SampleUpstreamConfiguration()
    configuration.censusCopies = copies
    let body = SampleUpstream.scaledCensus(copies: copies)
    let upstream = try! SampleUpstream(configuration: configuration)
    let base = try! await upstream.start().absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    let directory = tempDir("scale-\(copies)")
    // Fetch: a new store, one fetch, the census held and indexed in the snapshot.
    var start = DispatchTime.now().uptimeNanoseconds
    var log = try! EventLog.open(at: directory)
    var fetchConfiguration = FetchConfiguration()
    fetchConfiguration.upstream = Upstream(base: base)
    fetchConfiguration.maxBodyBytes = 1 << 30 // the 1.3M census is 435 MB; the default refuses above 256 MiB
    let fetcher = Fetcher(sources: .seed, configuration: fetchConfiguration)
    var store = try! Store(log: log, sources: .seed, fetcher: fetcher)
    _ = try! await store.fetch(.brastlewarkCensus)
    precondition(GnomesView(state: store.snapshot.state).count == gnomes)
    let fetch = elapsed(start)
    await fetcher.shutdown()
    await upstream.stop()

    // Open without a checkpoint (replay), then with one.
    log.close()
    log = try! EventLog.open(at: directory)
    start = DispatchTime.now().uptimeNanoseconds
    store = try! Store(log: log, sources: .seed)
    let openReplay = elapsed(start)
    try! await store.saveCheckpoint()
    log.close()
    log = try! EventLog.open(at: directory)
    start = DispatchTime.now().uptimeNanoseconds
    store = try! Store(log: log, sources: .seed)
    let openCheckpoint = elapsed(start)
    precondition(GnomesView(state: store.snapshot.state).count == gnomes)

    // 400 of each question, as the shell answers them: the view from the snapshot, then
    // the first page of 20 and the count; the friends with names; the chain.
    let rows = GnomesView(state: store.snapshot.state).gnomes
    // 400 of each; 100 at 1.3M gnomes, where SQLite's dense searches take seconds each.
    let queries = scaleQueries(rows, count: copies >= 1000 ? 100 : 400)
    var times: [String: [Double]] = [:], answers: [String: [Int]] = [:]
    func measure(_ kind: String, _ answer: () -> Int) {
        let start = DispatchTime.now().uptimeNanoseconds
        let value = answer()
        times[kind, default: []].append(elapsed(start) * 1e6)
        answers[kind, default: []].append(value)
    }
    for text in queries.searches {
        measure("search") {
            let list = FiltersView(state: store.snapshot.state).selection(search: text)
            return list.prefix(20).map(\.name).count >= 0 ? list.count : -1
        }
    }
    for filter in queries.filters {
        measure("filter") {
            let list = GnomesView(state: store.snapshot.state).matching(filter)
            return list.prefix(20).map(\.name).count >= 0 ? list.count : -1
        }
    }
    for id in queries.friends {
        measure("friends") {
            let state = store.snapshot.state
            let gnomes = GnomesView(state: state)
            guard let entry = FriendsView(state: state).entry(id: id) else { return -1 }
            let names = (entry.friends + entry.listedBy).map { gnomes.gnome(id: $0)?.name ?? "?" }
            return names.count
        }
    }
    for (a, b) in queries.paths {
        measure("path") {
            let state = store.snapshot.state
            guard let chain = FriendsView(state: state).path(from: a, to: b) else { return -1 }
            let gnomes = GnomesView(state: state)
            return chain.map { gnomes.gnome(id: $0)?.name ?? "?" }.count - 1
        }
    }
    // A process of its own opens the store (checkpoint), answers queries, and says what it
    // holds: this process has had three stores and a fetch, whose freed memory muddles it.
    let opened = runTool([CommandLine.arguments[0], "--scale-open", directory])
    let held = (try? JSONValue.parse(bytes: Array(opened.out.utf8))) ?? .null
    let storeHeap = Double(held["heap"]?.intValue ?? 0), storeFile = Double(held["file"]?.intValue ?? 0)
    if ProcessInfo.processInfo.environment["SCALE_SLOWEST"] != nil {
        for kind in ["search", "filter"] {
            let slow = zip(times[kind]!, 0...).sorted { $0.0 > $1.0 }.prefix(8)
            print(kind, slow.map { kind == "search" ? "\(Int($0.0))µs '\(queries.searches[$0.1])' \(answers[kind]![$0.1])" : "\(Int($0.0))µs \(queries.filters[$0.1].json.canonicalText()) \(answers[kind]![$0.1])" })
        }
    }

    // The peers: SQLite (indexed tables, in memory) and jq over the body.
    let censusFile = NSTemporaryDirectory() + "fetchlog-bench-scale-census.json"
    let queriesFile = NSTemporaryDirectory() + "fetchlog-bench-scale-queries.json"
    try! body.write(to: URL(fileURLWithPath: censusFile))
    let queriesJSON: JSONValue = .object([
        ("searches", .array(queries.searches.map(JSONValue.string))),
        ("filters", .array(queries.filters.map(\.json))),
        ("friends", .array(queries.friends.map { .number($0) })),
        ("paths", .array(queries.paths.map { .array([.number($0.0), .number($0.1)]) })),
    ])
    try! Data(queriesJSON.canonicalText().utf8).write(to: URL(fileURLWithPath: queriesFile))
    let peer = runTool(["python3", "Tools/FetchlogBench/scale-peers.py", censusFile, queriesFile])
    let sqlite = (try? JSONValue.parse(bytes: Array(peer.out.utf8))) ?? .null
    if sqlite == .null { print("scale-peers.py failed: \(peer.err)") }
    var cells: [String] = []
    var agree: [String] = []
    for kind in ["search", "filter", "friends", "path"] {
        let (p50, p99) = percentiles(times[kind]!)
        let s50 = sqlite[kind]?["p50_us"]?.doubleValue ?? .nan, s99 = sqlite[kind]?["p99_us"]?.doubleValue ?? .nan
        cells.append(String(format: "%.0f / %.0f (%.0f / %.0f)", p50, p99, s50, s99))
        let theirs = sqlite[kind]?["answers"]?.arrayValue?.compactMap(\.intValue) ?? []
        let differing = zip(theirs, answers[kind]!).filter { $0 != $1 }.count + abs(theirs.count - answers[kind]!.count)
        if differing > 0 { agree.append("\(kind): \(differing) differ") }
    }
    // jq answers one question per process over the whole body: three of each kind, median.
    let jqRuns = copies >= 1000 ? 1 : 3
    func jq(_ arguments: [String]) -> Double {
        var spent: [Double] = []
        for _ in 0 ..< jqRuns {
            let start = DispatchTime.now().uptimeNanoseconds
            let result = runTool(["jq"] + arguments + [censusFile])
            precondition(result.status == 0, result.err)
            spent.append(elapsed(start) * 1000)
        }
        return spent.sorted()[spent.count / 2]
    }
    let text = queries.searches[0].lowercased()
    let jqSearch = jq(["--arg", "t", text, "[.Brastlewark[] | select((.name|ascii_downcase|contains($t)) or (.hair_color|ascii_downcase|contains($t)) or any(.professions[]; ascii_downcase|contains($t)))] | length"])
    let jqFilter = jq(["--arg", "h", "pink", "--argjson", "lo", "100", "--argjson", "hi", "200",
                       "[.Brastlewark[] | select((.hair_color|ascii_downcase|contains($h)) and .age >= $lo and .age <= $hi)] | length"])
    let jqFriends = jq(["--argjson", "id", String(queries.friends[0]), ".Brastlewark[] | select(.id == $id) | .friends | length"])
    log.close()
    removeBenchTemporaries()
    try? FileManager.default.removeItem(atPath: censusFile)
    let mb = Double(body.count) / 1e6
    return "| \(gnomes) | \(String(format: "%.1f", mb)) MB | \(String(format: "%.2f", fetch)) s | \(String(format: "%.2f", openCheckpoint)) s | \(String(format: "%.2f", openReplay)) s "
        + "| \(String(format: "%.0f MB (%.1f×) + %.0f MB mapped", storeHeap / 1e6, storeHeap / Double(body.count), storeFile / 1e6)) | " + cells.joined(separator: " | ")
        + " | \(String(format: "%.0f / %.0f / %.0f", jqSearch, jqFilter, jqFriends)) | \(agree.isEmpty ? "yes (\(queries.searches.count * 4) answers)" : agree.joined(separator: ", ")) |"
}

/// Logs of 10k, 100k and 1M events: each a new body of one of 100 resources (so all but
/// 100 bodies are superseded). Replay decodes only the final ones; open with a checkpoint
/// reads the checkpoint and an empty tail.
private func scaleEvents(quick: Bool) {
    print("\n### Replay and open as the log grows (100 resources, every event a new body)\n")
    print("| events | bodies in the log | final bodies | log on disk | replay (no checkpoint) | one pass over the headers | full replay (every body decoded) | open with a checkpoint |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    let directory = tempDir("scale-events")
    var options = EventLog.Options()
    options.initialMapSize = 1 << 30
    let log = try! EventLog.open(at: directory, options: options)
    var appended = 0
    for target in quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000] {
        while appended < target {
            let n = min(5_000, target - appended)
            try! log.appendBlocking(contentsOf: (0 ..< n).map { j in
                let i = appended + j
                let body = #"{"data":{"id":\#(i % 100),"title":"Agent \#(i % 100), version \#(i / 100)","birth_date":null,"death_date":null,"description":null}}"#
                return Event(recordedAt: Timestamp(milliseconds: Int64(i)), kind: .fetched, source: "artic",
                             label: "/api/v1/agents/\(i % 100)", response: Event.Response(status: 200), body: Array(body.utf8))
            })
            appended += n
        }
        var start = DispatchTime.now().uptimeNanoseconds
        let replayed = try! Store.replay(log, sources: .seed)
        let replay = elapsed(start)
        precondition(replayed.state.documents.count == 100)
        // The headers alone (what replay reads of every record) against the whole replay.
        start = DispatchTime.now().uptimeNanoseconds
        var headers = 0
        try! log.scanStored(batchSize: 1024) { _ in headers += 1; return true }
        let headerPass = elapsed(start)
        start = DispatchTime.now().uptimeNanoseconds
        let full = try! Store.fullReplay(log, sources: .seed)
        let fullReplay = elapsed(start)
        precondition(full == replayed.state && headers == target)
        let store = try! Store(log: log, sources: .seed)
        saveCheckpointBlocking(store)
        start = DispatchTime.now().uptimeNanoseconds
        _ = try! Store(log: log, sources: .seed)
        let open = elapsed(start)
        let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/data.mdb")[.size] as? Int) ?? 0
        print("| \(target) | \(target) | 100 | \(size / 1_000_000) MB | \(String(format: "%.0f", replay * 1000)) ms | \(String(format: "%.0f", headerPass * 1000)) ms | \(String(format: "%.0f", fullReplay * 1000)) ms | \(String(format: "%.1f", open * 1000)) ms |")
    }
    log.close()
    removeBenchTemporaries()
}

/// `fetchlog-bench --scale-open DIR`: opens the store in DIR (its checkpoint), answers a
/// search, a filter, a friends and a path question, and prints its heap and file-backed
/// resident growth as JSON.
func runScaleOpen(_ directory: String) {
    let before = residentBytes()
    let log = try! EventLog.open(at: directory)
    let store = try! Store(log: log, sources: .seed)
    let state = store.snapshot.state
    var filter = GnomeFilter()
    filter.hairColor = "pink"
    precondition(FiltersView(state: state).selection(search: "tob").count > 0)
    _ = GnomesView(state: state).matching(filter).count
    _ = FriendsView(state: state).entry(id: 0)
    _ = FriendsView(state: state).path(from: 0, to: 237)
    let after = residentBytes()
    print(JSONValue.object([("heap", .number(after.anonymous - before.anonymous)), ("file", .number(after.file - before.file))]).canonicalText())
    withExtendedLifetime(store) {}
    log.close()
}

/// Runs a tool to the end: exit status, standard output, standard error.
func runTool(_ arguments: [String]) -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try! process.run()
    // Standard error read on the side, so neither pipe fills while the other is read.
    let errors = LockedData()
    let reader = Thread { errors.set(err.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !errors.done { usleep(1000) }
    return (process.terminationStatus, String(decoding: data, as: UTF8.self), String(decoding: errors.data, as: UTF8.self))
}

final class LockedData: Sendable {
    private let value = Mutex<Data?>(nil)
    func set(_ data: Data) { value.withLock { $0 = data } }
    var done: Bool { value.withLock { $0 != nil } }
    var data: Data { value.withLock { $0 ?? Data() } }
}
