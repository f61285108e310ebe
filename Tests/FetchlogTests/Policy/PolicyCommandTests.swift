import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// `fetchlog query` and `fetchlog status` with the clock moved by FETCHLOG_NOW.
@Suite(.serialized) struct PolicyCommandTests {
    @Test func queryAnswersAtOnceRenewsWarnsAndStatusSaysHowOld() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let dir = TemporaryDirectory("cli-query")
        func env(_ now: String) -> [String: String] { ["FETCHLOG_STORE": dir.path, "FETCHLOG_UPSTREAM": base, "FETCHLOG_NOW": now] }

        let first = try await runFetchlog(["query", "shows", "--format", "json"], environment: env("2026-11-22T08:00:00Z"))
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr == "")
        let rows = try JSONValue.parse(first.stdout).arrayValue ?? []
        #expect(rows.count == 20)
        #expect(rows.first?["name"] == .string("Under the Dome"))

        let renewed = try await runFetchlog(["query", "shows"], environment: env("2026-11-22T08:05:00Z"))
        #expect(renewed.status == 0)
        #expect(renewed.stderr == "")
        #expect(await upstream.requestLog.count == 1)

        let offline = try await runFetchlog(["query", "shows", "--offline", "--format", "json"], environment: env("2026-11-22T08:30:00Z"))
        #expect(offline.status == 0)
        #expect(offline.stderr == "⚠ offline (--offline) — shows last updated 25m ago\n")
        #expect(try JSONValue.parse(offline.stdout).arrayValue?.count == 20)
        #expect(await upstream.requestLog.count == 1)

        let status = try await runFetchlog(["status"], environment: env("2026-11-22T08:30:00Z"))
        #expect(status.stdout.contains("tvmaze/shows?page=0  stale      2026-11-22T08:00:00.000Z (30m ago)  -\n"), "\(status.stdout)")

        await upstream.setFaults([Fault(match: "*", kind: .status(503))])
        let stale = try await runFetchlog(["query", "shows", "--retries", "0"], environment: env("2026-11-22T10:14:00Z"))
        #expect(stale.status == 0)
        #expect(stale.stdout.hasSuffix("page 1 of 12 · 240 shows\n⚠ offline: HTTP 503 Service Unavailable — shows last updated 2h 9m ago\n"))

        let nothing = try await runFetchlog(["query", "gnomes", "--retries", "0"], environment: env("2026-11-22T10:15:00Z"))
        #expect(nothing.status == 1)
        #expect(nothing.stdout == "")
        #expect(nothing.stderr == "error: no census held yet, and fetching failed: HTTP 503 Service Unavailable. Check the network or --upstream (or drop --offline), then try again.\n")

        // One row object per resource, as in the shell (`--json` is the old spelling of --format json).
        let json = try await runFetchlog(["status", "--json"], environment: env("2026-11-22T10:15:00Z"))
        let resources = try JSONValue.parse(json.stdout).arrayValue ?? []
        #expect(resources.count == 2)
        #expect(resources.map { $0["freshness"] } == [.string("missing"), .string("stale")])
        #expect(resources.map { $0["failing"] } == [.bool(true), .bool(true)])
        await upstream.stop()
    }
}
