import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore

/// The page at `/` (issue 27) in a real browser, and `fetchlog demo --web`.
///
/// The browser half is Tests/Browser/page_test.py: selenium 4 driving Debian's chromium
/// headless through /usr/bin/chromedriver (CI installs both; a machine without them fails
/// here, saying what to install: the page is not tested by anything else). Every number it
/// checks is computed here from the CLI on the same store.
@Suite(.serialized) struct ServePageTests {
    static let script = Repo.root + "/Tests/Browser/page_test.py"

    /// `--format json` of a command on `store`, parsed.
    static func json(_ store: String, _ arguments: [String]) async throws -> JSONValue {
        let result = try await runFetchlog(["--store", store, "--format", "json"] + arguments, environment: demoEnvironment)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONValue.parse(bytes: Array(result.stdout.utf8))
    }

    /// The rows of a view's export as the page counts them: its longest top-level array.
    static func rows(_ export: JSONValue, _ member: String) throws -> [JSONValue] {
        try #require(export[member]?.arrayValue, "no \(member) in the export")
    }

    @Test func thePageShowsTheLogTheViewsAsOfAnySeqAndWhatArrivesLive() async throws {
        let dir = TemporaryDirectory("serve-page")
        let store = dir.sub("demo")
        let demo = try await runDemoScript([], store: store)
        #expect(demo.status == 0, "\(demo.stderr)")
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        func fetch(_ arguments: [String], upstream: String = base) async throws -> CommandResult {
            try await runFetchlog(["--store", store, "--upstream", upstream, "fetch"] + arguments + ["--retries", "0"], environment: demoEnvironment)
        }
        // A source from a manifest (an intent in the log, an items view with facets), a second
        // page of shows (the view grows), and a fetch that fails (nothing listens on port 1):
        // the timeline has a failure, freshness a failing resource.
        let added = try await runFetchlog(["--store", store, "source", "add", Repo.root + "/docs/manifests/census.json"], environment: demoEnvironment)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try await fetch(["census", "gnomes"]).status == 0)
        #expect(try await fetch(["tvmaze", "shows", "--pages", "1"]).status == 0)
        #expect(try await fetch(["brastlewark", "census"], upstream: "http://127.0.0.1:1").status == 1)

        let events = try #require(try await Self.json(store, ["log", "stats"])["events"]?.intValue)
        let eventSeq = 2
        let shown = try await Self.json(store, ["log", "show", String(eventSeq)])
        let body = try #require(shown["body"]?["text"]?.stringValue)
        // The largest body (the second page of shows, 519 KiB), paged by the page.
        let pagedSeq = events - 1
        let pagedBody = try #require(try await Self.json(store, ["log", "show", String(pagedSeq)])["body"]?["text"]?.stringValue)
        let earlierSeq = events - 2
        let now = try Self.rows(try await Self.json(store, ["export", "shows"]), "shows")
        let earlier = try Self.rows(try await Self.json(store, ["export", "shows", "--at", String(earlierSeq)]), "shows")
        #expect(now.count != earlier.count, "the slider must show a different count")
        // The diff as the page computes it: rows by id, changed when their JSON differs.
        func byID(_ rows: [JSONValue]) -> [String: String] {
            Dictionary(rows.map { ($0["id"]!.canonicalText(), $0.canonicalText()) }, uniquingKeysWith: { $1 })
        }
        let before = byID(earlier), after = byID(now)
        let diff: JSONValue = .object([
            ("added", .number(after.keys.filter { before[$0] == nil }.count)),
            ("removed", .number(before.keys.filter { after[$0] == nil }.count)),
            ("changed", .number(after.filter { before[$0.key] != nil && before[$0.key] != $0.value }.count)),
        ])
        // The items view: a facet value's count, and the rows holding the first item's name
        // (the page searches each row's JSON text, case-insensitively).
        let items = try Self.rows(try await Self.json(store, ["export", "items/census/gnomes"]), "items")
        let facets = try Self.rows(try await Self.json(store, ["export", "facets/census/gnomes"]), "facets")
        let counted = try #require(facets.first { $0["values"] != nil })
        let value = try #require(counted["values"]?.arrayValue?.first)
        let name = try #require(items.first?["name"]?.stringValue)
        let itemsExpected: JSONValue = .object([
            ("view", .string("items/census/gnomes")), ("rows", .number(items.count)),
            ("facet", .object([("field", counted["field"]!), ("value", value["value"]!), ("count", value["count"]!)])),
            ("search", .string(name)),
            ("searchRows", .number(items.filter { $0.canonicalText().lowercased().contains(name.lowercased()) }.count)),
        ])
        let status = try #require(try await Self.json(store, ["status"]).arrayValue)
        let failing = status.filter { $0["failing"] == .bool(true) }.compactMap { $0["resource"]?.stringValue }
        #expect(failing == ["brastlewark/data.json"])
        let server = try await ServeProcess(store: store, environment: demoEnvironment)
        let guarded = try await ServeProcess(store: store, arguments: ["--token", "s3cret"], environment: demoEnvironment)
        let expected: JSONValue = .object([
            ("events", .number(events)), ("eventSeq", .number(eventSeq)), ("eventBody", .string(body)), ("keyboardSeq", .number(5)),
            ("items", itemsExpected), ("view", .string("shows")), ("nowRows", .number(now.count)), ("earlierSeq", .number(earlierSeq)),
            ("earlierRows", .number(earlier.count)), ("diff", diff), ("resources", .number(status.count)),
            ("failing", .array(failing.map { .string($0) })),
            ("paged", .object([("seq", .number(pagedSeq)), ("body", .string(pagedBody))])),
            ("tokenURL", .string(guarded.base + "/?token=s3cret")),
        ])
        let expectedFile = dir.sub("expected.json")
        try expected.canonicalText().write(toFile: expectedFile, atomically: true, encoding: .utf8)

        let screenshot = dir.sub("serve-page.png")
        let browser = try BrowserScript(arguments: [server.base + "/", expectedFile, screenshot], log: dir.sub("page_test.stderr"))
        let ready = try await browser.readLine()
        if ready != "ready" {
            let early = try await browser.finish()
            Issue.record("page_test.py stopped before the live check (\(early.status)): \(early.stderr)")
        } else {
            // Another process appends while the page is open.
            #expect(try await fetch(["tvmaze", "shows", "--pages", "2"]).status == 0)
            let appended = try await Self.json(store, ["log", "show", String(events + 1)])
            let outcome = switch appended["kind"]?.stringValue ?? "" { case "fetched": "fetched"; case "not-modified": "304"; default: "failure" }
            let grown = try Self.rows(try await Self.json(store, ["export", "shows"]), "shows")
            #expect(grown.count > now.count)
            let live: JSONValue = .object([("seq", .number(events + 1)), ("outcome", .string(outcome)), ("events", .number(events + 1)),
                                           ("nowRows", .number(grown.count))])
            browser.send(live.canonicalText() + "\n")
        }
        let result = try await browser.finish()
        #expect(result.status == 0, "page_test.py: \(result.stderr)")
        #expect(result.stdout == "ok\n", "\(result.stdout)")
        // The screenshot: a PNG of the 1280×800 viewport (its IHDR's width and height).
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: screenshot)))
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let size = png.count >= 24 ? (png[16..<20].reduce(0) { $0 << 8 | Int($1) }, png[20..<24].reduce(0) { $0 << 8 | Int($1) }) : (0, 0)
        #expect(size == (1280, 800))
        // FETCHLOG_PAGE_SCREENSHOT=docs/serve-page.png refreshes the README's picture; a plain
        // run leaves the working tree alone.
        if let keep = ProcessInfo.processInfo.environment["FETCHLOG_PAGE_SCREENSHOT"], !keep.isEmpty {
            let destination = keep.hasPrefix("/") ? keep : Repo.root + "/" + keep
            try? FileManager.default.removeItem(atPath: destination)
            try FileManager.default.copyItem(atPath: screenshot, toPath: destination)
        }
        try await server.stop()
        try await guarded.stop()
        await upstream.stop()
    }

    /// The timeline's labels for offline writes (Tests/Browser/writes_test.py): a change
    /// made while the upstream is down is "pending" until it is discarded, the writes'
    /// other events "write"; the outcome filter picks either.
    @Test func theTimelineSaysPendingWhileAChangeWaitsThenWrite() async throws {
        let rig = try await ManifestCLIRig.start("serve-page-writes", manifest: OfflineWritesTests.manifest)
        #expect(try await rig.fetch(["notes"]).status == 0)
        let gone = try await CatalogUpstream.start()
        let down = gone.base
        await gone.stop()
        let server = try await ServeProcess(store: rig.store, arguments: ["--upstream", down, "--retries", "0"], readsActionToken: true)
        let token = ("Authorization", "Bearer \(server.actionToken)")
        let added = try await server.get("/api/items/catalog/notes", method: .POST, headers: [("Content-Type", "application/json"), token],
                                         body: #"{"title":"buy bread"}"#)
        let mutation = try #require(try JSONValue.parse(added.body)["mutation"]?.intValue, "\(added.body)")
        // The write events' seqs, as the log says.
        func writeEvents() async throws -> (count: Int, seqs: [Int]) {
            let rows = try #require(try await Self.json(rig.store, ["log", "tail", "1000"]).arrayValue)
            return (rows.count, rows.filter { $0["kind"] == .string("intent") && $0["label"]?.stringValue?.hasPrefix("write.") == true }.compactMap { $0["seq"]?.intValue }.sorted())
        }
        let before = try await writeEvents()
        #expect(before.seqs.first == mutation && before.seqs.count >= 2, "\(before.seqs)")
        let expected: JSONValue = .object([("events", .number(before.count)), ("pending", .array([.number(mutation)])),
                                           ("writes", .array(before.seqs.filter { $0 != mutation }.map { .number($0) }))])
        let expectedFile = rig.dir.sub("expected.json")
        try expected.canonicalText().write(toFile: expectedFile, atomically: true, encoding: .utf8)

        let browser = try BrowserScript(script: Repo.root + "/Tests/Browser/writes_test.py", arguments: [server.base + "/", expectedFile],
                                        log: rig.dir.sub("writes_test.stderr"))
        let ready = try await browser.readLine()
        if ready != "ready" {
            let early = try await browser.finish()
            Issue.record("writes_test.py stopped before the discard (\(early.status)): \(early.stderr)")
        } else {
            let discarded = try await server.get("/api/pending/\(mutation)/discard", method: .POST, headers: [token])
            #expect(discarded.status == 200, "\(discarded.body)")
            let after = try await writeEvents()
            #expect(after.count == before.count + 1)
            browser.send(JSONValue.object([("events", .number(after.count)), ("writes", .array(after.seqs.map { .number($0) }))]).canonicalText() + "\n")
        }
        let result = try await browser.finish()
        #expect(result.status == 0, "writes_test.py: \(result.stderr)")
        #expect(result.stdout == "ok\n", "\(result.stdout)")
        try await server.stop()
        await rig.stop()
    }

    @Test func demoWebServesTheDemoStoreUntilCtrlC() async throws {
        let dir = TemporaryDirectory("demo-web")
        let store = dir.sub("demo")
        let refused = try await runFetchlog(["demo", "--store", store, "--port", "0"], environment: demoEnvironment)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--port is for --web: give fetchlog demo --web --port 0"), "\(refused.stderr)")

        let demo = try await ServeProcess(store: store, command: ["demo", "--web", "--port", "0"], environment: demoEnvironment)
        #expect(demo.base.range(of: #"^http://127\.0\.0\.1:[0-9]+/$"#, options: .regularExpression) != nil, "\(demo.base)")
        let base = String(demo.base.dropLast())
        let page = try await demo.get("/", via: base)
        #expect(page.status == 200)
        #expect(page.body.contains(#"<input id="view-at" type="range""#))
        // The demo's events, as the CLI reads them beside the running demo.
        let events = try #require(try await ServePageTests.json(store, ["log", "stats"])["events"]?.intValue)
        #expect(events == 8)
        let log = try await demo.get("/api/log?limit=1000", via: base)
        #expect(log.body == (try await runFetchlog(["--store", store, "--format", "json", "log", "tail", String(events)], environment: demoEnvironment)).stdout)

        // Ctrl-C: the server stops, the demo exits 0, the store is whole.
        demo.process.interrupt()
        let status = try await offPool { () -> Int32 in
            demo.process.waitUntilExit()
            return demo.process.terminationStatus
        }
        #expect(status == 0)
        try await demo.client.shutdown()
        let verified = try await runFetchlog(["--store", store, "log", "verify"])
        #expect(verified.stdout == "ok: 8 events, seq 1…8, every checksum valid\n", "\(verified.stdout)\(verified.stderr)")
    }
}

/// Tests/Browser/page_test.py (or writes_test.py) as a child process: its stdout read line by line (it says
/// `ready` when it waits for the live fetch), its stdin written once, its stderr to a file
/// (chromedriver's chatter must never fill a pipe nobody reads).
final class BrowserScript: @unchecked Sendable {
    let process = Process()
    private let input = Pipe(), output = Pipe()
    private let log: String

    init(script: String = ServePageTests.script, arguments: [String], log: String) throws {
        self.log = log
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.run()
    }

    /// The next line on stdout ("" at its end).
    func readLine() async throws -> String {
        let reader = output.fileHandleForReading
        return try await offPool { ServeProcess.line(reader) }
    }

    func send(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Closes stdin, waits for the exit; the rest of stdout and all of stderr.
    func finish() async throws -> CommandResult {
        try? input.fileHandleForWriting.close()
        let reader = output.fileHandleForReading
        let rest = try await offPool { () -> Data in
            let data = reader.readDataToEndOfFile()
            self.process.waitUntilExit()
            return data
        }
        let stderr = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return CommandResult(status: process.terminationStatus, stdout: String(decoding: rest, as: UTF8.self), stderr: stderr, signaled: false)
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
