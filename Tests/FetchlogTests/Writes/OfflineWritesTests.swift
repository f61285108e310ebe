import AsyncHTTPClient
import FetchlogCore
import Foundation
import NIOCore
import SampleUpstream
import Testing

/// Issue 26: offline writes against the sample upstream's writable notes — declared as
/// data in the manifest, recorded as events at once, shown pending, sent exactly once.
@Suite struct OfflineWritesTests {
    static let writes = #""writes":{"create":{"method":"POST","path":"notes"},"update":{"method":"PATCH","path":"notes/{id}"},"replace":{"method":"PUT","path":"/notes/{id}"},"delete":{"method":"DELETE","path":"notes/{id}"}}"#
    static let notes = #"{"name":"notes","primary_key":"id","endpoint":{"path":"notes","data_selector":"data","paginator":"single_page"},"fetchlog":{"# + writes + "}}"
    /// A resource without writes beside it.
    static let pages = #"{"name":"pages","primary_key":"id","endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}}"#
    static let manifest = #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":["# + notes + "," + pages + "]}"

    static func parse(_ resources: String) throws -> RestManifest {
        try RestManifest(json: try JSONValue.parse(#"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":["# + resources + "]}"))
    }

    // MARK: (1) declared as data

    @Test func writesAreReadFromTheFetchlogBlockAndCheckedWithKeyPaths() throws {
        let writes = try #require(try Self.parse(Self.notes).resource("notes")?.writes)
        #expect(writes.operations == [.create, .update, .replace, .delete])
        #expect(writes.routes[.create] == RestWrites.Route(method: "POST", path: "/notes", itemPath: []))
        #expect(writes.routes[.replace] == RestWrites.Route(method: "PUT", path: "/notes/{id}", itemPath: []))
        #expect(writes.routes[.delete] == RestWrites.Route(method: "DELETE", path: "/notes/{id}", itemPath: []))
        #expect(try Self.parse(Self.pages).resource("pages")?.writes == nil)

        func refusal(_ writes: String, primaryKey: String = #""primary_key":"id","#) -> String {
            let resource = #"{"name":"notes",\#(primaryKey)"endpoint":{"path":"notes","data_selector":"data"},"fetchlog":{"writes":\#(writes)}}"#
            do {
                _ = try Self.parse(resource)
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal(#"{"update":{"method":"PATCH","path":"notes/{nid}"}}"#)
                == "resources[0].fetchlog.writes.update.path: {nid} is not a field of the primary_key (id)")
        #expect(refusal(#"{"delete":{"method":"GET","path":"notes/{id}"}}"#)
                == #"resources[0].fetchlog.writes.delete.method: "GET" is not a method for delete: use DELETE or POST"#)
        #expect(refusal(#"{"upsert":{"method":"PUT","path":"notes/{id}"}}"#)
                == "resources[0].fetchlog.writes.upsert: unknown key; allowed: create, update, replace, delete, idempotency_key")
        #expect(refusal(#"{"create":{"method":"POST","path":"notes/{id}"}}"#)
                == "resources[0].fetchlog.writes.create.path: {id}: a create's path names no item (the server names the new one)")
        #expect(refusal(#"{"update":{"method":"PATCH","path":"notes/{id}"}}"#, primaryKey: "")
                == "resources[0].fetchlog.writes.update: update addresses an item by its key: give the resource a primary_key")
        #expect(refusal(#"{"update":{"path":"notes/{id}"}}"#) == "resources[0].fetchlog.writes.update.method: is required")
        #expect(refusal("{}") == "resources[0].fetchlog.writes: declares no write: give one or more of create, update, replace, delete")
    }

    // MARK: The library

    /// A store of its own over `upstream`, the manifest defined and the notes fetched.
    static func openStore(_ dir: TemporaryDirectory, _ name: String, upstream: String, clock: (any WallClock)? = nil) async throws -> Store {
        var configuration = Store.Configuration()
        if let clock { configuration.clock = clock }
        configuration.fetching.upstream = Upstream(base: upstream)
        configuration.fetching.retry.retries = 0
        let store = try await Store.open(at: URL(filePath: dir.sub(name)), sources: SourceRegistry([]), configuration: configuration)
        try await store.define(try RestManifest(json: try JSONValue.parse(Self.manifest)))
        _ = try await store.fetchManifestResource(source: "catalog", resource: "notes")
        return store
    }

    static func item(_ store: Store, _ key: String, confirmedOnly: Bool = false) -> JSONValue? {
        ItemsView(state: store.snapshot.state, source: "catalog", resource: "notes", confirmedOnly: confirmedOnly)?.item(key: key)
    }

    static func note(_ json: String) throws -> JSONValue { try JSONValue.parse(json) }

    @Test func aConflictShowsBothVersionsAndRetryForceAndDiscardDoWhatTheySay() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-conflict")
        let first = try await Self.openStore(dir, "first", upstream: upstream.base)
        let second = try await Self.openStore(dir, "second", upstream: upstream.base)

        // The first client's update is confirmed: the answer's ETag is held for note 1.
        try await first.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("priority", .number(5))])
        #expect(try await first.push().confirmed.count == 1)
        #expect(Self.item(first, "1")?.canonicalText() == (try Self.note(#"{"id":1,"title":"buy milk","done":false,"priority":5,"version":2}"#)).canonicalText())
        // A second client changes note 1 on the server.
        try await second.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("title", .string("buy oat milk"))])
        #expect(try await second.push().confirmed.count == 1)
        let server = #"{"id":1,"title":"buy oat milk","done":false,"priority":5,"version":3}"#
        #expect(await upstream.server.notes[1] == server)

        // The first client's next update is sent with its old ETag: 412.
        let mine = try await first.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("done", .bool(true))])
        let report = try await first.push()
        #expect(report.conflicts == [mine.seq])
        let waiting = try #require(first.pendingMutations.first)
        #expect(waiting.state == .conflict && waiting.lastStatus == 412)
        #expect(waiting.current?.canonicalText() == (try Self.note(server)).canonicalText())
        // Both versions, side by side: the user's change marked, the server's beside it.
        let shown = try #require(Self.item(first, "1"))
        #expect(shown["done"] == .bool(true))
        #expect(shown["pending"]?.canonicalText() == JSONValue.object([("mutations", .array([.number(mine.seq)])), ("state", .string("conflict")), ("server", try Self.note(server))]).canonicalText())
        #expect(Self.item(first, "1", confirmedOnly: true)?.canonicalText() == (try Self.note(server)).canonicalText())

        // A plain retry is refused (it would only conflict again); --force sends it over.
        await #expect(throws: WriteError.self) { try await first.retryMutation(mine.seq) }
        try await first.retryMutation(mine.seq, force: true)
        #expect(try await first.push().confirmed == [mine.seq])
        let forced = #"{"id":1,"title":"buy oat milk","done":true,"priority":5,"version":4}"#
        #expect(await upstream.server.notes[1] == forced)
        #expect(first.pendingMutations.isEmpty)
        #expect(Self.item(first, "1")?.canonicalText() == (try Self.note(forced)).canonicalText())

        // Again, and this time discarded: the server's version stays, and so does the view.
        _ = try await second.fetchManifestResource(source: "catalog", resource: "notes") // note 1 as it is now
        try await second.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("priority", .number(2))])
        try await second.push()
        let theirs = #"{"id":1,"title":"buy oat milk","done":true,"priority":2,"version":5}"#
        #expect(await upstream.server.notes[1] == theirs)
        let dropped = try await first.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("title", .string("mine"))])
        #expect(try await first.push().conflicts == [dropped.seq])
        try await first.discardMutation(dropped.seq)
        #expect(first.pendingMutations.isEmpty)
        #expect(Self.item(first, "1")?.canonicalText() == (try Self.note(theirs)).canonicalText())
        #expect(await upstream.server.notes[1] == theirs)
        #expect(await upstream.server.appliedWrites.map(\.status) == [200, 200, 200, 200])
        await first.close()
        await second.close()
        await upstream.stop()
    }

    @Test func aLostAnswerIsSentAgainWithTheSameKeyAndAppliedOnce() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-lost")
        let store = try await Self.openStore(dir, "store", upstream: upstream.base)
        await upstream.server.setFaults(try FaultSpec.parse("drop-after-write@catalog/notes"))
        let created = try await store.write(.create, source: "catalog", resource: "notes", fields: [("title", .string("water the plants")), ("priority", .number(4))])
        let lost = try await store.push()
        #expect(lost.failed == [created.seq])
        // Applied upstream, the answer lost: still pending, in doubt, its key recorded.
        let key = "\(store.log.metadata.storeID):\(created.seq)"
        #expect(await upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.key ?? "-") \($0.status)" } == ["POST /catalog/notes \(key) 201"])
        let waiting = try #require(store.pendingMutations.first)
        #expect(waiting.state == .failed && waiting.attempts == 1 && waiting.idempotencyKey == key)
        #expect(Self.item(store, "local:\(created.seq)")?["pending"]?["state"] == .string("failed"))

        await upstream.server.clearFaults()
        #expect(try await store.push().confirmed == [created.seq])
        // The server answered the repeated key with its stored answer: applied once.
        #expect(await upstream.server.appliedWrites.count == 1)
        #expect(await upstream.server.notes[4] == #"{"id":4,"title":"water the plants","done":false,"priority":4,"version":1}"#)
        #expect(store.pendingMutations.isEmpty)
        #expect(Self.item(store, "4")?.canonicalText() == (try Self.note(#"{"id":4,"title":"water the plants","done":false,"priority":4,"version":1}"#)).canonicalText())
        // The local key still names the item: a later change goes to the server's.
        try await store.write(.update, source: "catalog", resource: "notes", key: "local:\(created.seq)", fields: [("done", .bool(true))])
        #expect(try await store.push().confirmed.count == 1)
        #expect(await upstream.server.notes[4] == #"{"id":4,"title":"water the plants","done":true,"priority":4,"version":2}"#)
        // The log holds every attempt and answer, and a fresh fold agrees with the live state.
        let labels = try store.log.events(from: 1).filter { $0.label.hasPrefix("write.") }.map(\.label)
        #expect(labels == ["write.mutation", "write.sending", "write.answered", "write.sending", "write.answered",
                           "write.mutation", "write.sending", "write.answered"])
        let replayed = LogReducer.fold(try store.log.events(from: 1), sources: SourceRegistry([]))
        #expect(replayed.writes == store.durableState.writes)
        await store.close()
        await upstream.stop()
    }

    @Test func aRejectedWriteKeepsTheServersMessageAndWaitsForTheUser() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-rejected")
        let store = try await Self.openStore(dir, "store", upstream: upstream.base)
        let taken = try await store.write(.create, source: "catalog", resource: "notes", fields: [("title", .string("buy milk"))])
        let invalid = try await store.write(.update, source: "catalog", resource: "notes", key: "2", fields: [("priority", .number(9))])
        let later = try await store.write(.update, source: "catalog", resource: "notes", key: "2", fields: [("done", .bool(false))])
        let report = try await store.push()
        #expect(report.rejected == [taken.seq, invalid.seq])
        #expect(report.held == [later.seq]) // an earlier change of note 2 waits for the user
        let waiting = store.pendingMutations
        #expect(waiting.map(\.state) == [.rejected, .rejected, .queued])
        #expect(waiting.first?.lastStatus == 409)
        #expect(waiting.first?.lastMessage == #"note 1 is already titled "buy milk": titles are unique"#)
        #expect(waiting.dropFirst().first?.lastStatus == 422)
        #expect(waiting.dropFirst().first?.lastMessage == "priority: an integer from 1 to 5")
        // A rejected change is not shown as if it would happen; the one behind it is.
        #expect(Self.item(store, "local:\(taken.seq)") == nil)
        #expect(Self.item(store, "2")?.canonicalText()
                == #"{"done":false,"id":2,"pending":{"mutations":[\#(later.seq)],"state":"queued"},"priority":1,"title":"call the plumber","version":1}"#)

        // Discarded, the change behind it goes out.
        try await store.discardMutation(invalid.seq)
        let second = try await store.push()
        #expect(second.confirmed == [later.seq] && second.held == [taken.seq])
        #expect(await upstream.server.notes[2] == #"{"id":2,"title":"call the plumber","done":false,"priority":1,"version":2}"#)
        // A retry is a new request with a new key (the server stored its refusal under the
        // first): the title is still taken, so it is refused again, and nothing was applied.
        try await store.retryMutation(taken.seq)
        let id = store.log.metadata.storeID
        #expect(store.pendingMutations.first?.idempotencyKey.hasPrefix("\(id):\(taken.seq)-r") == true)
        #expect(try await store.push().rejected == [taken.seq])
        #expect(await upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.status)" } == ["PATCH /catalog/notes/2 200"])
        await store.close()
        await upstream.stop()
    }

    @Test func theWritesSurviveACheckpointAndAReopen() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-checkpoint")
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: upstream.base)
        let store = try await Self.openStore(dir, "store", upstream: upstream.base)
        let created = try await store.write(.create, source: "catalog", resource: "notes", fields: [("title", .string("a new note"))])
        try await store.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("title", .string("buy bread"))])
        #expect(try await store.push().confirmed.count == 2)
        try await store.write(.update, source: "catalog", resource: "notes", key: "local:\(created.seq)", fields: [("done", .bool(true))])
        try await store.write(.delete, source: "catalog", resource: "notes", key: "3")
        let writes = store.durableState.writes
        #expect(writes.mutations.count == 2 && writes.confirmed.count == 2 && writes.serverKeys.count == 1)
        let items = ItemsView(state: store.snapshot.state, source: "catalog", resource: "notes")?.items
        try await store.saveCheckpoint()
        await store.close()
        store.log.close()

        let reopened = try await Store.open(at: URL(filePath: dir.sub("store")), sources: SourceRegistry([]), configuration: configuration)
        guard case .checkpoint(_, let tail) = reopened.origin else { Issue.record("opened from \(reopened.origin), not the checkpoint"); return }
        #expect(tail == 0)
        #expect(reopened.durableState.writes == writes)
        #expect(ItemsView(state: reopened.snapshot.state, source: "catalog", resource: "notes")?.items == items)
        #expect(try await reopened.push().confirmed.count == 2)
        #expect(await upstream.server.notes.keys.sorted() == [1, 2, 4])
        await reopened.close()
        await upstream.stop()
    }

    /// The window a kill -9 can leave: the attempt recorded, the request sent and applied,
    /// the answer never recorded. The next push sends it again with the same key.
    @Test func aMutationSentBeforeACrashIsSentAgainWithTheSameKeyAndAppliedOnce() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-doubt")
        let store = try await Self.openStore(dir, "store", upstream: upstream.base)
        let created = try await store.write(.create, source: "catalog", resource: "notes", fields: [("title", .string("sent before the crash"))])
        // What push does before sending, then the request itself, from "the process that died".
        try await store.sendIntent(source: "catalog", label: WriteEvents.sending, body: .object([
            ("mutation", .number(created.seq)), ("attempt", .number(1)), ("method", .string("POST")), ("path", .string("/notes")),
            ("idempotencyKey", .string(created.idempotencyKey)), ("ifMatch", .null),
        ]))
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        var request = HTTPClientRequest(url: upstream.base + "/catalog/notes")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Idempotency-Key", value: created.idempotencyKey)
        request.body = .bytes(ByteBuffer(string: created.fields.canonicalText()))
        let direct = try await client.execute(request, timeout: .seconds(30))
        try await client.shutdown()
        #expect(direct.status.code == 201)
        #expect(store.pendingMutations.map(\.state) == [.sending])

        #expect(try await store.push().confirmed == [created.seq])
        #expect(await upstream.server.appliedWrites.count == 1)
        #expect(await upstream.server.requestLog.filter { $0.method == "POST" }.count == 2)
        #expect(Self.item(store, "4")?["title"] == .string("sent before the crash"))
        #expect(store.pendingMutations.isEmpty)
        await store.close()
        await upstream.stop()
    }

    @Test func automaticSendingWaitsForRetryAfterWhileAPushSendsAtOnce() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-retry-after")
        let clock = FixedClock(Timestamp(milliseconds: 1_800_000_000_000))
        let store = try await Self.openStore(dir, "store", upstream: upstream.base, clock: clock)
        let change = try await store.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("priority", .number(3))])
        await upstream.server.setFaults(try FaultSpec.parse("status=503:120@catalog/notes/1"))
        #expect(try await store.push().failed == [change.seq])
        #expect(store.pendingMutations.first?.lastMessage == "injected fault (Retry-After 120)")
        await upstream.server.clearFaults()
        // A fetch sends the resource's changes first, but not before the server said.
        _ = try await store.fetchManifestResource(source: "catalog", resource: "notes")
        #expect(store.pendingMutations.map(\.state) == [.failed])
        #expect(await upstream.server.appliedWrites.isEmpty)
        clock.advance(milliseconds: 120_000)
        _ = try await store.fetchManifestResource(source: "catalog", resource: "notes")
        #expect(store.pendingMutations.isEmpty)
        #expect(await upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.status)" } == ["PATCH /catalog/notes/1 200"])
        // Asked for, a failed change goes at once: Retry-After binds automatic sending only.
        let again = try await store.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("priority", .number(4))])
        await upstream.server.setFaults(try FaultSpec.parse("status=503:120@catalog/notes/1"))
        #expect(try await store.push().failed == [again.seq])
        await upstream.server.clearFaults()
        #expect(try await store.push().confirmed == [again.seq])
        await store.close()
        await upstream.stop()
    }

    @Test func aFetchSendsTheResourcesPendingChangesFirst() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-fetch")
        let store = try await Self.openStore(dir, "store", upstream: upstream.base)
        try await store.write(.update, source: "catalog", resource: "notes", key: "3", fields: [("done", .bool(true))])
        _ = try await store.fetchManifestResource(source: "catalog", resource: "notes")
        #expect(await upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }.map { "\($0.method) \($0.path) \($0.status)" }
                == ["GET /catalog/notes 200", "PATCH /catalog/notes/3 200", "GET /catalog/notes 200"])
        #expect(store.pendingMutations.isEmpty)
        // The page fetched after the answer is the newest word: it shows the change, unmarked.
        #expect(Self.item(store, "3")?.canonicalText() == #"{"done":true,"id":3,"priority":4,"title":"write the report","version":2}"#)
        await store.close()
        await upstream.stop()
    }

    // MARK: The command line

    @Test func badInputIsRefusedWithWhatToDoAndRecordsNothing() async throws {
        let rig = try await ManifestCLIRig.start("writes-bad", manifest: Self.manifest)
        #expect(try await rig.fetch(["notes"]).status == 0)
        func lastSeq() async throws -> String {
            try await runFetchlog(["--store", rig.store, "log", "tail", "1", "--format", "json"]).stdout
        }
        let before = try await lastSeq()
        let cases: [([String], String)] = [
            (["item", "add", "catalog", "notes", "titel=bread"],
             "notes has no field 'titel' (did you mean 'title'?): its fields are done, id, priority, title, version"),
            (["item", "set", "catalog", "notes", "1", "priority=high"], "priority takes a number, not 'high'; nothing was recorded"),
            (["item", "set", "catalog", "notes", "1", "done=yes"], "done takes true or false, not 'yes'; nothing was recorded"),
            (["item", "add", "catalog", "pages", "name=x"],
             #"catalog pages declares no writes, so nothing can be sent for it: add "fetchlog": {"writes": {"create": {"method": "POST", "path": …}, …}} to the resource in the manifest"#),
            (["item", "set", "catalog", "notes", "99", "done=true"], "no notes item with id 99 is held: items catalog notes lists them"),
            (["item", "delete", "catalog", "notes", "99"], "no notes item with id 99 is held: items catalog notes lists them"),
            (["item", "set", "catalog", "notes", "1", "id=7"], "id is part of the item's key: it cannot be changed"),
            (["pending", "discard", "5"], "no mutation 5 is waiting: nothing is pending"),
        ]
        for (arguments, message) in cases {
            let result = try await runFetchlog(["--store", rig.store] + arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(try await lastSeq() == before)
        #expect(try await runFetchlog(["--store", rig.store, "pending", "--format", "json"]).stdout == "[]\n")
        await rig.stop()
    }

    @Test func aChangeIsSentAtOnceWhenTheUpstreamAnswersAndSaysPendingWhenNot() async throws {
        let rig = try await ManifestCLIRig.start("writes-at-once", manifest: Self.manifest)
        #expect(try await rig.fetch(["notes"]).status == 0)
        let gone = try await CatalogUpstream.start()
        let down = gone.base
        await gone.stop()
        func run(_ arguments: [String]) async throws -> JSONValue {
            let result = try await runFetchlog(["--store", rig.store] + arguments + ["--format", "json"])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return try JSONValue.parse(result.stdout)
        }
        // Reachable: committed, then sent at once; the answer names the server's key.
        let added = try await run(["item", "add", "catalog", "notes", "title=buy bread", "priority=5", "--upstream", rig.upstream.base])
        let bread = try #require(added["mutation"]?.intValue)
        #expect(added["state"] == .string("confirmed") && added["key"] == .string("4"))
        #expect(added["note"] == .string("sent: mutation \(bread) (create notes 4): POST /notes: confirmed 201 — key 4"))
        #expect(await rig.upstream.server.notes[4] == #"{"id":4,"title":"buy bread","done":false,"priority":5,"version":1}"#)
        // Unreachable: still exit 0, the attempt recorded, the answer says pending and what sends it.
        let set = try await run(["item", "set", "catalog", "notes", "1", "done=true", "--upstream", down])
        let change = try #require(set["mutation"]?.intValue)
        #expect(set["state"] == .string("failed"))
        let note = set["note"]?.stringValue ?? ""
        #expect(note.hasPrefix("pending: mutation \(change) (update notes 1): PATCH /notes/1: failed — "), "\(note)")
        #expect(note.hasSuffix("; push, the next fetch of catalog notes or the shell when online sends it"), "\(note)")
        // --offline never sends.
        let deleted = try await run(["item", "delete", "catalog", "notes", "2", "--offline", "--upstream", rig.upstream.base])
        let delete = try #require(deleted["mutation"]?.intValue)
        #expect(deleted["state"] == .string("queued"))
        #expect(deleted["note"] == .string("pending: mutation \(delete) (delete notes 2); push sends it"))
        #expect(await rig.upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.status)" } == ["POST /catalog/notes 201"])
        let pending = try await run(["pending"])
        #expect(pending.arrayValue?.map { "\($0["id"]?.intValue ?? 0) \($0["state"]?.stringValue ?? "") \($0["attempts"]?.intValue ?? -1)" }
                == ["\(change) failed 1", "\(delete) queued 0"])
        // The upstream answers again: push sends both, each once.
        let pushed = try await run(["--upstream", rig.upstream.base, "push"])
        #expect(pushed["confirmed"] == .array([.number(change), .number(delete)]))
        #expect(await rig.upstream.server.notes == [
            1: #"{"id":1,"title":"buy milk","done":true,"priority":2,"version":2}"#,
            3: #"{"id":3,"title":"write the report","done":false,"priority":4,"version":1}"#,
            4: #"{"id":4,"title":"buy bread","done":false,"priority":5,"version":1}"#,
        ])
        #expect(await rig.upstream.server.appliedWrites.count == 3)
        await rig.stop()
    }

    @Test func onlyTheStoreThatMadeAMutationSendsIt() async throws {
        let rig = try await ManifestCLIRig.start("writes-origin", manifest: Self.manifest)
        #expect(try await rig.fetch(["notes"]).status == 0)
        func run(_ store: String, _ arguments: [String]) async throws -> CommandResult {
            let result = try await runFetchlog(["--store", store] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result
        }
        _ = try await run(rig.store, ["item", "add", "catalog", "notes", "title=made in A", "--offline"])
        let export = rig.dir.sub("a.ndjson")
        let copy = rig.dir.sub("copy")
        _ = try await run(rig.store, ["log", "export", "--out", export])
        _ = try await run(copy, ["log", "import", export])
        // The copy holds the mutation and shows it, but does not send what it did not make.
        let pending = try JSONValue.parse(try await run(copy, ["pending", "--format", "json"]).stdout)
        #expect(pending.arrayValue?.compactMap { $0["state"]?.stringValue } == ["queued"])
        let pushed = try JSONValue.parse(try await run(copy, ["--upstream", rig.upstream.base, "push", "--format", "json"]).stdout)
        #expect(pushed["confirmed"] == .array([]) && pushed["held"] == .array([]))
        #expect(await rig.upstream.server.appliedWrites.isEmpty)
        // The store that made it sends it; its answer, imported, confirms it in the copy too.
        #expect(try JSONValue.parse(try await run(rig.store, ["--upstream", rig.upstream.base, "push", "--format", "json"]).stdout)["confirmed"]?.arrayValue?.count == 1)
        #expect(await rig.upstream.server.appliedWrites.count == 1)
        _ = try await run(rig.store, ["log", "export", "--out", export])
        _ = try await run(copy, ["log", "import", export])
        #expect(try await run(copy, ["pending", "--format", "json"]).stdout == "[]\n")
        let item = try JSONValue.parse(try await run(copy, ["item", "catalog", "notes", "4", "--format", "json"]).stdout)
        #expect(item["title"] == .string("made in A"))
        await rig.stop()
    }

    @Test func anOfflineSessionIsShownPendingThenPushedOnceWhenTheUpstreamIsBack() async throws {
        let rig = try await ManifestCLIRig.start("writes-offline", manifest: Self.manifest)
        #expect(try await rig.fetch(["notes"]).status == 0)
        // An upstream that is down: a port nothing listens on any more.
        let gone = try await CatalogUpstream.start()
        let down = gone.base
        await gone.stop()
        func run(_ arguments: [String]) async throws -> CommandResult {
            let result = try await runFetchlog(["--store", rig.store] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result
        }
        func mutation(_ arguments: [String]) async throws -> Int {
            // Made offline: recorded, nothing sent (online, each would be sent at once).
            let result = try await run(arguments + ["--offline", "--format", "json"])
            return try #require(try JSONValue.parse(result.stdout)["mutation"]?.intValue)
        }
        let bread = try await mutation(["item", "add", "catalog", "notes", "title=buy bread", "priority=5"])
        _ = try await mutation(["item", "set", "catalog", "notes", "local:\(bread)", "done=true"])
        _ = try await mutation(["item", "set", "catalog", "notes", "1", "priority=1", "title=buy oat milk"])
        _ = try await mutation(["item", "delete", "catalog", "notes", "2"])
        let plants = try await mutation(["item", "add", "catalog", "notes", "title=water plants"])
        _ = try await mutation(["item", "delete", "catalog", "notes", "local:\(plants)"])
        _ = try await mutation(["item", "set", "catalog", "notes", "3", "done=true", "--replace", "title=write the report"])
        // Thirteen more, to twenty: five tasks created and each changed by its local key,
        // two of them deleted, and note 3 changed again after its replacement.
        var tasks: [Int] = []
        for number in 1 ... 5 {
            let task = try await mutation(["item", "add", "catalog", "notes", "title=task \(number)", "priority=\(number)"])
            _ = try await mutation(["item", "set", "catalog", "notes", "local:\(task)", "done=true"])
            tasks.append(task)
        }
        _ = try await mutation(["item", "delete", "catalog", "notes", "local:\(tasks[0])"])
        _ = try await mutation(["item", "delete", "catalog", "notes", "local:\(tasks[1])"])
        let again = try await mutation(["item", "set", "catalog", "notes", "3", "priority=2"])

        // Pushed while the upstream is down: nothing lost, everything still pending.
        let failed = try await run(["--upstream", down, "push", "--format", "json"])
        let report = try JSONValue.parse(failed.stdout)
        #expect(report["failed"] == .array([.number(bread)]))
        #expect(report["held"]?.arrayValue?.count == 19)
        let pending = try JSONValue.parse(try await run(["pending", "--format", "json"]).stdout)
        #expect(pending.arrayValue?.compactMap { $0["state"]?.stringValue } == ["failed"] + Array(repeating: "queued", count: 19))
        // The optimistic view: the changes at once, each changed item marked.
        let shown = try JSONValue.parse(try await run(["items", "catalog", "notes", "--format", "json"]).stdout)
        let ids = (shown.arrayValue ?? []).map { ItemsView.text($0["id"]) }
        #expect(ids == ["1", "3", "local:\(bread)"] + tasks.dropFirst(2).map { "local:\($0)" })
        #expect(shown.arrayValue?[0].canonicalText() == (try JSONValue.parse(#"{"id":1,"title":"buy oat milk","done":false,"priority":1,"version":1,"pending":{"mutations":[\#(bread + 2)],"state":"queued"}}"#).canonicalText()))
        #expect(shown.arrayValue?[1].canonicalText() == (try JSONValue.parse(#"{"id":3,"done":true,"title":"write the report","priority":2,"pending":{"mutations":[\#(plants + 2),\#(again)],"state":"queued"}}"#).canonicalText()))
        #expect(shown.arrayValue?[2].canonicalText() == (try JSONValue.parse(#"{"title":"buy bread","priority":5,"id":"local:\#(bread)","done":true,"pending":{"mutations":[\#(bread),\#(bread + 1)],"state":"failed"}}"#).canonicalText()))
        // In a table, the state of each changed item is the last column.
        let table = try await run(["items", "catalog", "notes"]).stdout
        #expect(table.contains("pending\n"), "\(table)")
        #expect(table.split(separator: "\n").filter { $0.hasSuffix(" queued") || $0.hasSuffix(" failed") }.count == 6, "\(table)")
        let confirmed = try JSONValue.parse(try await run(["items", "catalog", "notes", "--confirmed", "--format", "json"]).stdout)
        #expect((confirmed.arrayValue ?? []).map { ItemsView.text($0["id"]) } == ["1", "2", "3"])

        // The same view as of that point of the log (the mutation and the failed attempt's two events).
        let past = try JSONValue.parse(try await run(["export", "items/catalog/notes", "--at", String(again + 2)]).stdout)
        #expect(past["items"]?.canonicalText() == shown.canonicalText())

        // The upstream is back: one push sends all twenty, in order, each once.
        let pushed = try JSONValue.parse(try await run(["--upstream", rig.upstream.base, "push", "--format", "json"]).stdout)
        #expect(pushed["confirmed"]?.arrayValue?.count == 20, "\(pushed)")
        let expected: [Int: String] = [
            1: #"{"id":1,"title":"buy oat milk","done":false,"priority":1,"version":2}"#,
            3: #"{"id":3,"title":"write the report","done":true,"priority":2,"version":3}"#,
            4: #"{"id":4,"title":"buy bread","done":true,"priority":5,"version":2}"#,
            8: #"{"id":8,"title":"task 3","done":true,"priority":3,"version":2}"#,
            9: #"{"id":9,"title":"task 4","done":true,"priority":4,"version":2}"#,
            10: #"{"id":10,"title":"task 5","done":true,"priority":5,"version":2}"#,
        ]
        #expect(await rig.upstream.server.notes == expected)
        let applied = await rig.upstream.server.appliedWrites
        var sent: [String] = ["POST /catalog/notes 201", "PATCH /catalog/notes/4 200", "PATCH /catalog/notes/1 200", "DELETE /catalog/notes/2 204",
                              "POST /catalog/notes 201", "DELETE /catalog/notes/5 204", "PUT /catalog/notes/3 200"]
        for id in 6 ... 10 { sent += ["POST /catalog/notes 201", "PATCH /catalog/notes/\(id) 200"] }
        sent += ["DELETE /catalog/notes/6 204", "DELETE /catalog/notes/7 204", "PATCH /catalog/notes/3 200"]
        let described: [String] = applied.map { "\($0.method) \($0.path) \($0.status)" }
        #expect(described == sent)
        #expect(Set(applied.compactMap(\.key)).count == 20)
        #expect(try await run(["pending", "--format", "json"]).stdout == "[]\n")
        // The optimistic and confirmed views agree, and hold what the server holds.
        let optimistic = try await run(["items", "catalog", "notes", "--format", "json"]).stdout
        #expect(optimistic == (try await run(["items", "catalog", "notes", "--confirmed", "--format", "json"]).stdout))
        let held = (try JSONValue.parse(optimistic).arrayValue ?? []).map { $0.canonicalText() }
        #expect(held == expected.keys.sorted().map { try! JSONValue.parse(expected[$0]!).canonicalText() })
        // A replay from the log alone gives the same views.
        _ = try await run(["replay", "--verify"])
        await rig.stop()
    }
}
