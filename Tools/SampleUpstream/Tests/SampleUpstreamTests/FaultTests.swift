import AsyncHTTPClient
import Foundation
import Testing
@testable import SampleUpstream

@Suite("Faults")
struct FaultTests {
    @Test func failNextThenRecover() async throws {
        try await withServer(.init(faults: [Fault(match: "/tvmaze/shows", kind: .failNext(2))])) { h async throws in
            #expect(try await h.get("/tvmaze/shows?page=0").status == 503)
            // Other routes are not matched and do not consume the budget.
            #expect(try await h.get("/brastlewark/data.json").status == 200)
            #expect(try await h.get("/tvmaze/shows?page=0").status == 503)
            #expect(try await h.get("/tvmaze/shows?page=0").status == 200)
            #expect(try await h.get("/tvmaze/shows?page=0").status == 200)
        }
    }

    @Test func fixedStatusWithRetryAfter() async throws {
        try await withServer { h async throws in
            await h.server.setFaults([Fault(match: "/artic", kind: .status(429, retryAfter: 7))])
            let limited = try await h.get("/artic/api/v1/artworks")
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "7")
            #expect(limited.object["status"] as? Int == 429)
            #expect(try await h.get("/viaplay/ios-se").status == 200)
            await h.server.setFaults([Fault(kind: .status(500))])
            #expect(try await h.get("/viaplay/ios-se").status == 500)
            await h.server.clearFaults()
            #expect(try await h.get("/viaplay/ios-se").status == 200)
        }
    }

    @Test func resetMidBodyFailsTheClient() async throws {
        try await withServer(.init(faults: [Fault(match: "/brastlewark", kind: .resetMidBody)])) { h async throws in
            await #expect(throws: (any Error).self) { _ = try await h.get("/brastlewark/data.json") }
            #expect(try await h.get("/viaplay/ios-se").status == 200)
            let log = await h.server.requestLog
            #expect(log.first?.fault == "reset-mid-body@/brastlewark")
        }
    }

    @Test func truncatedBodyFailsTheClient() async throws {
        try await withServer(.init(faults: [Fault(match: "/tvmaze/shows", kind: .truncated)])) { h async throws in
            await #expect(throws: (any Error).self) { _ = try await h.get("/tvmaze/shows?page=1") }
            await h.server.clearFaults()
            #expect(try await h.get("/tvmaze/shows?page=1").status == 200)
        }
    }

    @Test func malformedJSON() async throws {
        try await withServer(.init(faults: [Fault(match: "/thmanyah", kind: .malformedJSON)])) { h async throws in
            let r = try await h.get("/thmanyah/home_sections?page=1")
            #expect(r.status == 200)
            let full = Fixtures.data("thmanyah/home-sections-page-1.json")
            #expect(r.body.count == full.count * 6 / 10)
            #expect(r.header("Content-Length") == String(r.body.count))
            #expect(r.body == full.prefix(r.body.count))
            #expect(throws: (any Error).self) { _ = try JSONSerialization.jsonObject(with: r.body) }
        }
    }

    @Test func wrongContentType() async throws {
        try await withServer(.init(faults: [Fault(kind: .wrongContentType)])) { h async throws in
            let r = try await h.get("/brastlewark/data.json")
            #expect(r.status == 200)
            #expect(r.header("Content-Type") == "text/html")
            #expect(r.body == Fixtures.data("brastlewark/census.json"))
        }
    }

    @Test func latencyCombinesWithStatus() async throws {
        try await withServer(.init(faults: try FaultSpec.parse("latency=300ms@viaplay, status=503@viaplay/ios-se"))) { h async throws in
            let clock = ContinuousClock()
            let start = clock.now
            let r = try await h.get("/viaplay/ios-se")
            #expect(clock.now - start >= .milliseconds(300))
            #expect(r.status == 503)
            let log = await h.server.requestLog
            #expect(log.last?.fault == "latency=300ms@/viaplay, status=503@/viaplay/ios-se")
        }
    }

    @Test func noAnswerHoldsUntilClientGivesUp() async throws {
        try await withServer(.init(faults: [Fault(match: "/tvmaze", kind: .noAnswer)])) { h async throws in
            let clock = ContinuousClock()
            let start = clock.now
            await #expect(throws: (any Error).self) { _ = try await h.get("/tvmaze/shows", timeout: .milliseconds(700)) }
            #expect(clock.now - start >= .milliseconds(650))
            #expect(await h.server.requestLog.last?.status == 0)
            #expect(await h.server.requestLog.last?.fault == "no-answer@/tvmaze")
        }
    }

    /// Its body runs at high priority, on Linux its own dispatch queue and threads, as
    /// FetchlogTests' `aheadOfTheSuite` does: the hold's 50 ms polls and the shutdown's hops
    /// would otherwise queue behind seconds of the whole suite's work on two cores (a
    /// fresh-clone CI run measured the suite, 25 s, not the release). The bound is unchanged.
    @Test func stopReleasesHeldRequests() async throws {
        try await Task(priority: .high) { try await Self.stopReleasesHeldRequestsBody() }.value
    }

    static func stopReleasesHeldRequestsBody() async throws {
        var configuration = SampleUpstreamConfiguration(faults: [Fault(kind: .noAnswer)])
        // A watchdog far beyond the bound below, so only releasing the hold can meet it,
        // however loaded the machine is.
        configuration.stopTimeout = .seconds(40)
        let server = try SampleUpstream(configuration: configuration)
        let base = try await server.start()
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let held = Task {
            try await client.execute(HTTPClientRequest(url: base.absoluteString + "/brastlewark/data.json"), timeout: .seconds(30))
        }
        while await server.requestLog.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        let clock = ContinuousClock()
        let start = clock.now
        await server.stop()
        // Without releasing the hold, stop() would wait for the 60 s no-answer limit (cut to
        // the 40 s watchdog).
        #expect(clock.now - start < .seconds(20))
        await #expect(throws: (any Error).self) { _ = try await held.value }
        try await client.shutdown()
    }

    @Test func textSpecParsing() throws {
        #expect(try FaultSpec.parse("status=503@tvmaze/shows") == [Fault(match: "/tvmaze/shows", kind: .status(503))])
        #expect(try FaultSpec.parse("status=429:5") == [Fault(kind: .status(429, retryAfter: 5))])
        #expect(try FaultSpec.parse("fail-next=2") == [Fault(kind: .failNext(2, status: 503))])
        #expect(try FaultSpec.parse("fail-next=3:500@/artic") == [Fault(match: "/artic", kind: .failNext(3, status: 500))])
        #expect(try FaultSpec.parse(["latency=200ms", "latency=1.5s", "latency=20"]).map(\.kind) == [.latency(milliseconds: 200), .latency(milliseconds: 1500), .latency(milliseconds: 20)])
        #expect(try FaultSpec.parse("no-answer,reset,truncated,malformed-json,wrong-content-type@*").map(\.kind) == [.noAnswer, .resetMidBody, .truncated, .malformedJSON, .wrongContentType])
        for bad in ["status", "status=abc", "status=99", "boom", "latency=fast", "truncated=1", "status=503@"] {
            #expect(throws: FaultSpecError.self, "\(bad)") { try FaultSpec.parse(bad) }
        }
        // The description is the spec again.
        let faults = try FaultSpec.parse("status=429:5@/artic,fail-next=2,latency=200ms")
        #expect(try FaultSpec.parse(faults.map(\.description)) == faults)
    }

    @Test func faultJSONRoundTrip() throws {
        let json = #"[{"match":"/tvmaze/shows","kind":"status","status":429,"retryAfter":5},{"kind":"failNext","count":2},{"match":"*","kind":"latency","ms":250},{"kind":"resetMidBody","match":"brastlewark"}]"#
        let faults = try JSONDecoder().decode([Fault].self, from: Data(json.utf8))
        #expect(faults == [
            Fault(match: "/tvmaze/shows", kind: .status(429, retryAfter: 5)),
            Fault(kind: .failNext(2, status: 503)),
            Fault(kind: .latency(milliseconds: 250)),
            Fault(match: "/brastlewark", kind: .resetMidBody),
        ])
        #expect(try JSONDecoder().decode([Fault].self, from: JSONEncoder().encode(faults)) == faults)
        #expect(throws: (any Error).self) { try JSONDecoder().decode([Fault].self, from: Data(#"[{"kind":"explode"}]"#.utf8)) }
    }
}
