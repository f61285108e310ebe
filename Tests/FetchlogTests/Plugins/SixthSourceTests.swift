import FetchlogCore
import FetchlogSources
import Foundation
import Testing
@testable import fetchlog

/// Issue 14's acceptance: a sixth source defined in the test target (`BooksSource.swift`)
/// is registered beside the seed sources, fetched through the store, exported (and the
/// export validated against its schema), replayed and time-travelled — with no edit to
/// FetchlogCore or the seed sources.
@Suite struct SixthSourceTests {
    static let schema = Repo.root + "/Tests/FetchlogTests/Plugins/books.schema.json"

    struct Rig {
        let upstream: BooksUpstream
        let log: EventLog
        let fetcher: Fetcher
        let store: Store
        let directory: TemporaryDirectory

        func stop() async {
            await fetcher.shutdown()
            log.close()
            await upstream.stop()
        }
    }

    func start() async throws -> Rig {
        let upstream = try await BooksUpstream.start()
        let directory = TemporaryDirectory("books")
        let log = try EventLog.open(at: directory.path)
        var configuration = FetchHarness.patientConfiguration(base: upstream.base)
        configuration.clock = FixedClock(fixedTime)
        let fetcher = Fetcher(sources: booksRegistry, configuration: configuration)
        let store = try Store(log: log, sources: booksRegistry, fetcher: fetcher, clock: FixedClock(fixedTime))
        return Rig(upstream: upstream, log: log, fetcher: fetcher, store: store, directory: directory)
    }

    static let firstEdition = #"{"asOf":5,"books":[{"favourite":false,"id":1,"title":"The Left Hand of Darkness","year":1969},"#
        + #"{"favourite":false,"id":2,"title":"Kindred","year":1979},{"favourite":false,"id":3,"title":"Invisible Cities","year":1972},"#
        + #"{"favourite":false,"id":4,"title":"A Book With No Year","year":null}],"count":4,"favourites":[],"view":"books"}"#

    @Test func fetchedThroughTheStoreExportedAndRevalidatedWithETags() async throws {
        let rig = try await start()
        let store = rig.store
        #expect(try await store.fetch(BooksSource.page(1)).outcome == .fetched)
        #expect(try await store.fetch(BooksSource.page(2)).outcome == .fetched)
        #expect(try await store.fetch(BooksSource.page(3)).outcome == .endOfList)
        #expect(try await store.fetch(BooksSource.item(3)).outcome == .fetched)
        // Page 1 again: conditional on its ETag, answered 304, the body kept.
        #expect(try await store.fetch(BooksSource.page(1)).outcome == .notModified)
        #expect(rig.upstream.asked == [
            .init(path: "/books/list?page=1", ifNoneMatch: nil, status: 200), .init(path: "/books/list?page=2", ifNoneMatch: nil, status: 200),
            .init(path: "/books/list?page=3", ifNoneMatch: nil, status: 404), .init(path: "/books/items/3", ifNoneMatch: nil, status: 200),
            .init(path: "/books/list?page=1", ifNoneMatch: "\"list-1-e1\"", status: 304),
        ])
        #expect(try rig.log.events(from: 1).map(\.kind) == [.fetched, .fetched, .endOfList, .fetched, .notModified])

        let export = try ViewCatalog.export("books", state: store.snapshot.state)
        #expect(export.canonicalText() == Self.firstEdition)
        let validation = try await validateBooks(export)
        #expect(validation.ok, "\(validation.output)")
        // The core's status view knows the sixth source's resources like any other.
        let status = try ViewCatalog.export("status", state: store.snapshot.state).canonicalText()
        #expect(status.contains(#""path":"/list?page=1""#) && status.contains(#""source":"books""#))
        await rig.stop()
    }

    @Test func favouritesAreASliceThatSurvivesReopenAndReplay() async throws {
        let rig = try await start()
        let store = rig.store
        _ = try await store.fetch(BooksSource.page(1))
        _ = try await store.fetch(BooksSource.page(2))
        try await store.sendIntent(source: .books, label: "favourite.add", body: .object([("id", .number(3))]))
        try await store.sendIntent(source: .books, label: "favourite.add", body: .object([("id", .number(1))]))
        try await store.sendIntent(source: .books, label: "favourite.remove", body: .object([("id", .number(3))]))
        #expect(store.snapshot.state.slice(Favourites.self, of: .books)?.ids == [1])
        let live = try ViewCatalog.export("books", state: store.snapshot.state)
        #expect(live["favourites"] == .array([.number(1)]))
        let rows = live["books"]?.arrayValue ?? []
        #expect(rows.map { $0["favourite"] } == [.bool(true), .bool(false), .bool(false), .bool(false)])

        // Replay from the log alone: the same state, the same view hashes.
        let replayed = try Store.replay(rig.log, sources: booksRegistry).state
        #expect(replayed == store.durableState)
        #expect(ViewCatalog.hashes(of: replayed).map(\.sha256) == ViewCatalog.hashes(of: store.durableState).map(\.sha256))
        #expect(ViewCatalog.hashes(of: replayed).map(\.view).contains("books"))

        // Reopened from a checkpoint: the slice comes back from it.
        try await store.saveCheckpoint()
        let reopened = try Store(log: rig.log, sources: booksRegistry)
        #expect(reopened.origin == .checkpoint(seq: 5, tail: 0))
        #expect(reopened.snapshot.state == store.durableState)
        #expect(try ViewCatalog.export("books", state: reopened.snapshot.state) == live)
        await rig.stop()
    }

    @Test func aSliceOfAnotherVersionIsRebuiltAloneFromTheLog() async throws {
        let rig = try await start()
        let store = rig.store
        _ = try await store.fetch(BooksSource.page(1))
        try await store.sendIntent(source: .books, label: "favourite.add", body: .object([("id", .number(2))]))
        try await store.setGnomeFilter({ var f = GnomeFilter(); f.hairColor = "Pink"; return f }())
        // A checkpoint whose books slice says version 0 and holds a wrong favourite.
        var checkpoint = try JSONValue.parse(bytes: Checkpoint.encode(store.durableState))
        guard case .object(var members) = checkpoint, let i = members.firstIndex(where: { $0.0 == "slices" }),
              case .object(var slices) = members[i].1, let b = slices.firstIndex(where: { $0.0 == "books" }) else {
            Issue.record("no books slice in the checkpoint: \(checkpoint.canonicalText())")
            return
        }
        slices[b].1 = .object([("state", .object([("ids", .array([.number(4)]))])), ("version", .number(0))])
        members[i].1 = .object(slices)
        checkpoint = .object(members)
        try await rig.log.saveCheckpoint(Array(checkpoint.canonicalText().utf8))

        let reopened = try Store(log: rig.log, sources: booksRegistry)
        // Still opened from the checkpoint (the core state and the gnome filter kept) …
        #expect(reopened.origin == .checkpoint(seq: 3, tail: 0))
        #expect(reopened.snapshot.state.gnomeFilter.hairColor == "Pink")
        // … with the books slice rebuilt from its intents: favourite 2, not the saved 4.
        #expect(reopened.snapshot.state.slice(Favourites.self, of: .books)?.ids == [2])
        #expect(reopened.snapshot.state == store.durableState)
        await rig.stop()
    }

    @Test func timeTravelSeesOnlyWhatWasHeldThen() async throws {
        let rig = try await start()
        let store = rig.store
        _ = try await store.fetch(BooksSource.page(1))      // seq 1
        _ = try await store.fetch(BooksSource.page(2))      // seq 2
        rig.upstream.publishSecondEdition()
        _ = try await store.fetch(BooksSource.page(1))      // seq 3: a new body, a new ETag
        let titles = { (state: LogState) in BooksView(state: state).books.map(\.title) }
        #expect(titles(try store.state(asOf: 1)) == ["The Left Hand of Darkness", "Kindred"])
        #expect(titles(try store.state(asOf: 2)) == ["The Left Hand of Darkness", "Kindred", "Invisible Cities", "A Book With No Year"])
        #expect(titles(store.snapshot.state) == ["The Left Hand of Darkness (2nd ed.)", "Kindred (2nd ed.)", "Invisible Cities", "A Book With No Year"])
        #expect(rig.upstream.asked.last == .init(path: "/books/list?page=1", ifNoneMatch: "\"list-1-e1\"", status: 200))
        #expect(try ViewCatalog.export("books", state: store.state(asOf: 1))["asOf"] == .number(1))
        await rig.stop()
    }

    @Test func aBodyThatDoesNotFitIsADecodeFailureAndTheHeldDataStays() async throws {
        let rig = try await start()
        let store = rig.store
        _ = try await store.fetch(BooksSource.page(1))
        let report = try await store.fetch(BooksSource.item(99))
        #expect(report.outcome == .failed(.decode, "$.title: expected a string, found number 42"))
        let events = try rig.log.events(from: 1)
        #expect(events.map(\.kind) == [.fetched, .fetchFailed])
        #expect(events.last?.body == Array(#"{"id":99,"title":42,"year":2000}"#.utf8))
        #expect(BooksView(state: store.snapshot.state).books.map(\.id) == [1, 2])
        await rig.stop()
    }

    @Test func theRegistryServesBothTheSeedSourcesAndTheSixth() {
        #expect(booksRegistry.sources.map(\.rawValue) == ["tvmaze", "brastlewark", "viaplay", "thmanyah", "artic", "books"])
        #expect(booksRegistry.exportNames.contains("books") && booksRegistry.exportNames.contains("shows"))
        #expect(booksRegistry.resource(source: "books", label: "/items/7") == BooksSource.item(7))
        #expect(booksRegistry.resource(source: "books", label: "/nothing") == nil)
        #expect(FreshnessPolicy(sources: booksRegistry).rule(for: "books") == .timeToLive(.seconds(60), renewOnOpen: false))
        #expect(throws: ViewNameError.self) { try ViewCatalog.export("book", state: LogState(sources: booksRegistry)) }
    }

    func validateBooks(_ json: JSONValue) async throws -> (ok: Bool, output: String) {
        let file = NSTemporaryDirectory() + "fetchlog-books-\(UUID().uuidString.prefix(8)).json"
        try (json.canonicalText() + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try await offPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", Repo.root + "/Tools/validate-json.py", Self.schema, file]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus == 0, output)
        }
    }
}

/// The sixth source in the shell: the shell's commands come from the session's registry,
/// so a source registered by the embedding program (here, the test) brings its own.
@Suite struct SixthSourceShellTests {
    @Test func theShellFetchesQueriesTimeTravelsAndExportsTheSixthSource() async throws {
        let upstream = try await BooksUpstream.start()
        let directory = TemporaryDirectory("books-shell")
        let log = try EventLog.open(at: directory.path)
        var configuration = FetchHarness.patientConfiguration(base: upstream.base)
        configuration.clock = FixedClock(fixedTime)
        let fetcher = Fetcher(sources: booksShell.sources, configuration: configuration)
        let session = Session(store: try Store(log: log, sources: fetcher.sources, fetcher: fetcher, clock: FixedClock(fixedTime)), clock: FixedClock(fixedTime),
                              shell: booksShell)
        let out = NSTemporaryDirectory() + "fetchlog-books-shell-\(UUID().uuidString.prefix(8)).txt"
        defer { try? FileManager.default.removeItem(atPath: out) }
        for line in [".output \(out)", "fetch books page 1", "fetch books page 2", "favourite add 3", "books", "at 1 books",
                     "export books", ".mode json", "books", ".mode table", "help favourite"] {
            let error = await session.execute(line)
            #expect(error == nil, "\(line): \(error?.message ?? "")")
        }
        #expect(await session.execute("favourite keep 3")?.status == 64)
        session.close()
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let expected = [
            "id  title                      year  favourite",
            "──  ─────────────────────────  ────  ─────────",
            "1   The Left Hand of Darkness  1969",
            "2   Kindred                    1979",
            "3   Invisible Cities           1972  ★",
            "4   A Book With No Year        -",
            "4 books",
        ].joined(separator: "\n")
        #expect(text.contains(expected), "\(text)")
        // `at 1 books`: only page 1 was held then, and no favourite yet.
        #expect(text.contains("1   The Left Hand of Darkness  1969\n2   Kindred                    1979\n2 books"), "\(text)")
        #expect(text.contains(#"{"asOf":3,"books":[{"favourite":false,"id":1,"#), "\(text)")
        #expect(text.contains(#"{"favourite":true,"id":3,"title":"Invisible Cities","year":1972}"#), "\(text)")
        #expect(text.contains("favourite add|remove ID\n  mark or unmark a favourite book\n  example: favourite add 1"), "\(text)")
        #expect(rigAsked(upstream).map(\.path) == ["/books/list?page=1", "/books/list?page=2"])
        await fetcher.shutdown()
        log.close()
        await upstream.stop()
    }

    func rigAsked(_ upstream: BooksUpstream) -> [BooksUpstream.Asked] { upstream.asked }
}

/// Tab completion knows the sources defined by manifests, their resources and views.
@Suite struct ManifestCompletionTests {
    @Test func fetchAndExportCompleteDefinedSources() async throws {
        let directory = TemporaryDirectory("manifest-completion")
        let log = try EventLog.open(at: directory.path)
        let fetcher = Fetcher(sources: .seed, configuration: FetchHarness.patientConfiguration(base: "http://127.0.0.1:9"))
        let session = Session(store: try Store(log: log, sources: fetcher.sources, fetcher: fetcher, clock: FixedClock(fixedTime)), clock: FixedClock(fixedTime))
        let text = #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":["pages","people"]}"#
        try await session.store.define(try RestManifest(json: try JSONValue.parse(bytes: Array(text.utf8))))
        #expect(Completion.candidates(for: "fetch cat", session: session) == ["catalog"])
        #expect(Completion.candidates(for: "fetch catalog p", session: session) == ["pages", "people"])
        #expect(Completion.candidates(for: "export items/catalog/pe", session: session) == ["items/catalog/people"])
        #expect(Completion.candidates(for: "items c", session: session) == ["catalog"])
        #expect(Completion.candidates(for: "links catalog pa", session: session) == ["pages"])
        #expect(Completion.candidates(for: "items catalog pages --", session: session) == ["--limit", "--page", "--where"])
        // Offline writes: `item`'s changes beside the sources, `pending`'s subcommands.
        #expect(Completion.candidates(for: "item ", session: session) == ["add", "catalog", "delete", "set"])
        #expect(Completion.candidates(for: "pending r", session: session) == ["retry"])
        await fetcher.shutdown()
        log.close()
    }
}
