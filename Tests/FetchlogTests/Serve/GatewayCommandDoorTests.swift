import Foundation
import NIOHTTP1
import SampleUpstream
import Testing
@testable import FetchlogCore

/// Issue 33, item 2, from the doors a person uses: `item add|set|delete` and `push` on the
/// command line and `POST /api/items` of `serve`, against a manifest whose base is a
/// non-public address (the sample upstream on loopback, no `--upstream`). Before the
/// gateway, all of them reached it while `fetch` was refused (28 of 28).
@Suite(.serialized) struct GatewayCommandDoorTests {
    /// The store (manifest defined, notes fetched with the flag), its upstream and the refusal text.
    struct Rig {
        let upstream: CatalogUpstream
        let dir: TemporaryDirectory
        let store: String

        func refusal(_ path: String) -> String {
            "refused: \(upstream.base)/catalog\(path) leads to 127.0.0.1, a loopback address (127.0.0.1), and manifests' base URLs "
                + "(data: a manifest may come from another store's log) may reach public addresses only; nothing was sent. "
                + "Pass --allow-private-hosts (FetchConfiguration.allowPrivateHosts) to allow it, or fetch through --upstream"
        }

        func cli(_ words: [String]) async throws -> CommandResult {
            try await runFetchlog(["--store", store, "--retries", "0"] + words)
        }
    }

    static func rig(_ name: String) async throws -> Rig {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory(name)
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let file = dir.sub("catalog.json")
        try GatewayDoorTests.manifest(base: upstream.base).write(toFile: file, atomically: true, encoding: .utf8)
        let rig = Rig(upstream: upstream, dir: dir, store: dir.sub("store"))
        let add = try await rig.cli(["source", "add", file])
        #expect(add.status == 0, "\(add.stderr)")
        let refused = try await rig.cli(["fetch", "catalog", "notes"])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains(rig.refusal("/notes")), "\(refused.stdout)")
        let fetched = try await rig.cli(["--allow-private-hosts", "fetch", "catalog", "notes"])
        #expect(fetched.status == 0, "\(fetched.stdout) \(fetched.stderr)")
        return rig
    }

    @Test func itemAddSetDeleteAndPushAreRefusedUnlessPrivateHostsAreAllowed() async throws {
        let rig = try await Self.rig("gateway-cli")
        let commands: [([String], String, String)] = [
            (["item", "add", "catalog", "notes", "title=buy bread"], "create notes local:", "POST /notes"),
            (["item", "set", "catalog", "notes", "1", "priority=4"], "update notes 1", "PATCH /notes/1"),
            (["item", "delete", "catalog", "notes", "2"], "delete notes 2", "DELETE /notes/2"),
        ]
        var ids: [Int] = []
        for (words, item, request) in commands {
            let result = try await rig.cli(["--format", "json"] + words)
            #expect(result.status == 0, "\(words): \(result.stderr)")
            let answer = try JSONValue.parse(result.stdout)
            let id = try #require(answer["mutation"]?.intValue)
            ids.append(id)
            let path = String(request.split(separator: " ")[1])
            #expect(answer["state"] == .string("paused"), "\(result.stdout)")
            #expect(answer["note"]?.stringValue == "paused: mutation \(id) (\(item)\(item.hasSuffix(":") ? String(id) : "")): \(request): paused — "
                + rig.refusal(path) + "; pending retry \(id) or pending discard \(id)", "\(result.stdout)")
        }
        let push = try await rig.cli(["push"])
        #expect(push.stdout.contains("\(ids[0]) POST /notes: paused — " + rig.refusal("/notes")), "\(push.stdout)")
        #expect(await rig.upstream.server.appliedWrites.isEmpty)

        let allowed = try await rig.cli(["--allow-private-hosts", "--format", "json", "push"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(await rig.upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.status)" } == [
            "POST /catalog/notes 201", "PATCH /catalog/notes/1 200", "DELETE /catalog/notes/2 204",
        ])
        #expect(try await rig.cli(["pending", "--format", "json"]).stdout == "[]\n")
        await rig.upstream.stop()
    }

    @Test func postApiItemsIsRefusedUnlessTheServerAllowsPrivateHosts() async throws {
        let rig = try await Self.rig("gateway-serve")
        let json = ("Content-Type", "application/json")
        let strict = try await ServeProcess(store: rig.store, arguments: ["--retries", "0"], readsActionToken: true)
        let refused = try await strict.get("/api/items/catalog/notes", method: .POST, headers: [json, ("Authorization", "Bearer \(strict.actionToken)")],
                                           body: #"{"title":"buy bread"}"#)
        #expect(refused.status == 200, "\(refused.body)")
        let answer = try JSONValue.parse(refused.body)
        let id = try #require(answer["mutation"]?.intValue)
        #expect(answer["state"] == .string("paused"), "\(refused.body)")
        #expect(answer["note"]?.stringValue?.contains("POST /notes: paused — " + rig.refusal("/notes")) == true, "\(refused.body)")
        #expect(await rig.upstream.server.appliedWrites.isEmpty)
        try await strict.stop()

        let allowing = try await ServeProcess(store: rig.store, arguments: ["--retries", "0", "--allow-private-hosts"], readsActionToken: true)
        let pushed = try await allowing.get("/api/push", method: .POST, headers: [json, ("Authorization", "Bearer \(allowing.actionToken)")])
        #expect(pushed.status == 200, "\(pushed.body)")
        #expect(await rig.upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.status)" } == ["POST /catalog/notes 201"])
        let added = try await allowing.get("/api/items/catalog/notes", method: .POST, headers: [json, ("Authorization", "Bearer \(allowing.actionToken)")],
                                           body: #"{"title":"buy oat milk"}"#)
        #expect(try JSONValue.parse(added.body)["state"] == .string("confirmed"), "\(added.body)")
        #expect(await rig.upstream.server.appliedWrites.count == 2)
        #expect(id > 0)
        try await allowing.stop()
        await rig.upstream.stop()
    }
}
