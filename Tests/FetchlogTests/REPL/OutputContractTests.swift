import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources
@testable import fetchlog

/// One output contract for every command (issue 12, items 4 and 7): `--format json` puts
/// exactly one JSON document on stdout for every shell command, piped tables are never cut,
/// and the same command line means the same thing in the shell, in `query` and as a
/// subcommand (item 8).
@Suite(.serialized) struct OutputContractTests {
    static let poster = "https://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg"

    /// A demo store plus a running sample upstream for the commands that fetch.
    struct Rig {
        let dir: TemporaryDirectory
        let store: String
        let upstream: SampleUpstream
        let base: String

        static func start(_ name: String) async throws -> Rig {
            let dir = TemporaryDirectory(name)
            let store = dir.sub("demo")
            let demo = try await runDemoScript([], store: store)
            #expect(demo.status == 0, "\(demo.stderr)")
            let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
            let base = try await upstream.start().absoluteString
            return Rig(dir: dir, store: store, upstream: upstream, base: base)
        }

        func query(_ line: String, _ extra: [String] = [], environment: [String: String] = [:]) async throws -> CommandResult {
            try await runFetchlog(["--store", store, "--upstream", base] + extra + ["query", line],
                                  environment: demoEnvironment.merging(environment) { $1 })
        }

        func stop() async { await upstream.stop() }
    }

    /// Every shell command, each in each of its forms, as one line (with what must be run first).
    static func everyCommandLine(file: String) -> [String] {
        [
            "help", "help shows", "help .mode", "sources",
            "fetch brastlewark census", "fetch asset \(poster)",
            "shows", "shows --page 2 --genre drama", "show 1", "episodes 1",
            "search shows girls", "search podcasts فنجان",
            "gnomes", "gnomes --limit 5 --page 2 tinker", "gnome 0", "gnome Tobus Quickwhistle",
            "filter show", "filter set hair_color=pink profession=tinker", "filter set age=100-", "filter reset",
            "friends 0", "path 0 237", "pages", "page /ios-se", "sections", "home",
            "artworks", "artwork 4", "artist 2",
            "asset show \(poster)", "asset save \(poster) \(file).jpg",
            "status", "log tail 3", "log tail -n 2", "log show 1", "log stats", "log verify", "source list",
            "source add \(Repo.root)/docs/manifests/census.json", "fetch census gnomes", "items census gnomes tinker --limit 3",
            "item census gnomes 0", "pending", "push", "facets census gnomes", "links census gnomes 0", "path census gnomes 0 237",
            "log export --out \(file).ndjson", "replay", "replay --to 3", "replay --verify",
            "export filters", "export show/1 --at 4", "export status --out \(file).json",
            "at 1 shows", "diff 1 2 status",
            // SQL (issue 35): as typed, at a seq, through `sql`, and the dot commands.
            "SELECT hairColor, count(*) AS n FROM gnomes GROUP BY 1", "at 1 SELECT count(*) AS n FROM events;",
            "sql SELECT name FROM gnomes LIMIT 2", "sql --tables", "sql --schema gnomes", ".tables", ".schema gnomes",
            ".mode", "quit",
        ]
    }

    @Test func everyShellCommandPrintsOneJSONDocumentUnderFormatJSON() async throws {
        let rig = try await Rig.start("contract-json")
        defer { Task { await rig.stop() } }
        let file = rig.dir.sub("out")
        let lines = Self.everyCommandLine(file: file)
        // Every command of the table (and every dot command) is among them.
        let named = Set(lines.map { String($0.split(separator: " ")[0]) })
        for spec in CommandTableNames.all { #expect(named.contains(spec), "no line runs \(spec)") }
        for line in lines {
            let result = try await rig.query(line, ["--format", "json"])
            #expect(result.status == 0, "\(line): \(result.stderr)")
            if line == "quit" {
                #expect(result.stdout == "")
                continue
            }
            #expect(result.stdout.hasSuffix("\n") && result.stdout.dropLast().contains("\n") == false, "\(line): one line of JSON: \(result.stdout.prefix(300))")
            #expect((try? JSONValue.parse(result.stdout)) != nil, "\(line): not JSON: \(result.stdout.prefix(300))")
        }
        // And under ndjson every line is a JSON value of its own.
        for line in ["status", "log tail 3", "fetch brastlewark census", "gnomes --limit 3 tinker", "replay"] {
            let result = try await rig.query(line, ["--format", "ndjson"])
            #expect(result.status == 0, "\(line): \(result.stderr)")
            let rows = result.stdout.split(separator: "\n")
            #expect(!rows.isEmpty, "\(line)")
            for row in rows { #expect((try? JSONValue.parse(String(row))) != nil, "\(line): \(row)") }
        }
    }

    /// The same answers, whatever door: `fetchlog status --format json` and the shell's
    /// `status` give one shape (before: three); `log stats` and `status` take --format.
    @Test func commandLineAndShellShareOneShapeAndGrammar() async throws {
        let rig = try await Rig.start("contract-grammar")
        defer { Task { await rig.stop() } }
        let env = demoEnvironment
        func cli(_ args: [String]) async throws -> CommandResult {
            try await runFetchlog(["--store", rig.store] + args, environment: env)
        }
        let status = try await cli(["status", "--format", "json"])
        let shellStatus = try await rig.query("status", ["--format", "json", "--offline"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout == shellStatus.stdout)
        let rows = try JSONValue.parse(status.stdout).arrayValue ?? []
        #expect(rows.count == 8)
        #expect(rows.first?["resource"] == .string("artic/api/v1/artworks?page=1&limit=12"))
        // The old --json spelling still means --format json.
        #expect(try await cli(["status", "--json"]).stdout == status.stdout)
        let stats = try await cli(["log", "stats", "--format", "json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(try JSONValue.parse(stats.stdout)["events"] == .number(8))

        // log tail N and log tail -n N, on the command line and in the shell: one answer.
        let tails = [try await cli(["log", "tail", "2"]), try await cli(["log", "tail", "-n", "2"]),
                     try await rig.query("log tail 2", ["--offline"]), try await rig.query("log tail -n 2", ["--offline"])]
        for tail in tails { #expect(tail.status == 0 && tail.stdout == tails[0].stdout, "\(tail.stderr)") }
        #expect(tails[0].stdout.split(separator: "\n").map { $0.prefix(4) } == ["seq ", "─── ", "7   ", "8   "])
        // replay --to and export --at work in the shell as on the command line.
        #expect(try await rig.query("replay --to 3", ["--offline"]).stdout == (try await cli(["replay", "--to", "3"])).stdout)
        let at = try await cli(["export", "shows", "--at", "1"])
        #expect(at.status == 0)
        #expect(try await rig.query("export shows --at 1", ["--offline"]).stdout == at.stdout)
        #expect(try JSONValue.parse(at.stdout)["count"] == .number(240))

        // Unknown flags and words are errors with the command's own usage, never ignored.
        let cases: [(String, String)] = [
            ("log tail --bogus", "usage: log tail [N] (or -n N)"),
            ("log tial", "error: log has no 'tial' (did you mean 'tail'?)"),
            ("shows --pgae 2", "error: unknown option --pgae (did you mean '--page'?)\nusage: shows [--page N] [--genre G]"),
            ("sources extra", "error: unexpected 'extra'\nusage: sources"),
            ("status now", "usage: status"),
            ("replay --to", "usage: replay [--to SEQ] [--verify] [--diff]"),
            ("export", "usage: export VIEW [--at SEQ] [--out FILE]"),
            ("filter set", "usage: filter set FIELD=VALUE…"),
            (".mode xml", "error: .mode takes table, json, ndjson, line or csv, not 'xml'"),
        ]
        for (line, message) in cases {
            let result = try await rig.query(line, ["--offline"])
            #expect(result.status == 64, "\(line): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(line): \(result.stderr)")
            #expect(result.stdout == "", "\(line)")
        }
        let querry = try await cli(["querry", "shows"])
        #expect(querry.status == 64)
        #expect(querry.stderr == "fetchlog: unknown command 'querry' (did you mean 'query'?); fetchlog --help lists them\n")
    }

    /// Piped or redirected output is complete: no cell cut with "…", however narrow $COLUMNS.
    @Test func pipedListingsAreNeverCut() async throws {
        let rig = try await Rig.start("contract-pipe")
        defer { Task { await rig.stop() } }
        let listings = ["sources", "shows", "gnomes", "status", "log tail 8", "replay", "sections", "home", "artworks", "pages",
                        "episodes 1", "search shows girls", "friends 0", "help", "log stats", "show 1", "filter show"]
        for line in listings {
            let narrow = try await rig.query(line, [], environment: ["COLUMNS": "40"])
            let wide = try await rig.query(line, [], environment: ["COLUMNS": "400"])
            #expect(narrow.status == 0, "\(line): \(narrow.stderr)")
            // Width plays no part off a terminal, and no cell ends cut ("…" before a column gap
            // or the line's end; "…" inside a value, as in "seq 1…8", is the value's own).
            #expect(narrow.stdout == wide.stdout, "\(line)")
            #expect(narrow.stdout.range(of: "…(  |\n)", options: .regularExpression) == nil, "\(line) was cut:\n\(narrow.stdout.prefix(400))")
        }
        let sources = try await rig.query("sources", ["--offline"], environment: ["COLUMNS": "40"])
        #expect(sources.stdout.contains("https://raw.githubusercontent.com/rrafols/mobile_test/master"))
        // On a terminal the same table is fitted to the width.
        var renderer = Renderer()
        renderer.width = 30
        renderer.fitsWidth = true
        let fitted = renderer.render(.table(columns: ["a", "b"], rows: [["x", String(repeating: "y", count: 60)]], records: []))
        #expect(fitted.split(separator: "\n").allSatisfy { $0.count <= 30 })
        #expect(fitted.contains("…"))
        renderer.fitsWidth = false
        #expect(!renderer.render(.table(columns: ["a", "b"], rows: [["x", String(repeating: "y", count: 60)]], records: [])).contains("…"))
    }

    /// CSV is RFC 4180: a header, quoted cells where needed, CRLF line ends.
    @Test func csvQuotesWhatNeedsIt() {
        var renderer = Renderer()
        renderer.mode = .csv
        let text = renderer.render(.table(columns: ["id", "name"], rows: [["1", "Tobus, \"the\" Quick"], ["2", "plain"]], records: []))
        #expect(text == "id,name\r\n1,\"Tobus, \"\"the\"\" Quick\"\r\n2,plain\r\n")
    }

    /// Inputs are checked before anything is written (item 9).
    @Test func badSettingsAreRefusedBeforeAStoreIsCreated() async throws {
        let dir = TemporaryDirectory("contract-settings")
        let store = dir.sub("never")
        let upstream = try await runFetchlog(["--store", store, "--upstream", "notaurl", "fetch", "brastlewark", "census"])
        #expect(upstream.status == 64)
        #expect(upstream.stderr.contains("--upstream takes an http(s) URL such as http://127.0.0.1:8080, not 'notaurl'"))
        let now = try await runFetchlog(["--store", store, "status"], environment: ["FETCHLOG_NOW": "yesterday"])
        #expect(now.status == 64)
        #expect(now.stderr == "fetchlog: FETCHLOG_NOW='yesterday' is not an ISO 8601 time (e.g. 2026-11-22T08:30:00Z); set it to one or unset it\n")
        let query = try await runFetchlog(["--store", store, "query", "shows"], environment: ["FETCHLOG_UPSTREAM": "ftp://x"])
        #expect(query.status == 64)
        #expect(query.stderr.contains("FETCHLOG_UPSTREAM takes an http(s) URL"))
        let level = try await runFetchlog(["--store", store, "status"], environment: ["FETCHLOG_LOG_LEVEL": "loud"])
        #expect(level.status == 64)
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    /// The gnome filter checks its values against the census and says what it did (item 9).
    @Test func filterSetChecksValuesAndSaysWhetherItMerged() async throws {
        let rig = try await Rig.start("contract-filter")
        defer { Task { await rig.stop() } }
        let purple = try await rig.query("filter set hair_color=purple", ["--offline"])
        #expect(purple.status == 1)
        #expect(purple.stderr == "error: no gnome has the hair colour 'purple'; the census has: Black, Gray, Green, Pink, Red\n")
        let backwards = try await rig.query("filter set age=200-100", ["--offline"])
        #expect(backwards.status == 64)
        #expect(backwards.stderr.hasPrefix("error: age=200-100: the minimum 200 is above the maximum 100; write age=100-200\n"))
        let first = try await rig.query("filter set hair_color=pink", ["--offline"])
        #expect(first.stdout == "filter set: hair_color=pink (285 gnomes) — new filter\n")
        let merged = try await rig.query("filter set profession=tinker", ["--offline"])
        #expect(merged.stdout == "filter set: hair_color=pink profession=tinker (38 gnomes) — merged with the active filter; kept hair_color=pink\n")
        let replaced = try await rig.query("filter set hair_color=red profession=tinker", ["--offline"])
        #expect(replaced.stdout == "filter set: hair_color=red profession=tinker (50 gnomes) — replaced the active filter; replaced hair_color=pink profession=tinker\n")
        // Nothing refused reached the log: 8 demo events + 3 filter intents.
        #expect(try EventLog.open(at: rig.store).lastSeq() == 11)
    }

    /// Paging tells the truth (item 10).
    @Test func pagingTellsTheTruth() async throws {
        let rig = try await Rig.start("contract-paging")
        defer { Task { await rig.stop() } }
        let far = try await rig.query("shows --page 999", ["--offline"])
        #expect(far.status == 1)
        #expect(far.stderr == "error: no page 999: 240 shows make 12 pages of 20\n")
        let gnomes = try await rig.query("gnomes", ["--offline"])
        #expect(gnomes.stdout.hasSuffix("page 1 of 67 · 1337 gnomes\n"))
        #expect(gnomes.stdout.split(separator: "\n").count == 2 + 20 + 1)
        let none = try await rig.query("gnomes zzzz", ["--offline"])
        #expect(none.status == 0)
        #expect(none.stdout.hasSuffix("no gnome's name, hair colour or profession contains 'zzzz'; 1337 gnomes in the census\n"))
        let genre = try await rig.query("shows --genre nosuch", ["--offline"])
        #expect(genre.stdout.contains("no held show has the genre 'nosuch' (genres held: Action, Adventure, Anime,"))
        // Show 2's images were never asked for: said so, with the fetch that brings them.
        let fetchShow = try await rig.query("fetch tvmaze show 2")
        #expect(fetchShow.status == 0, "\(fetchShow.stderr)")
        let show = try await rig.query("show 2", ["--offline"])
        #expect(show.stdout.contains("\nimage      - — not fetched yet (fetch tvmaze show 2 --with images)\n"), "\(show.stdout)")
        let assets = try await rig.query("fetch assets show 2")
        #expect(assets.status == 1)
        #expect(assets.stderr.contains("the image list of show 2 is not held: fetch tvmaze show 2 --with images"), "\(assets.stderr)")
    }

    @Test func progressBarSaysCountBytesRateAndTimeLeft() {
        let text = ProgressBar.text(done: 5, total: 20, bytes: 5 << 20, elapsed: 2, label: "tvmaze/shows?page=4")
        #expect(text == "█████···············  5/20 · 5.0 MiB · 2.5 MiB/s · 6s left  tvmaze/shows?page=4")
        #expect(ProgressBar.text(done: 3, total: nil, bytes: 0, elapsed: 1.5, label: "x") == "3 done · 2.0/s  x")
    }

    @Test func aLongQuerySaysHowLongItHasRunAndHowToStopIt() async throws {
        // The note's wording for a given count of seconds (formatting only; nothing is timed).
        #expect(RunningNote.text("running", seconds: 3.3) == "running · 3.3 s · Ctrl-C stops it")
        // Off a terminal the work runs as it is, its value and its error passed through.
        #expect(try await RunningNote.around("running", enabled: false) { 7 } == 7)
        await #expect(throws: CommandError.self) {
            try await RunningNote.around("running", enabled: false) { () async throws -> Int in throw CommandError.usage("no") }
        }
    }
}

/// Every command name the shell knows (the table's and the dot commands).
enum CommandTableNames {
    static var all: [String] {
        let source = (try? String(contentsOfFile: Repo.root + "/Sources/fetchlog/REPL/CommandTable.swift", encoding: .utf8)) ?? ""
        let regex = try! NSRegularExpression(pattern: #"ShellCommand\(name: "([^"]+)""#)
        let names = regex.matches(in: source, range: NSRange(source.startIndex..., in: source)).compactMap {
            Range($0.range(at: 1), in: source).map { String(source[$0]) }
        }
        return names + [".mode"]
    }
}

/// Readers find a list whatever `--limit` it was fetched with (issue 12, item 2).
@Suite struct ArtworksLimitTests {
    @Test func artworksFetchedWithLimitFourAreListed() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let dir = TemporaryDirectory("artworks-limit")
        let store = dir.sub("store")
        let env = ["FETCHLOG_NOW": "2026-11-22T09:00:00Z"]
        let fetch = try await runFetchlog(["--store", store, "--upstream", base, "fetch", "artic", "artworks", "--pages", "1-3", "--limit", "4"], environment: env)
        #expect(fetch.status == 0, "\(fetch.stderr)")
        let list = try await runFetchlog(["--store", store, "--offline", "--format", "json", "query", "artworks"], environment: env)
        #expect(list.status == 0, "\(list.stderr)")
        let ids = (try JSONValue.parse(list.stdout).arrayValue ?? []).compactMap { $0["id"]?.intValue }
        // The sample upstream's recorded artworks (ten), four a page: pages 1–3 hold them all.
        let served = try JSONValue.parse(bytes: try await FetchHarness.servedBytes(base: base, path: "/artic/api/v1/artworks?page=1&limit=12"))
        let expected = (served["data"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue }
        #expect(expected.count == 10)
        #expect(ids == expected)
        await upstream.stop()
    }
}

/// The command line says which pages stayed out of the log (issue 12, item 1), logs to
/// stderr only (item 12), and diffs by key (item 5).
@Suite(.serialized) struct CommandLineReportingTests {
    @Test func pagesPastTheDurableWindowAreSaidToBeSessionOnly() async throws {
        var configuration = SampleUpstreamConfiguration()
        configuration.tvmazePageSize = 222
        configuration.tvmazePages = 6
        let upstream = try SampleUpstream(configuration: configuration)
        let base = try await upstream.start().absoluteString
        let dir = TemporaryDirectory("cli-window")
        let store = dir.sub("store")
        let result = try await runFetchlog(["--store", store, "--upstream", base, "fetch", "tvmaze", "shows", "--pages", "all"],
                                           environment: ["FETCHLOG_NOW": "2026-11-22T09:00:00Z"])
        await upstream.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        // Pages 0–4 start at items 0, 222, 444, 666, 888 (page 4 straddles 1,000: kept whole);
        // page 5 starts at 1,110 and page 6 is the end of the list.
        #expect(lines.prefix(5).map { String($0.prefix(9)) } == ["  seq 1  ", "  seq 2  ", "  seq 3  ", "  seq 4  ", "  seq 5  "])
        #expect(lines[5].hasPrefix("  session  GET \(base)/tvmaze/shows?page=5  → 200 fetched"))
        #expect(lines[5].hasSuffix(" — kept for this session only: items from 1110 are past the durable window"))
        #expect(lines[6].hasPrefix("  session  GET \(base)/tvmaze/shows?page=6  → 404 end-of-list"))
        #expect(lines[7].hasPrefix("7 requests (200×6 404×1); 5 events appended (seq 1…5), 2 kept for this session only; "))
        #expect(try EventLog.open(at: store).lastSeq() == 5)
    }

    @Test func verbosityLogsToStderrAndStdoutKeepsTheRows() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let dir = TemporaryDirectory("cli-verbose")
        let store = dir.sub("store")
        let args = ["--store", store, "--upstream", base, "fetch", "brastlewark", "census", "--format", "json"]
        let verbose = try await runFetchlog(["-vv"] + args)
        let quiet = try await runFetchlog(args + ["--quiet"])
        let fromEnvironment = try await runFetchlog(args, environment: ["FETCHLOG_LOG_LEVEL": "debug"])
        await upstream.stop()
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.stderr.contains(" debug fetchlog.fetch: attempt=1 conditional=false resource=brastlewark/data.json"), "\(verbose.stderr)")
        #expect(fromEnvironment.stderr.contains(" debug fetchlog.fetch: attempt=1 conditional=true resource=brastlewark/data.json"), "\(fromEnvironment.stderr)")
        #expect(quiet.stderr == "")
        // stdout holds the attempt records alone, whatever the level.
        #expect(try JSONValue.parse(verbose.stdout).arrayValue?.first?["status"] == .number(200))
        #expect(try JSONValue.parse(quiet.stdout).arrayValue?.first?["status"] == .number(304))
    }

    @Test func diffNamesAnAddedResourceOnceByItsKey() async throws {
        let dir = TemporaryDirectory("cli-diff")
        let store = dir.sub("demo")
        #expect(try await runDemoScript([], store: store).status == 0)
        let result = try await runFetchlog(["--store", store, "--offline", "--format", "json", "query", "diff 1 2 status"], environment: demoEnvironment)
        #expect(result.status == 0, "\(result.stderr)")
        let changes = try JSONValue.parse(result.stdout).arrayValue ?? []
        #expect(changes.map { $0["change"] } == [.string("added"), .string("changed")])
        #expect(changes.map { $0["path"] } == [.string("/resources[tvmaze/shows/1]"), .string("/count")])
        #expect(changes[0]["after"]?["source"] == .string("tvmaze") && changes[0]["after"]?["path"] == .string("/shows/1"))
        #expect(changes[1]["before"] == .number(1) && changes[1]["after"] == .number(2))
    }
}

/// Names that differ only in case, through the shell (issue 12, item 3): exact first; an
/// ambiguous case-insensitive name is an error listing the candidates with their ids.
@Suite struct CaseTwinShellTests {
    @Test func gnomeFriendsAndPathTakeTheExactName() async throws {
        let dir = TemporaryDirectory("cli-twins")
        let store = dir.sub("store")
        let body = try GnomeLookupTests.twinCensusBody()
        let log = try EventLog.open(at: store)
        _ = try await log.append(Event(recordedAt: fixedTime, kind: .fetched, source: "brastlewark", label: "/data.json",
                                       request: Event.Request(url: "http://127.0.0.1:1/brastlewark/data.json"),
                                       response: Event.Response(status: 200, headers: []), body: body))
        log.close()
        func query(_ line: String) async throws -> CommandResult {
            try await runFetchlog(["--store", store, "--offline", "--format", "json", "query", line], environment: demoEnvironment)
        }
        #expect(try JSONValue.parse(try await query("gnome case twin").stdout)["id"] == .number(5004))
        #expect(try JSONValue.parse(try await query("gnome Case Twin").stdout)["id"] == .number(5003))
        let friends = try JSONValue.parse(try await query("friends case twin").stdout).arrayValue ?? []
        #expect(friends.map { $0["id"] } == [.number(1), .number(5003), .number(5005)])
        #expect(try JSONValue.parse(try await query("path \"Case Twin\" \"case twin\"").stdout)["path"]?.canonicalText() == "[5003,5004]")
        let ambiguous = try await query("friends CASE TWIN")
        #expect(ambiguous.status == 1)
        #expect(ambiguous.stderr == "error: 'CASE TWIN' names 2 gnomes that differ only in case: Case Twin (5003), case twin (5004); give the exact name or the id\n")
    }
}
