import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// Issue 26, requirement 2: the writes through the library's typed handles, as a library
/// user writes them (public API only), against the sample upstream's writable
/// `/catalog/notes` and the manifest `docs/manifests/notes.json`.
@Suite struct ResourceHandleWritesTests {
    struct Note: Codable, Equatable, Sendable {
        var id: Int
        var title: String
        var done: Bool
        var priority: Int
        var version: Int
    }

    /// The fields a new note is given, as a type of the caller's.
    struct NewNote: Encodable {
        var title: String
        var priority: Int
    }

    /// A note's writable fields with its key, as a type of the caller's.
    struct Fields: Encodable {
        var id: Int
        var title: String
        var done: Bool
        var priority: Int
    }

    static let initial = [Note(id: 1, title: "buy milk", done: false, priority: 2, version: 1),
                          Note(id: 2, title: "call the plumber", done: true, priority: 1, version: 1),
                          Note(id: 3, title: "write the report", done: false, priority: 4, version: 1)]

    static func configuration(_ upstream: CatalogUpstream, offline: Bool = false) -> Store.Configuration {
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: upstream.base)
        configuration.fetching.retry.retries = 0
        configuration.fetching.offline = offline
        return configuration
    }

    /// A store at `path` with docs/manifests/notes.json defined and the notes fetched.
    static func fetched(_ path: String, _ upstream: CatalogUpstream) async throws -> (Store, ResourceHandle) {
        let store = try await Store.open(at: URL(filePath: path), configuration: configuration(upstream))
        let text = try String(contentsOfFile: Repo.root + "/docs/manifests/notes.json", encoding: .utf8)
        let notes = try await store.define(try RestManifest(json: JSONValue.parse(text))).resource("notes")
        try await notes.fetch()
        #expect(try notes.items(as: Note.self) == initial)
        return (store, notes)
    }

    @Test func changesMadeOfflineWaitWithLocalKeysAndAreConfirmedByThePush() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("handle-writes-offline")
        let (online, _) = try await Self.fetched(dir.sub("store"), upstream)
        await online.close()

        // Offline: every change is recorded, none is sent.
        let store = try await Store.open(at: URL(filePath: dir.sub("store")), configuration: Self.configuration(upstream, offline: true))
        let notes = try store.source("catalog").resource("notes")
        let bread = try await notes.add(NewNote(title: "buy bread", priority: 2))
        let done = try await notes.set("1", ["done": true, "priority": 3])
        let gone = try await notes.delete("2")
        #expect(bread.key == "local:\(bread.id)" && bread.operation == .create && bread.state == .queued)
        #expect(bread.fields.canonicalText() == #"{"priority":2,"title":"buy bread"}"#)
        #expect(done.key == "1" && done.fields.canonicalText() == #"{"done":true,"priority":3}"#)
        #expect(gone.key == "2" && gone.operation == .delete && gone.fields == .object([]))
        #expect(notes.pending() == [bread, done, gone])
        #expect(notes.pending().map(\.lastStatus) == [nil, nil, nil])
        // Shown at once: note 1 changed, note 2 gone, the new note last.
        let shown = try notes.export()["items"]?.arrayValue?.map { $0.canonicalText() } ?? []
        #expect(shown == [#"{"done":true,"id":1,"pending":{"mutations":[\#(done.id)],"state":"queued"},"priority":3,"title":"buy milk","version":1}"#,
                          #"{"done":false,"id":3,"priority":4,"title":"write the report","version":1}"#,
                          #"{"id":"local:\#(bread.id)","pending":{"mutations":[\#(bread.id)],"state":"queued"},"priority":2,"title":"buy bread"}"#])
        do {
            try await store.push()
            Issue.record("an offline store pushed")
        } catch let error as WriteError {
            #expect(error.message == "the network is forbidden (offline): nothing was sent")
        }
        #expect(notes.pending().map(\.state) == [.queued, .queued, .queued])
        #expect(await upstream.server.appliedWrites.isEmpty)
        await store.close()

        // Back online: one push sends the three, in the order they were made.
        let again = try await Store.open(at: URL(filePath: dir.sub("store")), configuration: Self.configuration(upstream))
        let same = try again.source("catalog").resource("notes")
        #expect(same.pending() == [bread, done, gone])
        let report = try await again.push()
        #expect(report.confirmed == [bread.id, done.id, gone.id])
        #expect(report.conflicts == [] && report.rejected == [] && report.held == [] && report.failed == [] && report.paused == [])
        #expect(same.pending() == [])
        #expect(same.key(of: bread) == "4")
        #expect(same.key(of: done) == "1")
        #expect(await upstream.server.notes == [
            1: #"{"id":1,"title":"buy milk","done":true,"priority":3,"version":2}"#,
            3: #"{"id":3,"title":"write the report","done":false,"priority":4,"version":1}"#,
            4: #"{"id":4,"title":"buy bread","done":false,"priority":2,"version":1}"#,
        ])
        #expect(try same.items(as: Note.self) == [Note(id: 1, title: "buy milk", done: true, priority: 3, version: 2), Self.initial[2],
                                                  Note(id: 4, title: "buy bread", done: false, priority: 2, version: 1)])

        // A value of the caller's type: its key field names the item, so it is left out of
        // the change; one naming another item would change the key, and is refused.
        let replaced = try await same.replace("3", Fields(id: 3, title: "write the summary", done: true, priority: 1))
        #expect(replaced.operation == .replace && replaced.fields.canonicalText() == #"{"done":true,"priority":1,"title":"write the summary"}"#)
        await #expect(throws: WriteError("id is part of the item's key: it cannot be changed")) {
            try await same.set("3", Fields(id: 4, title: "write the summary", done: true, priority: 1))
        }
        #expect(try await again.push().confirmed == [replaced.id])
        #expect(await upstream.server.notes[3] == #"{"id":3,"title":"write the summary","done":true,"priority":1,"version":2}"#)
        await again.close()
        await upstream.stop()
    }

    /// A note as an app declares it to read notes it adds offline: the key, and the fields
    /// the server fills in (`done`, `version`), optional until the server confirms the note.
    struct Draft: Codable, Equatable, Sendable {
        var id: Int?
        var title: String
        var priority: Int
        var done: Bool?
        var version: Int?
    }

    /// A type that needs only what the caller writes, with a key that is not optional.
    struct Keyed: Decodable, Equatable, Sendable {
        let id: Int
        let title: String
    }

    /// A type whose key is optional, but that needs a field the server fills in.
    struct Versioned: Decodable, Equatable {
        let id: Int?
        let version: Int
    }

    /// A type that does not fit any note (a title is no number): the decoder's own error.
    struct NumberedTitle: Decodable {
        let title: Int
    }

    /// Issue 34, item 7: a note added offline reads back into the caller's type before the
    /// server names it — its key field null (an `Int?`), not its `local:ID` string where the
    /// server's ids are numbers — in `items(as:)`, `observe(as:)` and `heldItems(as:)`, the
    /// last with its key and its pending create; a type that cannot take that is told so by
    /// name; after the push the server's id arrives as an Int.
    @Test func aNoteAddedOfflineDecodesIntoTheCallersTypeBeforeTheServerNamesIt() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("handle-writes-typed")
        let (online, _) = try await Self.fetched(dir.sub("store"), upstream)
        await online.close()

        let store = try await Store.open(at: URL(filePath: dir.sub("store")), configuration: Self.configuration(upstream, offline: true))
        let notes = try store.source("catalog").resource("notes")
        let bread = try await notes.add(NewNote(title: "buy bread", priority: 2))
        let done = try await notes.set("1", ["done": true])
        let local = "local:\(bread.id)"
        #expect(bread.key == local)

        // Every note decodes, the new one last with no id and no server fields yet.
        let drafts = try notes.items(as: Draft.self)
        #expect(drafts.count == 4)
        #expect(drafts == [Draft(id: 1, title: "buy milk", priority: 2, done: true, version: 1),
                           Draft(id: 2, title: "call the plumber", priority: 1, done: true, version: 1),
                           Draft(id: 3, title: "write the report", priority: 4, done: false, version: 1),
                           Draft(id: nil, title: "buy bread", priority: 2, done: nil, version: nil)])
        var changes = notes.observe(as: Draft.self).makeAsyncIterator()
        #expect(try await changes.next() == drafts)

        // With each note's key and changes waiting: the new one's create, queued.
        let held = try notes.heldItems(as: Draft.self)
        #expect(held.map(\.value) == drafts)
        #expect(held.map(\.key) == ["1", "2", "3", local])
        #expect(held.map(\.pending) == [[done], [], [], [bread]])
        #expect(held[3].pending.map(\.state) == [.queued] && held[3].pending.map(\.operation) == [.create])
        // The key taken from the list names the note to a change, as the create's key does.
        let renamed = try await notes.set(held[3].key, ["title": "buy rye bread"])
        #expect(renamed.key == local)
        let renamedHeld = try #require(try notes.heldItems(as: Draft.self).last)
        #expect(renamedHeld.value == Draft(id: nil, title: "buy rye bread", priority: 2) && renamedHeld.key == local)
        #expect(renamedHeld.pending == [bread, renamed])
        // The view itself is unchanged: it shows the local key, as `items catalog notes` does.
        #expect(try notes.export()["items"]?.arrayValue?.last?["id"] == .string(local))

        // A type that cannot take a note not confirmed yet is told which note and what to do,
        // for its key and for a field the server fills in; any other mismatch is the decoder's.
        let keyed = try #require(throws: DefinedSourceError.self) { try notes.items(as: Keyed.self) }
        #expect("\(keyed)" == "catalog notes item \(local) was added here and the server has not confirmed it yet: it has no id until a push does, "
            + "and Keyed's id is not optional. Declare it optional (nil until then); heldItems(as:) gives each item with its key (\(local) until the server names it)")
        #expect(Self.unconfirmed(keyed) == ["catalog", "notes", local, "Keyed", "id"])
        let versioned = try #require(throws: DefinedSourceError.self) { try notes.heldItems(as: Versioned.self) }
        #expect(Self.unconfirmed(versioned) == ["catalog", "notes", local, "Versioned", "version"])
        #expect("\(versioned)".hasPrefix("catalog notes item \(local) was added here and the server has not confirmed it yet: it has no version until a push does"))
        #expect(throws: DecodingError.self) { try notes.items(as: NumberedTitle.self) }
        var failing = notes.observe(as: Keyed.self).makeAsyncIterator()
        let observed = await #expect(throws: DefinedSourceError.self) { _ = try await failing.next() }
        #expect(observed.map(Self.unconfirmed) == ["catalog", "notes", local, "Keyed", "id"])
        await store.close()

        // Back online: the push sends the three; the server's id arrives, a number.
        let again = try await Store.open(at: URL(filePath: dir.sub("store")), configuration: Self.configuration(upstream))
        let same = try again.source("catalog").resource("notes")
        #expect(try await again.push().confirmed == [bread.id, done.id, renamed.id])
        #expect(try same.items(as: Draft.self).last == Draft(id: 4, title: "buy rye bread", priority: 2, done: false, version: 2))
        #expect(try same.items(as: Keyed.self).last == Keyed(id: 4, title: "buy rye bread"))
        let confirmed = try same.heldItems(as: Draft.self)
        #expect(confirmed.map(\.key) == ["1", "2", "3", "4"])
        #expect(confirmed.allSatisfy { $0.pending.isEmpty })
        #expect(await upstream.server.notes[4] == #"{"id":4,"title":"buy rye bread","done":false,"priority":2,"version":2}"#)
        await again.close()
        await upstream.stop()
    }

    /// An `unconfirmedItem` error's source, resource, key, type and field; empty for another.
    static func unconfirmed(_ error: DefinedSourceError) -> [String] {
        guard case .unconfirmedItem(let source, let resource, let key, let type, let field) = error else { return [] }
        return [source, resource, key, type, field]
    }

    @Test func aBadChangeIsRefusedWithTheTypedErrorAndRecordsNothing() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("handle-writes-refused")
        let (store, notes) = try await Self.fetched(dir.sub("store"), upstream)
        let seq = store.snapshot.seq
        func refusal(_ write: () async throws -> Mutation) async -> String {
            do {
                _ = try await write()
                return "recorded"
            } catch let error as WriteError {
                return error.message
            } catch {
                return "not a WriteError: \(error)"
            }
        }
        #expect(await refusal { try await notes.add(["titel": "buy bread"]) }
                == "notes has no field 'titel' (did you mean 'title'?): its fields are done, id, priority, title, version")
        #expect(await refusal { try await notes.set("1", ["priority": "high"]) }
                == #"priority takes a number, not "high"; nothing was recorded"#)
        #expect(await refusal { try await notes.set("1", ["done": 1]) } == "done takes true or false, not 1; nothing was recorded")
        #expect(await refusal { try await notes.set("1", ["id": 7]) } == "id is part of the item's key: it cannot be changed")
        #expect(await refusal { try await notes.delete("9") } == "no notes item with id 9 is held: items catalog notes lists them")
        #expect(await refusal { try await notes.add(3) }
                == "Int does not encode as a JSON object: give the fields as a struct or a [String: value] dictionary; nothing was recorded")
        #expect(await refusal { try await notes.set("1", [String: Int]()) } == "update takes one or more FIELD=VALUE")
        // Nothing was recorded: no event, nothing pending, the server untouched.
        #expect(store.snapshot.seq == seq)
        #expect(notes.pending() == [])
        #expect(await upstream.server.appliedWrites.isEmpty)
        // A retry or discard of an id that does not wait says which do.
        let kept = try await notes.set("3", ["done": true])
        await #expect(throws: WriteError("no mutation 99 is waiting: waiting are \(kept.id)")) { try await notes.discard(99) }
        await store.close()
        await upstream.stop()
    }

    @Test func aConflictWithAnotherClientsChangeIsSentOverWithForceOrDiscarded() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("handle-writes-conflict")
        let (first, mine) = try await Self.fetched(dir.sub("first"), upstream)
        let (second, theirs) = try await Self.fetched(dir.sub("second"), upstream)

        // The first client's change is confirmed: the answer's ETag is held for note 1.
        try await mine.set("1", ["priority": 5])
        #expect(try await first.push().confirmed.count == 1)
        // A second client changes note 1 on the server; the first client's next change was
        // made on the version before.
        try await theirs.set("1", ["title": "buy oat milk"])
        #expect(try await second.push().confirmed.count == 1)
        let server = #"{"id":1,"title":"buy oat milk","done":false,"priority":5,"version":3}"#
        #expect(await upstream.server.notes[1] == server)
        let change = try await mine.set("1", ["done": true])
        let report = try await first.push()
        #expect(report.conflicts == [change.id] && report.confirmed == [])
        let waiting = try #require(mine.pending().first)
        #expect(waiting.id == change.id && waiting.state == .conflict && waiting.lastStatus == 412)
        #expect(waiting.lastMessage == #"note 1 changed since "e22827b62964b10a": its current version is in current"#)
        #expect(waiting.serverVersion?.canonicalText() == (try JSONValue.parse(server)).canonicalText())

        // A plain retry would only conflict again: refused. With force it goes over.
        await #expect(throws: WriteError("mutation \(change.id) conflicts with the server's version (changed since): retry it with force to send yours over it, or discard it")) {
            try await mine.retry(change.id)
        }
        try await mine.retry(change.id, force: true)
        #expect(mine.pending().map(\.state) == [.queued])
        #expect(try await first.push().confirmed == [change.id])
        let forced = #"{"id":1,"title":"buy oat milk","done":true,"priority":5,"version":4}"#
        #expect(await upstream.server.notes[1] == forced)
        #expect(try mine.items(as: Note.self).first == Note(id: 1, title: "buy oat milk", done: true, priority: 5, version: 4))

        // Again, and this time discarded: the server's version stays, in the items too.
        try await theirs.fetch()
        try await theirs.set("1", ["priority": 2])
        #expect(try await second.push().confirmed.count == 1)
        let kept = #"{"id":1,"title":"buy oat milk","done":true,"priority":2,"version":5}"#
        let dropped = try await mine.set("1", ["title": "mine"])
        #expect(try await first.push().conflicts == [dropped.id])
        try await mine.discard(dropped.id)
        #expect(mine.pending() == [])
        #expect(try mine.items(as: Note.self).first == Note(id: 1, title: "buy oat milk", done: true, priority: 2, version: 5))
        #expect(await upstream.server.notes[1] == kept)
        #expect(await upstream.server.appliedWrites.map(\.status) == [200, 200, 200, 200])
        await first.close()
        await second.close()
        await upstream.stop()
    }

    @Test func aChangeIsRetriedOrDiscardedThroughItsOwnResourceOnly() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("handle-writes-own")
        let store = try await Store.open(at: URL(filePath: dir.sub("store")), configuration: Self.configuration(upstream))
        // Beside notes, a second resource over the same list that declares updates only
        // (never fetched here: what is refused is refused before its items are read).
        let mine = #"{"name": "mine", "primary_key": "id", "endpoint": {"path": "notes", "params": {"r": "m"}, "data_selector": "data", "#
            + #""paginator": "single_page"}, "fetchlog": {"writes": {"update": {"method": "PATCH", "path": "notes/{id}"}}}}"#
        var text = try String(contentsOfFile: Repo.root + "/docs/manifests/notes.json", encoding: .utf8)
        let end = try #require(text.range(of: "]", options: .backwards))
        text.replaceSubrange(end, with: "," + mine + "]")
        let catalog = try await store.define(try RestManifest(json: JSONValue.parse(text)))
        let notes = try catalog.resource("notes")
        let other = try catalog.resource("mine")
        try await notes.fetch()

        let change = try await notes.set("1", ["done": true])
        let why = "mutation \(change.id) changes catalog notes, not catalog mine: retry or discard it through that resource"
        await #expect(throws: WriteError(why)) { try await other.discard(change.id) }
        await #expect(throws: WriteError(why)) { try await other.retry(change.id) }
        await #expect(throws: WriteError("catalog mine declares no delete: it declares update")) { try await other.delete("1") }
        #expect(other.pending() == [] && notes.pending() == [change])
        try await notes.discard(change.id)
        #expect(notes.pending() == [])
        #expect(try notes.items(as: Note.self) == Self.initial)
        await store.close()
        await upstream.stop()
    }

    /// The article "Writing offline" shows `WritingOfflineExample.swift` byte for byte, and
    /// the example runs against the sample upstream.
    @Test func theArticlesLibraryExampleIsThisTargetsAndRuns() async throws {
        let article = try String(contentsOfFile: Repo.root + "/Sources/FetchlogCore/FetchlogCore.docc/WritingOffline.md", encoding: .utf8)
        let code = try String(contentsOfFile: Repo.root + "/Tests/FetchlogTests/Library/WritingOfflineExample.swift", encoding: .utf8)
        let blocks = article.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] + "\n" }
        #expect(blocks.filter { $0.contains("notes.add(") } == [code])

        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("handle-writes-article")
        let (store, notes) = try await Self.fetched(dir.sub("store"), upstream)
        let (waiting, report, bread) = try await changeNotes(in: store)
        #expect(waiting.map(\.key) == ["local:\(waiting[0].id)", "1", "2"])
        #expect(waiting.map(\.operation) == [.create, .update, .delete])
        #expect(report.confirmed == waiting.map(\.id))
        #expect(bread == "4")
        #expect(try notes.items(as: Note.self) == [Note(id: 1, title: "buy milk", done: true, priority: 2, version: 2), Self.initial[2],
                                                   Note(id: 4, title: "buy bread", done: false, priority: 2, version: 1)])
        await store.close()
        await upstream.stop()
    }
}
