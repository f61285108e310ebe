import FetchlogCore
import Foundation
import SampleUpstream
#if canImport(Glibc)
import Glibc
#endif

/// `fetchlog-bench --sql` (issue 35): one-shot processes at the 100× census (133,700 gnomes
/// through the census manifest, `docs/manifests/census.json`, and the same town through the
/// seed source), each timed from outside as a whole process (wall seconds and peak resident
/// memory, by `wait4`), alternating with its peer in one run so a drifting machine moves both:
/// - a group-by from a cold `fetchlog sql` (the read model current) beside `sqlite3 FILE` on a
///   database file holding the same rows, and beside DuckDB (Python's `duckdb`) reading the
///   exported JSON; the same one-shot when the read model must be written first (absent);
/// - a search: `sql … LIKE`, and `items census gnomes TEXT` from the read model, when it must
///   be written, and `--confirmed` (which folds the store), beside `sqlite3`;
/// - the seed source's `gnomes TEXT` (from the read model's copy of the census, and when the
///   copy must be written) and `status` (a checkpoint restores the bodies undecoded).
/// Needs `sqlite3` (Debian's sqlite3), GNU time (Debian's time) and Python's `duckdb` (installed with `dlt[duckdb]`).
/// Run from the repository root, release-built: `swift run -c release fetchlog-bench --sql`.
func runSQLBenchmarks(quick: Bool) async {
    let copies = quick ? 10 : 100
    let runs = quick ? 3 : 7
    var configuration = SampleUpstreamConfiguration()
    configuration.censusCopies = copies
    let upstream = try! SampleUpstream(configuration: configuration)
    let base = try! await upstream.start().absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    let fetchlog = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("fetchlog").path
    let store = tempDir("sql-\(copies)")
    try? FileManager.default.removeItem(atPath: store)
    func must(_ arguments: [String]) -> String {
        let (status, out, err) = runTool(arguments)
        guard status == 0 else { fatalError("\(arguments.joined(separator: " ")): \(err)") }
        return out
    }
    _ = must([fetchlog, "--store", store, "--upstream", base, "source", "add", "docs/manifests/census.json"])
    _ = must([fetchlog, "--store", store, "--upstream", base, "fetch", "census", "gnomes"])
    // The same town through the seed source too (its `gnomes` command).
    _ = must([fetchlog, "--store", store, "--upstream", base, "fetch", "brastlewark", "census"])
    await upstream.stop()
    // Held twice: through the census manifest and through the seed source.
    let held = 2 * SampleUpstream.scaledCensus(copies: copies).count

    // The peers' data: the export's items as a table in a database file (sqlite3) and as
    // JSON lines (DuckDB), loaded once, before anything is timed.
    let export = tempDir("sql-export")
    let itemsFile = export + "/gnomes.ndjson", databaseFile = export + "/gnomes.db"
    let exported = must([fetchlog, "--store", store, "export", "items/census/gnomes"])
    let items = (try! JSONValue.parse(exported))["items"]!.arrayValue!
    try! Data(items.map { $0.canonicalText() + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: itemsFile))
    _ = must(["python3", "-c", """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[2])
        rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
        cols = list(rows[0].keys())
        db.execute("CREATE TABLE gnomes (%s)" % ", ".join('"%s"' % c for c in cols))
        def v(x): return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False) if isinstance(x, (list, dict)) else x
        db.executemany("INSERT INTO gnomes VALUES (%s)" % ",".join("?" * len(cols)), ([v(r.get(c)) for c in cols] for r in rows))
        db.commit()
        """, itemsFile, databaseFile])

    let groupBy = "SELECT hair_color, count(*) AS n, round(avg(age), 2) AS age FROM census.gnomes GROUP BY hair_color ORDER BY n DESC"
    let peerGroupBy = groupBy.replacingOccurrences(of: "census.gnomes", with: "gnomes")
    let like = "SELECT count(*) FROM census.gnomes WHERE name LIKE '%tob%'"
    let ours = [fetchlog, "--store", store, "--format", "csv", "sql", groupBy]
    let sqlite = ["sqlite3", "-csv", "-header", databaseFile, peerGroupBy]
    let duck = ["python3", "-c", "import duckdb, sys; print(duckdb.sql(sys.argv[2].replace('FROM gnomes', \"FROM read_json('%s')\" % sys.argv[1])).fetchall())",
                itemsFile, peerGroupBy]
    // The answers agree before anything is timed.
    _ = must(ours) // writes the read model
    let answer = must(ours), peerAnswer = must(sqlite)
    let agree = answer.replacingOccurrences(of: "\r", with: "") == peerAnswer.replacingOccurrences(of: "\r", with: "")

    print("## SQL one-shots at the \(copies)× census: \(items.count) gnomes, \(ByteText.describe(held)) of JSON held (\(ProcessInfo.processInfo.activeProcessorCount) cores, load \(loadAverageText()))\n")
    print("Each a whole process, median of \(runs) after one warm-up, alternating with its peer; memory is the peak resident set.\n")
    print("| one-shot | Fetchlog | peer | ratio (median of pairs) | Fetchlog peak memory (÷ held JSON) | peer peak memory |")
    print("|---|---:|---:|---:|---:|---:|")
    func row(_ label: String, _ a: [String], _ b: [String], peer: String, before: (() -> Void)? = nil) {
        let pairs = alternate(a, b, runs: runs, before: before)
        let ratios = pairs.map { $0.a.seconds / $0.b.seconds }.sorted()
        let aTime = median(pairs.map(\.a.seconds)), bTime = median(pairs.map(\.b.seconds))
        let aMemory = pairs.map(\.a.peakBytes).max()!, bMemory = pairs.map(\.b.peakBytes).max()!
        print("| \(label) | \(String(format: "%.3f s", aTime)) | \(peer) \(String(format: "%.3f s", bTime)) | \(String(format: "%.2f×", ratios[ratios.count / 2])) | \(ByteText.describe(aMemory)) (\(String(format: "%.2f", Double(aMemory) / Double(held)))) | \(ByteText.describe(bMemory)) |")
    }
    row("`sql` group-by, read model current", ours, sqlite, peer: "sqlite3 FILE")
    row("`sql` group-by, read model current", ours, duck, peer: "DuckDB over the JSON")
    row("`sql` LIKE '%tob%', read model current", [fetchlog, "--store", store, "--format", "csv", "sql", like],
        ["sqlite3", databaseFile, like.replacingOccurrences(of: "census.gnomes", with: "gnomes")], peer: "sqlite3 FILE")
    row("`sql` group-by, read model absent (written)", ours, sqlite, peer: "sqlite3 FILE") {
        try? FileManager.default.removeItem(atPath: store + "/sql")
    }
    let itemsSearch = [fetchlog, "--store", store, "--format", "csv", "items", "census", "gnomes", "tob"]
    let peerSearch = ["sqlite3", databaseFile, "SELECT * FROM gnomes WHERE name LIKE '%tob%' LIMIT 20"]
    // The issue's yardstick for a one-shot search is sqlite3's one-shot group-by on the same rows.
    row("`items census gnomes tob`, read model current", itemsSearch, sqlite, peer: "sqlite3 FILE group-by")
    row("`items census gnomes tob`, read model current", itemsSearch, peerSearch, peer: "sqlite3 FILE LIKE … LIMIT 20")
    row("`items census gnomes tob`, read model absent (folds, writes it)", itemsSearch, peerSearch, peer: "sqlite3 FILE") {
        try? FileManager.default.removeItem(atPath: store + "/sql")
    }
    row("`items census gnomes tob --confirmed` (folds the store)", itemsSearch + ["--confirmed"], peerSearch, peer: "sqlite3 FILE")
    let gnomesSearch = [fetchlog, "--store", store, "--format", "csv", "query", "gnomes tob"]
    row("`query \"gnomes tob\"` (the seed source's command), read model current: its copy of the census", gnomesSearch, sqlite, peer: "sqlite3 FILE group-by")
    row("`query \"gnomes tob\"`, the census's copy absent (folds the census, writes the read model)", gnomesSearch, sqlite, peer: "sqlite3 FILE group-by") {
        try? FileManager.default.removeItem(atPath: store + "/sql")
    }
    row("`status` (checkpoint: no body decoded)", [fetchlog, "--store", store, "--format", "csv", "status"],
        ["sqlite3", databaseFile, peerGroupBy], peer: "sqlite3 FILE")
    print("\nAnswers agree (group-by, Fetchlog vs sqlite3): \(agree ? "yes" : "NO")\n")
    try? FileManager.default.removeItem(atPath: store)
    try? FileManager.default.removeItem(atPath: export)
}

private func loadAverageText() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}

private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// One finished process: its wall time and peak resident memory.
private struct Measured {
    let seconds: Double
    let peakBytes: Int
}

/// `a` and `b` in turn, `runs` pairs after one warm-up pair; `before` runs ahead of each `a`.
private func alternate(_ a: [String], _ b: [String], runs: Int, before: (() -> Void)?) -> [(a: Measured, b: Measured)] {
    var pairs: [(a: Measured, b: Measured)] = []
    for round in 0 ... runs {
        before?()
        let first = measure(a)
        let second = measure(b)
        if round > 0 { pairs.append((first, second)) }
    }
    return pairs
}

/// Runs `arguments` (found on PATH) with stdout and stderr to /dev/null: its wall time, and its
/// peak memory as GNU time (`/usr/bin/time`, Debian's `time`) reports it. Not `wait4`'s own
/// figure: a child spawned from this process starts its accounting from this process's peak
/// (Linux carries the old address space's high-water mark across exec), which would charge
/// every command the bench's own memory; time's small process does not.
private func measure(_ arguments: [String]) -> Measured {
    let report = NSTemporaryDirectory() + "fetchlog-bench-peak-\(getpid())"
    let command = ["/usr/bin/time", "-f", "%M", "-o", report] + arguments
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var pid: pid_t = 0
    let argv = command.map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    let start = DispatchTime.now().uptimeNanoseconds
    guard posix_spawnp(&pid, command[0], &actions, nil, argv, environ) == 0 else { fatalError("cannot start \(command[0]) (Debian: apt install time)") }
    var status: Int32 = 0
    _ = waitpid(pid, &status, 0)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
    let kilobytes = text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
    return Measured(seconds: seconds, peakBytes: kilobytes * 1024)
}
