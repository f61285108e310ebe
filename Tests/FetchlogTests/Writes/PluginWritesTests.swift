import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// Issue 26, item 1's second half: a plug-in declares its writes through the plug-in API
/// (`SourcePlugin.writes(for:)`, `NotesPlugin`), and they are recorded, checked and sent
/// exactly as a manifest's `fetchlog.writes` are — against the sample upstream's notes.
@Suite struct PluginWritesTests {
    /// A store of the test plug-ins (and the sixth source, which declares no writes) over
    /// `upstream`, the notes fetched through the plug-in.
    static func openStore(_ dir: TemporaryDirectory, upstream: String, fetch: Bool = true) async throws -> Store {
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: upstream)
        configuration.fetching.retry.retries = 0
        let store = try await Store.open(at: URL(filePath: dir.sub("store")), sources: SourceRegistry([NotesPlugin(), MisdeclaredNotesPlugin(), BooksSource()]),
                                         configuration: configuration)
        if fetch { #expect(try await store.fetch(NotesPlugin.notes).outcome == .fetched) }
        return store
    }

    @Test func aPluginsWritesAreRecordedAtOnceAndSentExactlyOnce() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("plugin-writes")
        let first = try await Self.openStore(dir, upstream: upstream.base)
        let me = first.log.metadata.storeID

        // Recorded at once, nothing sent: a create, a change of the created item by its
        // local key, an update, a replace and a delete.
        let created = try await first.write(.create, source: "catalog", resource: "notes", fields: [("title", .string("water the plants")), ("priority", .number(4))])
        #expect(created.key == nil && created.localKey == "local:\(created.seq)")
        let done = try await first.write(.update, source: "catalog", resource: "notes", key: created.localKey, fields: [("done", .bool(true))])
        let raised = try await first.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("priority", .number(5))])
        let replaced = try await first.write(.replace, source: "catalog", resource: "notes", key: "2", fields: [("title", .string("call the electrician"))])
        let deleted = try await first.write(.delete, source: "catalog", resource: "notes", key: "3")
        let ids = [created, done, raised, replaced, deleted].map(\.seq)
        #expect(first.pendingMutations.map(\.seq) == ids)
        #expect(await upstream.server.appliedWrites == [])
        // Recorded as events: the store opened again holds them.
        await first.close()
        let store = try await Self.openStore(dir, upstream: upstream.base, fetch: false)
        #expect(store.pendingMutations.map(\.seq) == ids)
        #expect(store.pendingMutations.map(\.state) == [.queued, .queued, .queued, .queued, .queued])

        // Sent in log order, each with its Idempotency-Key; the update of the created item
        // goes to the key the server gave it.
        let report = try await store.push()
        #expect(report.confirmed == ids)
        #expect(await upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.key ?? "-") \($0.status)" } == [
            "POST /catalog/notes \(me):\(ids[0]) 201", "PATCH /catalog/notes/4 \(me):\(ids[1]) 200", "PATCH /catalog/notes/1 \(me):\(ids[2]) 200",
            "PUT /catalog/notes/2 \(me):\(ids[3]) 200", "DELETE /catalog/notes/3 \(me):\(ids[4]) 204",
        ])
        #expect(await upstream.server.notes == [
            1: #"{"id":1,"title":"buy milk","done":false,"priority":5,"version":2}"#,
            2: #"{"id":2,"title":"call the electrician","done":false,"priority":3,"version":2}"#,
            4: #"{"id":4,"title":"water the plants","done":true,"priority":4,"version":2}"#,
        ])
        #expect(store.pendingMutations.isEmpty)
        // Nothing left to send: a second push sends nothing.
        #expect(try await store.push().lines == [])
        #expect(await upstream.server.appliedWrites.count == 5)
        await store.close()
        await upstream.stop()
    }

    @Test func aPluginWithoutWritesIsRefusedAsAManifestResourceWithoutThemAndNothingIsRecorded() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("plugin-writes-refused")
        let store = try await Self.openStore(dir, upstream: upstream.base)
        let before = try store.log.lastSeq()
        func refusal(_ op: RestWrites.Operation, _ source: String, _ resource: String, key: String? = nil,
                     _ fields: [(String, JSONValue)] = []) async -> String {
            do {
                try await store.write(op, source: source, resource: resource, key: key, fields: fields)
                return "recorded"
            } catch {
                return "\(error)"
            }
        }
        // The sixth source, unchanged since before writes existed: its plug-in declares none.
        #expect(await refusal(.create, "books", "books", [("title", .string("Kindred"))])
                == #"books books declares no writes, so nothing can be sent for it: the plug-in's writes(for: "books") declares none (return a ResourceWrites from it)"#)
        #expect(await refusal(.create, "catalog", "tags", [("name", .string("home"))])
                == #"catalog tags declares no writes, so nothing can be sent for it: the plug-in's writes(for: "tags") declares none (return a ResourceWrites from it)"#)
        #expect(await refusal(.update, "jotter", "notes", key: "1", [("title", .string("x"))])
                == #"jotter notes: the plug-in's writes(for: "notes") does not hold together: update "PATCH /notes/{nid}": {nid} is not a field of the key (id); nothing was recorded"#)
        #expect(await refusal(.create, "catalgo", "notes", [("title", .string("x"))])
                == "no source 'catalgo' is defined by a manifest or a plug-in (did you mean 'catalog'?): defined are books, catalog, jotter")
        // The plug-in's held notes type the fields and say which items exist.
        #expect(await refusal(.create, "catalog", "notes", [("titel", .string("bread"))])
                == "notes has no field 'titel' (did you mean 'title'?): its fields are done, id, priority, title, version")
        #expect(await refusal(.update, "catalog", "notes", key: "1", [("priority", .string("high"))])
                == #"priority takes a number, not "high"; nothing was recorded"#)
        #expect(await refusal(.delete, "catalog", "notes", key: "99") == "no notes item with id 99 is held: fetch the resource that holds it first")
        #expect(try store.log.lastSeq() == before)
        #expect(store.pendingMutations.isEmpty)
        #expect(await upstream.server.appliedWrites == [])
        await store.close()
        await upstream.stop()
    }

    /// The article "Writing offline" shows `NotesPlugin` whole (but its summary and its
    /// resource), so the block compiles where a reader pastes it (`PastedCodeTests`): every
    /// statement of it is a line of that file, so the article shows no code the tests do not run.
    @Test func theArticlesPluginCodeIsTheTestPlugins() throws {
        let article = try String(contentsOfFile: Repo.root + "/Sources/FetchlogCore/FetchlogCore.docc/WritingOffline.md", encoding: .utf8)
        let plugin = try String(contentsOfFile: Repo.root + "/Tests/FetchlogTests/Writes/NotesPlugin.swift", encoding: .utf8)
        let lines = Set(plugin.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        // The article's other block is the library's (ResourceHandleWritesTests checks it).
        let blocks = article.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
            .filter { $0.contains("func writes(for") }
        #expect(blocks.count == 1)
        let statements = blocks.flatMap { $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
        #expect(statements.count == 35)
        for statement in statements {
            #expect(lines.contains(statement), "the article's \(statement) is not NotesPlugin's")
        }
    }

    @Test func aPluginsDeclarationIsCheckedAsAManifestsIs() {
        func problem(_ writes: ResourceWrites) -> String? { writes.problem }
        #expect(problem(ResourceWrites(key: ["id"], create: "POST /notes", delete: "DELETE notes/{id}") { _ in nil }) == nil)
        #expect(ResourceWrites(key: ["id"], delete: "DELETE notes/{id}") { _ in nil }.routes[.delete] == RestWrites.Route(method: "DELETE", path: "/notes/{id}"))
        #expect(problem(ResourceWrites(key: ["id"], delete: "GET /notes/{id}") { _ in nil })
                == #"delete "GET /notes/{id}": "GET" is not a method for delete: use DELETE or POST"#)
        #expect(problem(ResourceWrites(key: ["id"], create: "POST /notes/{id}") { _ in nil })
                == #"create "POST /notes/{id}": {id}: a create's path names no item (the server names the new one)"#)
        #expect(problem(ResourceWrites(key: [], update: "PATCH /notes/1") { _ in nil })
                == #"update "PATCH /notes/1": update addresses an item by its key: give the ResourceWrites a key"#)
        #expect(problem(ResourceWrites(key: ["id"], update: "/notes/{id}") { _ in nil })
                == #"update "/notes/{id}" is not "METHOD PATH" ("PATCH /notes/{id}")"#)
        #expect(problem(ResourceWrites(key: ["id"]) { _ in nil }) == "declares no write: give one or more of create, update, replace, delete")
    }
}
