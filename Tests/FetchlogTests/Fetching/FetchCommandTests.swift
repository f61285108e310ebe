import AsyncHTTPClient
import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// `fetchlog fetch`, `upstream serve` and `tour` as a user runs them.
@Suite(.serialized) struct FetchCommandTests {
    @Test func fetchReportsEachRequestAndASummary() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let dir = TemporaryDirectory("cli-fetch")
        let result = try await runFetchlog(["--store", dir.path, "--upstream", base, "fetch", "brastlewark", "census"])
        #expect(result.status == 0)
        #expect(result.stdout == """
              seq 1  GET \(base)/brastlewark/data.json  → 200 fetched, 411.4 KiB
            1 request (200×1); 1 event appended (seq 1); 411.4 KiB of bodies

            """)
        let again = try await runFetchlog(["fetch", "brastlewark", "census"], environment: ["FETCHLOG_STORE": dir.path, "FETCHLOG_UPSTREAM": base])
        #expect(again.stdout.hasPrefix("  seq 2  GET \(base)/brastlewark/data.json  → 304 not-modified\n"))
        await upstream.setFaults([Fault(match: "*", kind: .status(503))])
        let failed = try await runFetchlog(["fetch", "tvmaze", "shows", "--pages", "0-1", "--retries", "0", "--store", dir.path, "--upstream", base])
        #expect(failed.status == 1)
        #expect(failed.stderr == "fetchlog: nothing usable came back: http-status: HTTP 503 Service Unavailable\n")
        #expect(failed.stdout.hasSuffix("2 requests (503×2); 2 events appended (seq 3…4); 78 B of bodies\n"))
        let log = try EventLog.open(at: dir.path)
        #expect(try log.events(from: 1).map(\.kind) == [.fetched, .notModified, .fetchFailed, .fetchFailed])
        await upstream.stop()
    }

    @Test func unknownWordsGetDidYouMean() async throws {
        let dir = TemporaryDirectory("cli-typo")
        let typo = try await runFetchlog(["--store", dir.path, "fetch", "tvmaze", "serch", "girls"])
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("tvmaze has no 'serch' (did you mean 'search'?): use shows, show, search"))
        let source = try await runFetchlog(["--store", dir.path, "fetch", "tvmzae", "shows"])
        #expect(source.status == 64)
        #expect(source.stderr.contains("unknown source 'tvmzae' (did you mean 'tvmaze'?)"))
    }

    @Test func upstreamServePrintsItsBaseURLFirstAndStopsOnSIGTERM() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Repo.executable)
        process.arguments = ["upstream", "serve", "--port", "0"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = out.fileHandleForReading
        let firstLine = try await offPool { () -> String in
            var line = ""
            while !line.hasSuffix("\n") {
                let byte = reader.readData(ofLength: 1)
                if byte.isEmpty { break }
                line += String(decoding: byte, as: UTF8.self)
            }
            return line
        }
        let base = firstLine.trimmingCharacters(in: .newlines)
        #expect(base.range(of: #"^http://127\.0\.0\.1:[0-9]+$"#, options: .regularExpression) != nil, "\(base)")
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let response = try await client.execute(HTTPClientRequest(url: base + "/brastlewark/data.json"), timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        try await client.shutdown()
        #expect(body.readableBytes == 421_309)
        process.terminate()
        let reason = try await offPool { () -> Process.TerminationReason in
            process.waitUntilExit()
            return process.terminationReason
        }
        #expect(reason == .exit)
    }

    @Test func theTourFetchesFromAllFiveSources() async throws {
        let dir = TemporaryDirectory("cli-tour")
        let tour = try await runFetchlog(["tour", "--store", dir.path])
        #expect(tour.status == 0, "\(tour.stderr)")
        #expect(tour.stdout.contains("ok: 20 events, seq 1…20, every checksum valid\n"))
        let stats = try EventLog.open(at: dir.path).statistics()
        #expect(stats.byKind == ["fetched": 14, "not-modified": 1, "end-of-list": 1, "fetch-failed": 4])
        #expect(stats.bySource == ["tvmaze": 8, "brastlewark": 6, "viaplay": 1, "thmanyah": 2, "artic": 3])
    }
}
