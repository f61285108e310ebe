import Foundation
import NIOHTTP1
import Testing
@testable import FetchlogCore

/// `fetchlog serve`'s questions that only a command knows how to answer (issue 27):
/// `/api/items` is `items`, `/api/diff` the shell's `diff`, `/api/views/NAME?at=` before the
/// compaction horizon `export --at`'s refusal; each compared byte for byte with the CLI's
/// `--format json` on the same store. And `/api/openapi.json` describes exactly the routes.
@Suite(.serialized) struct ServeQueryTests {
    static let now = ServeAPITests.now

    /// An error body as the API sends it: the CLI's message (stderr without `fetchlog: `,
    /// or the shell's `error: `) and its exit status.
    static func errorBody(_ result: CommandResult, prefix: String = "fetchlog: ") -> String {
        #expect(result.stderr.hasPrefix(prefix), "\(result.stderr)")
        let message = String(result.stderr.dropFirst(prefix.count).dropLast())
        return JSONValue.object([("error", .string(message)), ("exit", .number(Int(result.status)))]).canonicalText() + "\n"
    }

    @Test func itemsAnswerWhatTheItemsCommandPrints() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("serve-items")
        let store = dir.sub("store")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let file = dir.sub("catalog.json")
        try ManifestCommandTests.manifest.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await runFetchlog(["--store", store, "source", "add", file]).status == 0)
        let fetched = try await runFetchlog(["--store", store, "--upstream", upstream.base, "--retries", "0", "fetch", "catalog", "pages"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        await upstream.stop()

        let server = try await ServeProcess(store: store)
        func cli(_ words: [String]) async throws -> CommandResult {
            try await runFetchlog(["--store", store, "items", "catalog"] + words + ["--format", "json"])
        }
        // (query, the same question's words on the command line)
        let questions: [(String, [String])] = [
            ("", ["pages"]),
            ("?q=item+1", ["pages", "item 1"]),
            ("?q=item%201&limit=2&page=2", ["pages", "item 1", "--limit", "2", "--page", "2"]),
            ("?where=size%3D50", ["pages", "--where", "size=50"]),
            ("?where=size%3D20..60&where=name%3Ditem%205", ["pages", "--where", "size=20..60", "--where", "name=item 5"]),
            ("?page=3&limit=5", ["pages", "--page", "3", "--limit", "5"]),
        ]
        for (query, words) in questions {
            let api = try await server.get("/api/items/catalog/pages" + query)
            let printed = try await cli(words)
            #expect(printed.status == 0, "\(words): \(printed.stderr)")
            #expect(api.status == 200, "\(query): \(api.body)")
            #expect(api.body == printed.stdout, "\(query)")
        }
        // The first page, exactly: the manifest's 12 items, 20 a page.
        let all = try JSONValue.parse(try await server.get("/api/items/catalog/pages").body)
        #expect(all.arrayValue?.compactMap { $0["id"]?.intValue } == Array(1...12))

        // Refused as the command refuses: its message and exit status; the status says which kind.
        let refusals: [(String, [String], Int)] = [
            ("/api/items/catalog/pagez", ["pagez"], 404),
            ("/api/items/catalog/pages?page=4&limit=5", ["pages", "--page", "4", "--limit", "5"], 404),
            ("/api/items/catalog/pages?where=size", ["pages", "--where", "size"], 400),
        ]
        for (path, words, status) in refusals {
            let api = try await server.get(path)
            let printed = try await cli(words)
            #expect(api.status == status, "\(path): \(api.body)")
            #expect(api.body == Self.errorBody(printed), "\(path)")
        }
        #expect(try await server.get("/api/items/catalog/pagez").body
            == #"{"error":"catalog has no resource 'pagez' (did you mean 'pages'?): use pages","exit":1}"# + "\n")
        let unknown = try await server.get("/api/items/catalgo/pages")
        #expect(unknown.status == 404)
        #expect(unknown.body == #"{"error":"no source 'catalgo' is defined by a manifest (did you mean 'catalog'?): defined are catalog","exit":1}"# + "\n")
        #expect(unknown.body == Self.errorBody(try await runFetchlog(["--store", store, "items", "catalgo", "pages"])))
        try await server.stop()
    }

    @Test func diffAnswersWhatTheShellsDiffPrints() async throws {
        let dir = try await ServeAPITests.sampleStore("serve-diff")
        let server = try await ServeProcess(store: dir.path, environment: Self.now)
        func shell(_ line: String) async throws -> CommandResult {
            try await runFetchlog(["--store", dir.path, "--format", "json", "query", line], environment: Self.now)
        }
        for (view, from, to) in [("gnomes", 0, 13), ("gnomes", 5, 13), ("status", 1, 2), ("all", 3, 9), ("gnomes", 13, 13)] {
            let api = try await server.get("/api/diff?view=\(view)&from=\(from)&to=\(to)")
            let printed = try await shell("diff \(from) \(to) \(view)")
            #expect(printed.status == 0, "\(view) \(from) \(to): \(printed.stderr)")
            #expect(api.status == 200, "\(view) \(from) \(to): \(api.body)")
            #expect(api.body == printed.stdout, "\(view) \(from) \(to)")
        }
        #expect(try await server.get("/api/diff?view=gnomes&from=13&to=13").body == "[]\n")
        let changes = try JSONValue.parse(try await server.get("/api/diff?view=status&from=1&to=2").body)
        #expect(changes.arrayValue?.isEmpty == false)

        // Refusals: the shell's message and status.
        let past = try await server.get("/api/diff?view=gnomes&from=1&to=14")
        #expect(past.status == 404)
        #expect(past.body == Self.errorBody(try await shell("diff 1 14 gnomes"), prefix: "error: "))
        #expect(past.body == #"{"error":"seq 14 is past the end of the log (the last is 13)","exit":1}"# + "\n")
        let nope = try await server.get("/api/diff?view=nope&from=1&to=2")
        #expect(nope.status == 404)
        #expect(nope.body == Self.errorBody(try await shell("diff 1 2 nope"), prefix: "error: "))
        let missing = try await server.get("/api/diff?view=gnomes&from=1")
        #expect(missing.status == 400)
        #expect(missing.body == #"{"error":"diff needs view=NAME, from=SEQ and to=SEQ (GET /api/views lists the views)","exit":64}"# + "\n")
        try await server.stop()
    }

    @Test func aViewBeforeTheCompactionHorizonIsRefusedAsExportAtRefusesIt() async throws {
        let dir = TemporaryDirectory("serve-compacted")
        let store = dir.sub("store")
        try await offPool {
            let log = try EventLog.open(at: store)
            try log.appendBlocking(contentsOf: try CompactionTests.revalidatedLog())
            log.close()
        }
        #expect(try await runFetchlog(["--store", store, "log", "compact"]).status == 0)
        let server = try await ServeProcess(store: store)

        let exported = try await runFetchlog(["--store", store, "export", "shows", "--at", "10", "--format", "json"])
        #expect(exported.status == 1)
        let notice = "at seq 10, the body of 1 resource that shows reads was compacted away (`log compact` dropped bodies a later one superseded): tvmaze /shows?page=0 (its body at seq 5). --at answers with every body from seq 28 on; `log show SEQ` still shows each event's header (status, validators, body size and SHA-256)"
        #expect(exported.stderr == "fetchlog: \(notice)\n")
        let api = try await server.get("/api/views/shows?at=10")
        #expect(api.status == 410)
        #expect(api.headers.first(name: "Fetchlog-Notice") == notice)
        // The error, and what `export --at --format json` prints on stdout beside it.
        guard case .object(let printed) = try JSONValue.parse(exported.stdout) else { Issue.record("\(exported.stdout)"); return }
        #expect(printed.map(\.0) == ["compacted", "horizon", "seq", "view"])
        #expect(api.body == JSONValue.object([("error", .string(notice)), ("exit", .number(1))] + printed).canonicalText() + "\n")
        #expect(api.body.contains(#""compacted":[{"path":"/shows?page=0","seq":5,"source":"tvmaze"}],"error":"#), "\(api.body)")

        // From the horizon on, and a view that reads nothing compacted: answered, as export answers them.
        for (view, at) in [("shows", 28), ("sections", 10)] {
            let answered = try await server.get("/api/views/\(view)?at=\(at)")
            #expect(answered.status == 200, "\(view) \(at): \(answered.body)")
            #expect(answered.headers.first(name: "Fetchlog-Notice") == nil)
            #expect(answered.body == (try await runFetchlog(["--store", store, "export", view, "--at", String(at)])).stdout)
        }
        // The diff that reads the compacted point refuses the same way.
        let diff = try await server.get("/api/diff?view=shows&from=10&to=28")
        #expect(diff.status == 410)
        #expect(diff.headers.first(name: "Fetchlog-Notice") == notice)
        try await server.stop()
    }

    static let routes = ["/", "/index.html", "/api/status", "/api/views", "/api/views/{name}", "/api/items/{source}/{resource}", "/api/log",
                         "/api/events/{seq}", "/api/diff", "/api/stream", "/api/fetch", "/api/pending", "/api/items/{source}/{resource}/{key}", "/api/push",
                         "/api/sync", "/api/pending/{id}/retry", "/api/pending/{id}/discard", "/api/sql", "/api/sql/tables", "/api/openapi.json"]
    /// The methods of the routes that answer more than GET.
    static let methods = ["/api/items/{source}/{resource}": ["get", "post"], "/api/items/{source}/{resource}/{key}": ["delete", "patch", "put"],
                          "/api/fetch": ["post"], "/api/push": ["post"], "/api/sync": ["get", "post"], "/api/pending/{id}/retry": ["post"], "/api/pending/{id}/discard": ["post"], "/api/sql": ["get", "post"]]

    @Test func theOpenAPIDocumentDescribesExactlyTheRoutes() async throws {
        let dir = try await ServeAPITests.sampleStore("serve-openapi")
        let server = try await ServeProcess(store: dir.path)
        let answer = try await server.get("/api/openapi.json")
        #expect(answer.status == 200)
        let document = try JSONValue.parse(answer.body)
        #expect(document["openapi"] == .string("3.1.0"))
        let paths = try #require(document["paths"])
        // (Canonical JSON: the paths in byte order.)
        #expect(paths.memberNames == Self.routes.sorted())
        // The routes a miss lists are the document's.
        let miss = try await server.get("/nope")
        #expect(miss.body == JSONValue.object([("error", .string("no route /nope: the API has \(Self.routes.joined(separator: ", ")) (GET /api/openapi.json describes them)")),
                                               ("exit", .number(1))]).canonicalText() + "\n")
        // Every documented operation is routed: none answers "no route" or a wrong method,
        // and each names its error shape.
        var operations: [String] = []
        for path in Self.routes {
            for method in paths[path]?.memberNames ?? [] {
                operations.append("\(method) \(path)")
                #expect(paths[path]?[method]?["responses"]?["401"]?["content"]?["application/json"]?["schema"]
                    == .object([("$ref", .string("#/components/schemas/Error"))]), "\(method) \(path)")
                // The stream never ends by itself; it is routed (the stream tests read it).
                if path == "/api/stream" { continue }
                let concrete = path.replacingOccurrences(of: "{name}", with: "gnomes").replacingOccurrences(of: "{seq}", with: "1")
                    .replacingOccurrences(of: "{source}", with: "catalog").replacingOccurrences(of: "{resource}", with: "pages")
                    .replacingOccurrences(of: "{key}", with: "1").replacingOccurrences(of: "{id}", with: "1")
                // (The actions, sent without the token, are refused before they act.)
                let reply = try await server.get(concrete, method: HTTPMethod(rawValue: method.uppercased()))
                #expect(reply.status != 405, "\(method) \(path): \(reply.body)")
                #expect(!reply.body.hasPrefix(#"{"error":"no route"#), "\(method) \(path): \(reply.body)")
            }
        }
        #expect(operations == Self.routes.flatMap { path in (Self.methods[path] ?? ["get"]).map { "\($0) \(path)" } })
        #expect(document["components"]?["schemas"]?["Error"]?["required"] == .array([.string("error"), .string("exit")]))
        #expect(paths["/api/fetch"]?["post"]?["security"] == .array([.object([("bearer", .array([]))])]))
        try await server.stop()
    }
}
