import Foundation
import NIOHTTP1
import SampleUpstream
import Testing
@testable import FetchlogCore

/// `POST /api/fetch` (issue 27): an action through the store, only with the action token,
/// only from the server's own origin, answering what `fetch --format json` prints; and
/// the Host check that keeps other sites' pages (DNS rebinding) out of a loopback server.
@Suite(.serialized) struct ServeActionTests {
    static let now = ServeAPITests.now
    static let census = #"{"source":"brastlewark","resource":"census"}"#

    @Test func aFetchNeedsTheActionTokenAndAnswersTheCommandsReport() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        // Two copies of the sample store: the server fetches into one, the CLI into the other.
        let served = try await ServeAPITests.sampleStore("serve-fetch")
        let beside = try await ServeAPITests.sampleStore("serve-fetch-cli")
        let server = try await ServeProcess(store: served.path, arguments: ["--upstream", base], environment: Self.now, readsActionToken: true)
        let token = server.actionToken
        #expect(token.count == 64, "\(token)")
        let json = ("Content-Type", "application/json")

        // No token, a wrong one, a reading token in the query: refused, nothing fetched.
        let without = try await server.get("/api/fetch", method: .POST, headers: [json], body: Self.census)
        #expect(without.status == 401)
        #expect(without.body == #"{"error":"an action needs the action token: send Authorization: Bearer TOKEN (the server's --token, or the one the page at / holds)","exit":64}"# + "\n")
        #expect(without.headers.first(name: "WWW-Authenticate") == "Bearer")
        let wrong = try await server.get("/api/fetch", method: .POST, headers: [json, ("Authorization", "Bearer nope")], body: Self.census)
        #expect(wrong.status == 401)
        #expect(wrong.body == #"{"error":"wrong token","exit":64}"# + "\n")
        #expect(try await server.get("/api/fetch?token=\(token)", method: .POST, headers: [json], body: Self.census).status == 401)
        // Another site's page, even holding the token: refused by its Origin.
        let foreign = try await server.get("/api/fetch", method: .POST, headers: [json, ("Authorization", "Bearer \(token)"), ("Origin", "http://evil.example")],
                                           body: Self.census)
        #expect(foreign.status == 403)
        #expect(foreign.body.hasPrefix(#"{"error":"an action from origin 'http://evil.example' is refused: only this server's own page (\#(server.base)) may act","exit":64}"#), "\(foreign.body)")
        #expect(try await runFetchlog(["--store", served.path, "log", "verify"]).stdout == "ok: 13 events, seq 1…13, every checksum valid\n")

        // With the token, from its own origin: the report `fetch --format json` prints.
        let fetched = try await server.get("/api/fetch", method: .POST, headers: [json, ("Authorization", "Bearer \(token)"), ("Origin", server.base)],
                                           body: Self.census)
        let printed = try await runFetchlog(["--store", beside.path, "--upstream", base, "fetch", "brastlewark", "census", "--format", "json"],
                                            environment: Self.now)
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(fetched.status == 200, "\(fetched.body)")
        #expect(fetched.body == printed.stdout)
        #expect(fetched.headers.first(name: "Fetchlog-Exit") == "0")
        let records = try #require(try JSONValue.parse(fetched.body).arrayValue)
        #expect(records.compactMap { $0["seq"]?.intValue } == [14])
        #expect(records.first?["url"] == .string(base + "/brastlewark/data.json"))
        // The log grew by the fetch's event, the same event the CLI appended beside it.
        #expect(try await runFetchlog(["--store", served.path, "log", "verify"]).stdout == "ok: 14 events, seq 1…14, every checksum valid\n")
        let tail = ["--format", "json", "log", "tail", "1"]
        #expect(try await runFetchlog(["--store", served.path] + tail).stdout == (try await runFetchlog(["--store", beside.path] + tail)).stdout)
        // The API sees it at once.
        #expect(try JSONValue.parse(try await server.get("/api/log?from=14").body).arrayValue?.count == 1)

        // A fetch the command refuses: its usage error, its status; a source that is not
        // there is 404 (as GET /api/items answers it: the OpenAPI document says so).
        let unknown = try await server.get("/api/fetch", method: .POST, headers: [json, ("Authorization", "Bearer \(token)")],
                                           body: #"{"source":"brastlewrak","resource":"census"}"#)
        #expect(unknown.status == 404)
        let error = try JSONValue.parse(unknown.body)
        #expect(error["exit"] == .number(64))
        #expect(error["error"]?.stringValue?.hasPrefix("unknown source 'brastlewrak' (did you mean 'brastlewark'?)") == true, "\(unknown.body)")
        try await server.stop()
        await upstream.stop()

        // A server given --token: that token is the action token too.
        let guarded = try await ServeProcess(store: served.path, arguments: ["--token", "s3cret", "--upstream", base, "--offline"])
        let offline = try await guarded.get("/api/fetch", method: .POST, headers: [json, ("Authorization", "Bearer s3cret")], body: Self.census)
        #expect(offline.status == 200, "\(offline.body)")
        // Offline: the attempt is recorded, nothing usable came back; the command would end with 1.
        #expect(offline.headers.first(name: "Fetchlog-Exit") == "1")
        #expect(offline.headers.first(name: "Fetchlog-Notice")?.hasPrefix("nothing usable came back: ") == true, "\(offline.headers)")
        try await guarded.stop()
    }

    @Test func aLoopbackServerAnswersOnlyItsOwnHostNames() async throws {
        let dir = try await ServeAPITests.sampleStore("serve-host")
        let server = try await ServeProcess(store: dir.path)
        let port = server.base.split(separator: ":").last!
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST", "[::1]:\(port)"] {
            #expect(try await server.get("/api/status", headers: [("Host", host)]).status == 200, "\(host)")
        }
        for host in ["evil.example:\(port)", "evil.example", "127.0.0.1.evil.example", "localhost.evil.example:\(port)"] {
            let refused = try await server.get("/api/views/gnomes", headers: [("Host", host)])
            #expect(refused.status == 403, "\(host)")
            #expect(refused.body == #"{"error":"Host '\#(host)' is not this server's: on a loopback bind only 127.0.0.1, localhost and [::1] are answered","exit":64}"# + "\n")
        }
        // The page too: another site cannot read it (and the action token in it) by rebinding.
        #expect(try await server.get("/", headers: [("Host", "evil.example")]).status == 403)
        let page = try await server.get("/")
        #expect(page.status == 200)
        #expect(!page.body.contains("{{ACTION_TOKEN}}"))
        // No CORS: no other origin may read any answer.
        #expect(page.headers["Access-Control-Allow-Origin"].isEmpty)
        #expect(try await server.get("/api/status", headers: [("Origin", "http://evil.example")]).headers["Access-Control-Allow-Origin"].isEmpty)
        try await server.stop()
    }
}
