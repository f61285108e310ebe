import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// `fetchlog replay` and `fetchlog export` on real stores.
@Suite struct ReplayExportCommandTests {
    private func sampleStore(_ dir: TemporaryDirectory) async throws -> String {
        let path = dir.sub("store")
        #expect(try await runFetchlog(["--store", path, "log", "import", Repo.sampleLog]).status == 0)
        return path
    }

    @Test func replayPrintsEventsAndHashesAndVerifies() async throws {
        let dir = TemporaryDirectory("replay")
        let store = try await sampleStore(dir)
        let result = try await runFetchlog(["--store", store, "replay", "--verify"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 15)
        #expect(lines[0] == "view      events  sha256" + String(repeating: " ", count: 58) + "  live")
        #expect(lines.dropFirst(2).prefix(11).map { String($0.prefix(16)) } == [
            "artists   1     ", "artworks  1     ", "assets    0     ", "filters   3     ", "friends   3     ", "gnomes    3     ",
            "pages     2     ", "search    7     ", "sections  2     ", "shows     5     ", "status    13    ",
        ])
        #expect(lines.dropFirst(2).prefix(11).allSatisfy { $0.hasSuffix("  same") })
        #expect(lines[13] == "replayed 13 events (seq 1…13)")
        #expect(lines[14] == "verified: every view of the live state (seq 13) hashes the same")
        // The hash replay prints is the SHA-256 of what `export` writes (less its newline).
        let status = try await runFetchlog(["--store", store, "export", "status"])
        #expect(lines[12].hasSuffix(SHA256.hex(String(status.stdout.dropLast())) + "  same"))
    }

    @Test func aBadCheckpointIsCaughtByVerify() async throws {
        let dir = TemporaryDirectory("replay-bad")
        let store = try await sampleStore(dir)
        do {
            let log = try EventLog.open(at: store)
            var wrong = try Store.replay(log, sources: .seed).state
            wrong.slices[Source.brastlewark.rawValue] = GnomeFilterSlice()
            try await log.saveCheckpoint(Checkpoint.encode(wrong))
            log.close()
        }
        let result = try await runFetchlog(["--store", store, "replay", "--verify"])
        #expect(result.status == 2)
        #expect(result.stderr == "fetchlog: live state differs from the replay in: filters\n")
    }

    @Test func exportsAreCanonicalStableAndTimeTravel() async throws {
        let dir = TemporaryDirectory("export")
        let store = try await sampleStore(dir)
        let first = try await runFetchlog(["--store", store, "export", "shows"])
        let second = try await runFetchlog(["--store", store, "export", "shows"])
        #expect(first.status == 0)
        #expect(first.stdout == second.stdout)
        #expect(first.stdout.hasSuffix("}\n"))
        let json = try JSONValue.parse(first.stdout)
        #expect(json.canonicalText() + "\n" == first.stdout)
        #expect(json["asOf"] == .number(13))
        #expect(json["pagesHeld"]?.canonicalText() == "[0,1]")
        #expect(json["endOfListPage"] == .number(2))
        let early = try JSONValue.parse(try await runFetchlog(["--store", store, "export", "shows", "--at", "1"]).stdout)
        #expect(early["asOf"] == .number(1))
        #expect(early["pagesHeld"]?.canonicalText() == "[0]")
        #expect(early["endOfListPage"] == .null)
        let past = try await runFetchlog(["--store", store, "export", "shows", "--at", "14"])
        #expect(past.status == 1)
        #expect(past.stderr == "fetchlog: seq 14 is past the end of the log (the last is 13)\n")
        let unknown = try await runFetchlog(["--store", store, "export", "gnoems"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.hasPrefix("fetchlog: no view named 'gnoems' (did you mean 'gnomes'?)"))
    }

    /// Every view of a store fetched from the sample upstream validates against its
    /// schema (Python jsonschema), and a copy rebuilt from `log export`/`log import`
    /// hashes the same.
    @Test func everyExportValidatesAndSurvivesATransfer() async throws {
        let dir = TemporaryDirectory("export-all")
        let store = dir.sub("tour")
        let tour = try await runFetchlog(["tour", "--store", store])
        #expect(tour.status == 0, "\(tour.stderr)")
        for view in ViewCatalog.fixedNames(in: .seed) + ["show/1", "show/99999"] {
            let file = dir.sub("\(view.replacingOccurrences(of: "/", with: "-")).json")
            let result = try await runFetchlog(["--store", store, "export", view, "--out", file])
            #expect(result.status == 0)
            let schema = view.hasPrefix("show/") ? "show" : view
            let validation = try await validate(try JSONValue.parse(String(contentsOfFile: file, encoding: .utf8)), schema: schema)
            #expect(validation.ok, "\(view): \(validation.output)")
        }
        let ndjson = dir.sub("log.ndjson")
        #expect(try await runFetchlog(["--store", store, "log", "export", "--out", ndjson]).status == 0)
        let copy = dir.sub("copy")
        #expect(try await runFetchlog(["--store", copy, "log", "import", ndjson]).status == 0)
        let a = try await runFetchlog(["--store", store, "replay"]).stdout
        let b = try await runFetchlog(["--store", copy, "replay"]).stdout
        #expect(a == b)
        #expect(a.hasSuffix("replayed 20 events (seq 1…20)\n"))
    }
}

/// Time travel across a real data change: the sample upstream switches TVmaze from its
/// 2019 snapshot to 2024; `--at` the earlier seq answers with the 2019 data.
@Suite struct TimeTravelTests {
    @Test func atASeqBeforeThe2024RefreshAnswersWith2019Data() async throws {
        let h = try await FetchHarness.start()
        await h.upstream.setVersion(tvmaze: .v2019)
        #expect(try await h.store.fetch(.tvmazeShowsPage(0)).outcome == .fetched)
        await h.upstream.setVersion(tvmaze: .v2024)
        #expect(try await h.store.fetch(.tvmazeShowsPage(0)).outcome == .fetched)
        await h.fetcher.shutdown()
        let then = try await runFetchlog(["--store", h.log.path, "export", "shows", "--at", "1"])
        let now = try await runFetchlog(["--store", h.log.path, "export", "shows"])
        func firstImage(_ text: String) throws -> String? {
            try JSONValue.parse(text)["shows"]?.arrayValue?.first?["image"]?["url"]?.stringValue
        }
        // The 2019 capture still used http image URLs; 2024 uses https.
        #expect(try firstImage(then.stdout) == "http://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg")
        #expect(try firstImage(now.stdout) == "https://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg")
        #expect(try JSONValue.parse(then.stdout)["asOf"] == .number(1))
        await h.upstream.stop()
    }
}
