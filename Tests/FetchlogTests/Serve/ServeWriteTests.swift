import Foundation
import NIOHTTP1
import SampleUpstream
import Testing
@testable import FetchlogCore

/// The offline writes through `fetchlog serve` (issues 26 and 27): `GET /api/pending` is
/// `pending --format json`, and the write routes are actions (the action token) that run
/// `item add|set|delete`, `push` and `pending retry|discard`'s own code, against the sample
/// upstream's writable `/catalog/notes`.
@Suite(.serialized) struct ServeWriteTests {
    static let json = ("Content-Type", "application/json")

    /// The notes manifest defined and fetched, and a server over the store sending to `upstream`.
    static func rig(_ name: String) async throws -> ManifestCLIRig {
        let rig = try await ManifestCLIRig.start(name, manifest: OfflineWritesTests.manifest)
        #expect(try await rig.fetch(["notes"]).status == 0)
        return rig
    }

    static func serve(_ store: String, upstream: String) async throws -> ServeProcess {
        try await ServeProcess(store: store, arguments: ["--upstream", upstream, "--retries", "0"], readsActionToken: true)
    }

    static func cli(_ store: String, _ words: [String]) async throws -> CommandResult {
        try await runFetchlog(["--store", store] + words)
    }

    /// The log's last event as `log tail 1` shows it: unchanged when nothing was recorded.
    static func lastEvent(_ store: String) async throws -> String {
        try await cli(store, ["log", "tail", "1", "--format", "json"]).stdout
    }

    @Test func theWriteRoutesNeedTheActionTokenAndRecordNothingWithoutIt() async throws {
        let rig = try await Self.rig("serve-writes-token")
        let server = try await Self.serve(rig.store, upstream: rig.upstream.base)
        let before = try await Self.lastEvent(rig.store)
        let missing = #"{"error":"an action needs the action token: send Authorization: Bearer TOKEN (the server's --token, or the one the page at / holds)","exit":64}"# + "\n"
        let requests: [(HTTPMethod, String, String?)] = [
            (.POST, "/api/items/catalog/notes", #"{"title":"buy bread"}"#), (.PATCH, "/api/items/catalog/notes/1", #"{"done":true}"#),
            (.PUT, "/api/items/catalog/notes/1", #"{"title":"buy oat milk"}"#), (.DELETE, "/api/items/catalog/notes/2", nil),
            (.POST, "/api/push", nil), (.POST, "/api/pending/5/retry", #"{"force":true}"#), (.POST, "/api/pending/5/discard", nil),
        ]
        for (method, path, body) in requests {
            let without = try await server.get(path, method: method, headers: [Self.json], body: body)
            #expect(without.status == 401, "\(method) \(path)")
            #expect(without.body == missing, "\(method) \(path)")
            let wrong = try await server.get(path, method: method, headers: [Self.json, ("Authorization", "Bearer nope")], body: body)
            #expect(wrong.status == 401 && wrong.body == #"{"error":"wrong token","exit":64}"# + "\n", "\(method) \(path): \(wrong.body)")
            let foreign = try await server.get(path, method: method, headers: [Self.json, ("Authorization", "Bearer \(server.actionToken)"), ("Origin", "http://evil.example")],
                                               body: body)
            #expect(foreign.status == 403, "\(method) \(path): \(foreign.body)")
        }
        // Nothing recorded, nothing sent.
        #expect(try await Self.lastEvent(rig.store) == before)
        #expect(try await server.get("/api/pending").body == "[]\n")
        #expect(await rig.upstream.server.appliedWrites.isEmpty)

        // With the token: the command's answer (sent at once, confirmed, the server's key).
        let added = try await server.get("/api/items/catalog/notes", method: .POST, headers: [Self.json, ("Authorization", "Bearer \(server.actionToken)")],
                                         body: #"{"title":"buy bread","priority":5}"#)
        #expect(added.status == 200, "\(added.body)")
        let answer = try JSONValue.parse(added.body)
        let bread = try #require(answer["mutation"]?.intValue)
        #expect(answer["state"] == .string("confirmed") && answer["key"] == .string("4"), "\(added.body)")
        #expect(answer["note"] == .string("sent: mutation \(bread) (create notes 4): POST /notes: confirmed 201 — key 4"))
        #expect(await rig.upstream.server.notes[4] == #"{"id":4,"title":"buy bread","done":false,"priority":5,"version":1}"#)
        try await server.stop()
        await rig.stop()
    }

    @Test func aChangeMadeWhileTheUpstreamIsDownIsPendingThenPushedWhenItIsBack() async throws {
        let rig = try await Self.rig("serve-writes-down")
        // An upstream that is down: a port nothing listens on any more.
        let gone = try await CatalogUpstream.start()
        let down = gone.base
        await gone.stop()
        let offline = try await Self.serve(rig.store, upstream: down)
        func act(_ server: ServeProcess, _ method: HTTPMethod, _ path: String, _ body: String? = nil) async throws -> JSONValue {
            let answer = try await server.get(path, method: method, headers: [Self.json, ("Authorization", "Bearer \(server.actionToken)")], body: body)
            #expect(answer.status == 200, "\(method) \(path): \(answer.body)")
            return try JSONValue.parse(answer.body)
        }
        let added = try await act(offline, .POST, "/api/items/catalog/notes", #"{"title":"buy bread","priority":5}"#)
        let bread = try #require(added["mutation"]?.intValue)
        #expect(added["state"] == .string("failed") && added["key"] == .string("local:\(bread)"), "\(added)")
        let note = added["note"]?.stringValue ?? ""
        #expect(note.hasPrefix("pending: mutation \(bread) (create notes local:\(bread)): POST /notes: failed — "), "\(note)")
        #expect(note.hasSuffix("; push, the next fetch of catalog notes or the shell when online sends it"), "\(note)")
        let change = try #require(try await act(offline, .PATCH, "/api/items/catalog/notes/1", #"{"done":true}"#)["mutation"]?.intValue)
        let delete = try #require(try await act(offline, .DELETE, "/api/items/catalog/notes/2")["mutation"]?.intValue)

        // GET /api/pending is `pending --format json`, byte for byte.
        let pending = try await offline.get("/api/pending")
        let printed = try await Self.cli(rig.store, ["pending", "--format", "json"])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(pending.status == 200)
        #expect(pending.body == printed.stdout)
        #expect(try JSONValue.parse(pending.body).arrayValue?.map { "\($0["id"]?.intValue ?? 0) \($0["op"]?.stringValue ?? "")" }
                == ["\(bread) create", "\(change) update", "\(delete) delete"])
        #expect(await rig.upstream.server.appliedWrites.isEmpty)
        try await offline.stop()

        // The upstream is back (a server that reaches it, over the same store): push sends each once.
        let online = try await Self.serve(rig.store, upstream: rig.upstream.base)
        let pushed = try await act(online, .POST, "/api/push")
        #expect(pushed["confirmed"] == .array([.number(bread), .number(change), .number(delete)]), "\(pushed)")
        #expect(pushed["failed"] == .array([]) && pushed["held"] == .array([]))
        #expect(await rig.upstream.server.notes == [
            1: #"{"id":1,"title":"buy milk","done":true,"priority":2,"version":2}"#,
            3: #"{"id":3,"title":"write the report","done":false,"priority":4,"version":1}"#,
            4: #"{"id":4,"title":"buy bread","done":false,"priority":5,"version":1}"#,
        ])
        #expect(await rig.upstream.server.appliedWrites.count == 3)
        #expect(try await online.get("/api/pending").body == "[]\n")
        #expect(try await Self.cli(rig.store, ["pending", "--format", "json"]).stdout == "[]\n")
        try await online.stop()
        await rig.stop()
    }

    @Test func aWriteTheCommandRefusesIsRefusedWithItsMessageAndRecordsNothing() async throws {
        let rig = try await Self.rig("serve-writes-bad")
        let server = try await Self.serve(rig.store, upstream: rig.upstream.base)
        let token = ("Authorization", "Bearer \(server.actionToken)")
        let before = try await Self.lastEvent(rig.store)
        // The same mistake on the command line: its message and exit status are the API's.
        let file = rig.dir.sub("bad.json")
        try #"{"titel":"bread"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let printed = try await Self.cli(rig.store, ["item", "add", "catalog", "notes", "--json", file, "--offline"])
        #expect(printed.status == 1)
        let unknown = try await server.get("/api/items/catalog/notes", method: .POST, headers: [Self.json, token], body: #"{"titel":"bread"}"#)
        #expect(unknown.status == 400)
        #expect(unknown.body == ServeQueryTests.errorBody(printed))
        #expect(unknown.body == #"{"error":"notes has no field 'titel' (did you mean 'title'?): its fields are done, id, priority, title, version","exit":1}"# + "\n")
        let deleted = try await Self.cli(rig.store, ["item", "delete", "catalog", "notes", "99", "--offline"])
        let missing = try await server.get("/api/items/catalog/notes/99", method: .DELETE, headers: [token])
        #expect(missing.status == 400)
        #expect(missing.body == ServeQueryTests.errorBody(deleted))
        #expect(missing.body.hasPrefix(#"{"error":"no notes item with id 99 is held: items catalog notes lists them"#), "\(missing.body)")
        // A source, or a manifest's resource, that is not there: 404, the command's words.
        let noSource = try await server.get("/api/items/nope/notes", method: .POST, headers: [Self.json, token], body: #"{"title":"x"}"#)
        #expect(noSource.status == 404)
        #expect(try JSONValue.parse(noSource.body)["error"]?.stringValue?.hasPrefix("no source 'nope' is defined by a manifest or a plug-in") == true, "\(noSource.body)")
        let noResource = try await server.get("/api/items/catalog/nope/1", method: .DELETE, headers: [token])
        #expect(noResource.status == 404)
        #expect(try JSONValue.parse(noResource.body)["error"]?.stringValue?.hasPrefix("catalog has no resource 'nope'") == true, "\(noResource.body)")
        // Bodies that are not an item's fields.
        let notObject = try await server.get("/api/items/catalog/notes", method: .POST, headers: [Self.json, token], body: "[1]")
        #expect(notObject.status == 400)
        #expect(notObject.body == #"{"error":"the body must be one JSON object of fields: {\"title\": \"buy bread\"}","exit":64}"# + "\n")
        let noBody = try await server.get("/api/items/catalog/notes/1", method: .PATCH, headers: [Self.json, token])
        #expect(noBody.status == 400)
        let asForm = try await server.get("/api/items/catalog/notes", method: .POST, headers: [("Content-Type", "text/plain"), token], body: #"{"title":"x"}"#)
        #expect(asForm.status == 415)
        // No event, nothing pending, nothing sent.
        #expect(try await Self.lastEvent(rig.store) == before)
        #expect(try await server.get("/api/pending").body == "[]\n")
        #expect(await rig.upstream.server.appliedWrites.isEmpty)
        try await server.stop()
        await rig.stop()
    }

    @Test func retryAndDiscardRoutesDoWhatTheCommandsDo() async throws {
        let rig = try await Self.rig("serve-writes-retry")
        let server = try await Self.serve(rig.store, upstream: rig.upstream.base)
        let token = ("Authorization", "Bearer \(server.actionToken)")
        func act(_ method: HTTPMethod, _ path: String, _ body: String? = nil) async throws -> ServeProcess.Answer {
            try await server.get(path, method: method, headers: [Self.json, token], body: body)
        }
        // Two changes the server refuses: a title already taken (409), a priority out of range (422).
        let taken = try JSONValue.parse(try await act(.POST, "/api/items/catalog/notes", #"{"title":"buy milk"}"#).body)
        let takenID = try #require(taken["mutation"]?.intValue)
        #expect(taken["state"] == .string("rejected"), "\(taken)")
        let invalid = try JSONValue.parse(try await act(.PATCH, "/api/items/catalog/notes/2", #"{"priority":9}"#).body)
        let invalidID = try #require(invalid["mutation"]?.intValue)
        #expect(invalid["state"] == .string("rejected"), "\(invalid)")

        // Retry: queued again, as `pending retry ID` says.
        let retried = try await act(.POST, "/api/pending/\(takenID)/retry", #"{"force":false}"#)
        #expect(retried.status == 200, "\(retried.body)")
        #expect(try JSONValue.parse(retried.body) == .object([("force", .bool(false)), ("mutation", .number(takenID)), ("state", .string("queued"))]))
        let pending = try await server.get("/api/pending")
        #expect(pending.body == (try await Self.cli(rig.store, ["pending", "--format", "json"])).stdout)
        #expect(try JSONValue.parse(pending.body).arrayValue?.map { "\($0["id"]?.intValue ?? 0) \($0["state"]?.stringValue ?? "")" }
                == ["\(takenID) queued", "\(invalidID) rejected"])
        // Discard: gone.
        let discarded = try await act(.POST, "/api/pending/\(invalidID)/discard")
        #expect(discarded.status == 200, "\(discarded.body)")
        #expect(try JSONValue.parse(discarded.body) == .object([("mutation", .number(invalidID)), ("state", .string("discarded"))]))
        // Not waiting: 404 with the command's message and exit status.
        let printed = try await Self.cli(rig.store, ["pending", "discard", "999"])
        let notWaiting = try await act(.POST, "/api/pending/999/discard")
        #expect(notWaiting.status == 404)
        #expect(notWaiting.body == ServeQueryTests.errorBody(printed))
        #expect(notWaiting.body == #"{"error":"no mutation 999 is waiting: waiting are \#(takenID)","exit":1}"# + "\n")
        let retryMissing = try await act(.POST, "/api/pending/999/retry")
        #expect(retryMissing.status == 404 && retryMissing.body == notWaiting.body)
        // Not an id, not a boolean: refused before anything is asked.
        #expect(try await act(.POST, "/api/pending/abc/retry").status == 400)
        let notBool = try await act(.POST, "/api/pending/\(takenID)/retry", #"{"force":"yes"}"#)
        #expect(notBool.status == 400 && notBool.body == #"{"error":"force must be true or false: {\"force\": true}","exit":64}"# + "\n")

        // The retried create goes out with the push, and is refused again (the title is still taken).
        let pushed = try JSONValue.parse(try await act(.POST, "/api/push").body)
        #expect(pushed["rejected"] == .array([.number(takenID)]) && pushed["confirmed"] == .array([]), "\(pushed)")
        #expect(await rig.upstream.server.appliedWrites.isEmpty)
        #expect(try JSONValue.parse(try await server.get("/api/pending").body).arrayValue?.compactMap { $0["id"]?.intValue } == [takenID])
        try await server.stop()
        await rig.stop()
    }

    @Test func aConflictIsRetriedOnlyWithForceAndAReplaceGoesBackToTheDefaults() async throws {
        let rig = try await Self.rig("serve-writes-conflict")
        let server = try await Self.serve(rig.store, upstream: rig.upstream.base)
        let token = ("Authorization", "Bearer \(server.actionToken)")
        func act(_ method: HTTPMethod, _ path: String, _ body: String? = nil) async throws -> ServeProcess.Answer {
            try await server.get(path, method: method, headers: [Self.json, token], body: body)
        }
        // Confirmed: the answer's ETag is held for note 1.
        let first = try JSONValue.parse(try await act(.PATCH, "/api/items/catalog/notes/1", #"{"priority":5}"#).body)
        #expect(first["state"] == .string("confirmed") && first["op"] == .string("update"), "\(first)")
        // Another client changes note 1 on the server.
        let other = try await server.get("/catalog/notes/1", method: .PATCH, headers: [Self.json], body: #"{"title":"buy oat milk"}"#, via: rig.upstream.base)
        #expect(other.status == 200, "\(other.body)")
        // The next change is sent with the old ETag: 412, a conflict that waits for the user.
        let mine = try JSONValue.parse(try await act(.PATCH, "/api/items/catalog/notes/1", #"{"done":true}"#).body)
        let id = try #require(mine["mutation"]?.intValue)
        #expect(mine["state"] == .string("conflict"), "\(mine)")
        // A plain retry is refused as `pending retry ID` refuses it (409: it waits on a choice), and records nothing.
        let before = try await Self.lastEvent(rig.store)
        let printed = try await Self.cli(rig.store, ["pending", "retry", String(id)])
        #expect(printed.status == 1)
        let plain = try await act(.POST, "/api/pending/\(id)/retry")
        #expect(plain.status == 409)
        #expect(plain.body == ServeQueryTests.errorBody(printed))
        #expect(plain.body == #"{"error":"mutation \#(id) conflicts with the server's version (changed since): pending retry \#(id) --force to send yours over it, or discard it","exit":1}"# + "\n")
        #expect(try await Self.lastEvent(rig.store) == before)
        // With force: queued, and the push sends it over the server's version.
        let forced = try await act(.POST, "/api/pending/\(id)/retry", #"{"force":true}"#)
        #expect(try JSONValue.parse(forced.body) == .object([("force", .bool(true)), ("mutation", .number(id)), ("state", .string("queued"))]))
        let pushed = try JSONValue.parse(try await act(.POST, "/api/push").body)
        #expect(pushed["confirmed"] == .array([.number(id)]), "\(pushed)")
        #expect(await rig.upstream.server.notes[1] == #"{"id":1,"title":"buy oat milk","done":true,"priority":5,"version":4}"#)
        // PUT replaces: the fields not given go back to the server's defaults (priority 3).
        let replaced = try JSONValue.parse(try await act(.PUT, "/api/items/catalog/notes/3", #"{"title":"write the report","done":true}"#).body)
        #expect(replaced["op"] == .string("replace") && replaced["state"] == .string("confirmed"), "\(replaced)")
        #expect(await rig.upstream.server.notes[3] == #"{"id":3,"title":"write the report","done":true,"priority":3,"version":2}"#)
        #expect(try await server.get("/api/pending").body == "[]\n")
        try await server.stop()
        await rig.stop()
    }
}
