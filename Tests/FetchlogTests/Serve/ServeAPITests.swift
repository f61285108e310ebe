import AsyncHTTPClient
import Foundation
import NIOHTTP1
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// `fetchlog serve` (issue 27): real HTTP on loopback against the binary; each answer is
/// compared with what the CLI prints for the same question in `--format json`.
@Suite(.serialized) struct ServeAPITests {
    /// A store holding the bundled sample log (13 events, seq 1…13).
    static func sampleStore(_ name: String) async throws -> TemporaryDirectory {
        let dir = TemporaryDirectory(name)
        let imported = try await runFetchlog(["--store", dir.path, "log", "import", Repo.sampleLog])
        #expect(imported.status == 0, "\(imported.stderr)")
        return dir
    }

    static let now = ["FETCHLOG_NOW": "2026-11-25T12:00:00.000Z"]

    @Test func everyEndpointAnswersWhatTheCommandLinePrints() async throws {
        let dir = try await Self.sampleStore("serve-api")
        let server = try await ServeProcess(store: dir.path, environment: Self.now)
        #expect(server.base.range(of: #"^http://127\.0\.0\.1:[0-9]+$"#, options: .regularExpression) != nil, "\(server.base)")
        func cli(_ arguments: [String]) async throws -> CommandResult {
            try await runFetchlog(["--store", dir.path, "--format", "json"] + arguments, environment: Self.now)
        }

        let names = try await server.get("/api/views")
        #expect(names.status == 200)
        #expect(names.body == JSONValue.array(SeedSources.registry.exportNames.map { .string($0) }).canonicalText() + "\n")

        // Every view (and a parameterized one) the same bytes as `export`, or refused by both.
        for name in SeedSources.registry.exportNames + ["show/1", "show/999999"] {
            let api = try await server.get("/api/views/" + name)
            let exported = try await cli(["export", name])
            if exported.status == 0 {
                #expect(api.status == 200, "\(name): \(api.body)")
                #expect(api.body == exported.stdout, "\(name)")
                #expect(api.headers["ETag"] == ["\"\(SHA256.hex(String(exported.stdout.dropLast())))\""], "\(name)")
            } else {
                #expect(api.status == 404, "\(name): \(api.body)")
                #expect((try? JSONValue.parse(api.body))?["error"]?.stringValue != nil, "\(name)")
            }
        }

        // Time travel: ?at= is `export --at`, and the past differs from the present.
        let past = try await server.get("/api/views/gnomes?at=5")
        let pastCLI = try await cli(["export", "gnomes", "--at", "5"])
        #expect(pastCLI.status == 0)
        #expect(past.status == 200)
        #expect(past.body == pastCLI.stdout)

        // A repeated request with the ETag: 304, no body.
        let gnomes = try await server.get("/api/views/gnomes")
        let etag = try #require(gnomes.headers.first(name: "ETag"))
        let again = try await server.get("/api/views/gnomes", headers: [("If-None-Match", etag)])
        #expect(again.status == 304)
        #expect(again.body == "")
        #expect(again.headers.first(name: "ETag") == etag)
        let stale = try await server.get("/api/views/gnomes", headers: [("If-None-Match", "\"0000\"")])
        #expect(stale.status == 200)
        #expect(stale.body == gnomes.body)

        // The log's headers as `log tail`, one event as `log show`, freshness as `status`.
        let log = try await server.get("/api/log?from=4&limit=10")
        #expect(log.status == 200)
        #expect(log.body == (try await cli(["log", "tail", "10"])).stdout)
        let firstPage = try await server.get("/api/log?limit=3")
        #expect((try? JSONValue.parse(firstPage.body))?.arrayValue?.count == 3)
        #expect(try await server.get("/api/log?from=14").body == "[]\n")
        let event = try await server.get("/api/events/7")
        #expect(event.status == 200)
        #expect(event.body == (try await cli(["log", "show", "7"])).stdout)
        let status = try await server.get("/api/status")
        #expect(status.status == 200)
        #expect(status.body == (try await cli(["status"])).stdout)

        // The page: from the binary, whole (no CDN: no other origin named), over /api/log.
        let page = try await server.get("/")
        #expect(page.status == 200)
        #expect(page.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
        #expect(page.body.contains(#"api("/api/log?from=" + from + "&limit=1000")"#))
        #expect(!page.body.contains("://"))
        try await server.stop()
    }

    @Test func theStreamDeliversEveryEventInOrderAcrossAReconnect() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let dir = try await Self.sampleStore("serve-stream")
        let server = try await ServeProcess(store: dir.path)
        // From the start of the log, cut off after seq 6 …
        let first = try await server.streamIDs(after: 0, until: 6)
        #expect(first == [1, 2, 3, 4, 5, 6])
        // … then resumed after 6, while another process fetches twice (seq 14 and 15).
        let second = try await server.streamIDs(after: 6, until: 15, subscribed: {
            for _ in 0..<2 {
                let fetched = try await runFetchlog(["--store", dir.path, "--upstream", base, "fetch", "brastlewark", "census"])
                #expect(fetched.status == 0, "\(fetched.stderr)")
            }
        })
        #expect(second == Array(7...15))
        // Without Last-Event-ID only what comes next: the next fetch's event.
        let third = try await server.streamIDs(after: nil, until: 16, subscribed: {
            _ = try await runFetchlog(["--store", dir.path, "--upstream", base, "fetch", "brastlewark", "census"])
        })
        #expect(third == [16])
        await upstream.stop()

        // SIGTERM with a stream open: the stream ends (graceful shutdown ends it rather
        // than waiting on it) and the server exits 0.
        let (subscribed, signal) = AsyncStream<Void>.makeStream()
        let open = Task { try await server.streamIDs(after: nil, until: .max, subscribed: { signal.yield() }) }
        for await _ in subscribed { break }
        server.process.terminate()
        #expect(try await open.value == [])
        let status = try await offPool { () -> Int32 in
            server.process.waitUntilExit()
            return server.process.terminationStatus
        }
        #expect(status == 0)
        try await server.client.shutdown()
    }

    @Test func anExposedBindNeedsAToken() async throws {
        let dir = try await Self.sampleStore("serve-token")
        let refused = try await runFetchlog(["--store", dir.path, "serve", "--bind", "0.0.0.0", "--port", "0"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("binding 0.0.0.0 lets other machines read the whole store: give --token T (or --generate-token, which prints one)"), "\(refused.stderr)")

        let server = try await ServeProcess(store: dir.path, arguments: ["--bind", "0.0.0.0", "--generate-token"], readsExtraLine: true)
        let token = try #require(server.extraLine.split(separator: " ").dropFirst().first.map(String.init))
        #expect(token.count == 64)
        #expect(server.base.hasPrefix("http://0.0.0.0:"))
        let port = server.base.split(separator: ":").last!
        // Reach it through loopback (0.0.0.0 listens there too).
        let local = "http://127.0.0.1:\(port)"
        let without = try await server.get("/api/status", via: local)
        #expect(without.status == 401)
        #expect(without.body == #"{"error":"this server needs its token: send Authorization: Bearer TOKEN (or ?token=TOKEN)","exit":64}"# + "\n")
        let wrong = try await server.get("/api/status", headers: [("Authorization", "Bearer nope")], via: local)
        #expect(wrong.status == 401)
        #expect(wrong.body == #"{"error":"wrong token","exit":64}"# + "\n")
        #expect(try await server.get("/api/status", headers: [("Authorization", "Bearer \(token)")], via: local).status == 200)
        #expect(try await server.get("/api/log?token=\(token)", via: local).status == 200)
        #expect(try await server.get("/?token=\(token)", via: local).status == 200)
        try await server.stop()

        // A token given on loopback is required as well.
        let guarded = try await ServeProcess(store: dir.path, arguments: ["--token", "s3cret"])
        #expect(try await guarded.get("/api/views").status == 401)
        #expect(try await guarded.get("/api/views", headers: [("Authorization", "Bearer s3cret")]).status == 200)
        try await guarded.stop()
    }

    @Test func malformedRequestsGetAJSONErrorAndTheServerKeepsAnswering() async throws {
        let dir = try await Self.sampleStore("serve-hostile")
        let server = try await ServeProcess(store: dir.path, readsActionToken: true)
        let act = [("Authorization", "Bearer \(server.actionToken)"), ("Content-Type", "application/json")]
        let cases: [(HTTPMethod, String, [(String, String)], String?, Int)] = [
            (.GET, "/nope", [], nil, 404), (.GET, "/api", [], nil, 404), (.GET, "/api/views/nope", [], nil, 404), (.GET, "/api/views/", [], nil, 404),
            (.GET, "/api/views/show/x", [], nil, 404), (.GET, "/api/events/abc", [], nil, 400), (.GET, "/api/events/0", [], nil, 400),
            (.GET, "/api/events/-1", [], nil, 400), (.GET, "/api/events/14", [], nil, 404), (.GET, "/api/events/18446744073709551616", [], nil, 400),
            (.GET, "/api/events/", [], nil, 400), (.GET, "/api/views/gnomes?at=abc", [], nil, 400), (.GET, "/api/views/gnomes?at=14", [], nil, 404),
            (.GET, "/api/log?from=abc", [], nil, 400), (.GET, "/api/log?limit=0", [], nil, 400), (.GET, "/api/log?limit=100000", [], nil, 400),
            (.GET, "/api/log?from=1&from=2", [], nil, 400), (.GET, "/api/log?x=%FF", [], nil, 400),
            (.POST, "/api/views", [], nil, 405), (.DELETE, "/api/events/1", [], nil, 405), (.PUT, "/", [], nil, 405), (.PATCH, "/api/stream", [], nil, 405),
            (.GET, "/api/stream", [("Last-Event-ID", "abc")], nil, 400),
            (.GET, "/api/log?from=1&pad=" + String(repeating: "x", count: 10_000), [], nil, 414),
            // Items: unknown sources and resources, bad pages, a path of the wrong length.
            (.GET, "/api/items/nope/pages", [], nil, 404), (.GET, "/api/items/", [], nil, 404),
            (.GET, "/api/items/a/b/c/d", [], nil, 404), (.GET, "/api/items/a/b?page=0", [], nil, 400), (.GET, "/api/items/a/b?limit=x", [], nil, 400),
            (.GET, "/api/items/a/b?q=1&q=2", [], nil, 400),
            // Diff: missing, bad and past-the-end seqs, unknown views.
            (.GET, "/api/diff", [], nil, 400), (.GET, "/api/diff?view=gnomes&from=abc&to=3", [], nil, 400), (.GET, "/api/diff?view=gnomes&from=-1&to=3", [], nil, 400),
            (.GET, "/api/diff?view=gnomes&from=1&to=99", [], nil, 404), (.GET, "/api/diff?view=nope&from=1&to=2", [], nil, 404),
            (.GET, "/api/diff?view=gnomes&from=1&to=18446744073709551616", [], nil, 400),
            // Fetch: no token, not JSON, bad JSON, wrong shapes, an unknown source.
            (.POST, "/api/fetch", [], #"{"source":"brastlewark"}"#, 401), (.POST, "/api/fetch", [act[0]], "{}", 415),
            (.POST, "/api/fetch", act, "{", 400), (.POST, "/api/fetch", act, "[]", 400), (.POST, "/api/fetch", act, "{}", 400),
            (.POST, "/api/fetch", act, #"{"source":1}"#, 400), (.POST, "/api/fetch", act, #"{"source":"brastlewark","x":1}"#, 400),
            (.POST, "/api/fetch", act, #"{"source":"nope","resource":"x"}"#, 404), (.POST, "/api/fetch", act, #"{"source":"brastlewark","values":[1]}"#, 400),
            (.POST, "/api/fetch", act, #"{"source":"--help"}"#, 404), (.POST, "/api/fetch", act, String(repeating: " ", count: 70_000), 413),
            (.POST, "/api/fetch", act + [("Origin", "null")], #"{"source":"brastlewark"}"#, 403),
            // Wrong methods on the new routes, another site's Host.
            (.GET, "/api/fetch", [], nil, 405), (.DELETE, "/api/diff", [], nil, 405), (.POST, "/api/openapi.json", [], nil, 405),
            (.PUT, "/api/items/a/b", [], nil, 405), (.GET, "/api/items/a/b/c", [], nil, 405), (.GET, "/api/status", [("Host", "evil.example")], nil, 403),
        ]
        // (A path that is not UTF-8, `/api/%FF`, cannot be sent from here: AsyncHTTPClient
        // sends `/` for it. The server answers it 400 from the raw request target.)
        // 19 rounds of 54: 1,026 requests.
        #expect(cases.count == 54)
        for _ in 0..<19 {
            for (method, path, headers, body, status) in cases {
                let answer = try await server.get(path, method: method, headers: headers, body: body)
                #expect(answer.status == status, "\(method) \(path.prefix(60)): \(answer.body)")
                let error = (try? JSONValue.parse(answer.body))?["error"]
                #expect(error?.stringValue?.isEmpty == false, "\(method) \(path.prefix(60))")
            }
        }
        #expect(try await server.get("/api/events/13").status == 200)
        try await server.stop()
    }
}
