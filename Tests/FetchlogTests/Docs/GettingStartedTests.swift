import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// The code of `Sources/FetchlogCore/FetchlogCore.docc/GettingStarted.md`, compiled and run
/// against the bundled sample upstream's catalog API: a change to the API that breaks the
/// article breaks this test. Keep the two in step (same statements, same order); the
/// second test checks that every statement of the article is one of this file's.
@Suite struct GettingStartedTests {
    struct Item: Decodable, Equatable, Sendable {
        let id: Int
        let name: String
        let size: Int
    }

    struct Review: Decodable, Equatable, Sendable {
        let id: String
        let stars: Int
        let itemName: String
        enum CodingKeys: String, CodingKey { case id, stars, itemName = "_items_name" }
    }

    struct Note: Codable, Equatable, Sendable {
        var id: Int?  // nil until the server names a note added here
        var title: String
        var priority: Int
    }

    /// The article's `Note` with a key that is not optional, as a reader might write it first.
    struct NamedNote: Decodable, Equatable {
        let id: Int
        let title: String
        let priority: Int
    }

    @Test func theArticleRunsAsWritten() async throws {
        let upstream = try await CatalogUpstream.start()
        let temporary = TemporaryDirectory("getting-started")
        let directory = URL(filePath: temporary.path)
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: upstream.base)
        configuration.fetching.retry.retries = 0

        // Describe your API
        let manifest = try RestManifest(json: JSONValue.parse("""
            {"name": "catalog",
             "client": {"base_url": "https://catalog.example"},
             "resource_defaults": {"primary_key": "id"},
             "resources": [
               {"name": "items",
                "endpoint": {"path": "pages", "data_selector": "data",
                             "paginator": {"type": "page_number", "base_page": 1, "total_path": "total_pages"}}},
               {"name": "reviews",
                "endpoint": {"path": "items/{resources.items.id}/reviews", "data_selector": "data", "paginator": "single_page"},
                "include_from_parent": ["name"]},
               {"name": "notes",
                "endpoint": {"path": "notes", "data_selector": "data", "paginator": "single_page"},
                "fetchlog": {"writes": {"create": {"method": "POST", "path": "notes"},
                                        "update": {"method": "PATCH", "path": "notes/{id}"}}}}]}
            """))

        // Open a store and define the source
        let store = try await Store.open(at: directory, configuration: configuration)
        let catalog = try await store.define(manifest)
        let items = try catalog.resource("items")
        let typo = try #require(throws: DefinedSourceError.self) { try catalog.resource("itemz") }
        #expect("\(typo)" == "catalog has no resource 'itemz' (did you mean 'items'?): its resources are items, reviews, notes")

        // Fetch
        let reports = try await items.fetch()
        #expect(reports.map(\.outcome) == [.fetched, .fetched, .fetched])

        // Read the items into your types
        let all = try items.items(as: Item.self)
        #expect(all == (1 ... 12).map { Item(id: $0, name: "item \($0)", size: $0 * 10) })
        let reviews = try catalog.resource("reviews")
        try await reviews.fetch()
        let firstReview = try reviews.items(as: Review.self).first
        #expect(firstReview == Review(id: "1-1", stars: 2, itemName: "item 1"))

        // Observe
        var observed: [Item]?
        for try await now in items.observe(as: Item.self) {
            print("\(now.count) items")   // 12 items: now, then again after each change
            observed = now
            break
        }
        #expect(observed == all)
        let byName = try store.observe(view: items.viewName)   // "items/catalog/items"
        var named = byName.makeAsyncIterator()
        #expect(await named.next()?["count"] == .number(12))

        // Export
        let json = try items.export().canonicalText()
        let seq = store.snapshot.seq
        #expect(json == #"{"asOf":\#(seq),"count":12,"items":[\#((1 ... 12).map(CatalogUpstream.item).joined(separator: ","))],"#
            + #""resource":"items","source":"catalog","view":"items"}"#)

        // Change items offline
        let notes = try catalog.resource("notes")
        try await notes.fetch()
        let bread = try await notes.add(Note(id: nil, title: "buy bread", priority: 2))  // recorded, not sent
        let added = try notes.items(as: Note.self).last
        #expect(added == Note(id: nil, title: "buy bread", priority: 2))
        #expect(try notes.items(as: Note.self).count == 4)
        #expect(bread.key == "local:\(bread.id)" && bread.state == .queued)
        #expect(await upstream.server.appliedWrites.isEmpty)
        let unnamed = try #require(throws: DefinedSourceError.self) { try notes.items(as: NamedNote.self) }
        #expect("\(unnamed)" == "catalog notes item local:\(bread.id) was added here and the server has not confirmed it yet: it has no id until a push does, "
            + "and NamedNote's id is not optional. Declare it optional (nil until then); heldItems(as:) gives each item with its key (local:\(bread.id) until the server names it)")
        let held = try notes.heldItems(as: Note.self).last
        #expect(held?.value == added && held?.key == bread.key && held?.pending == [bread])
        #expect(held?.pending.map(\.state) == [.queued])
        let report = try await store.push()  // report.confirmed: [bread.id]
        #expect(report.confirmed == [bread.id])
        let pushed = try notes.items(as: Note.self).last
        #expect(pushed == Note(id: 4, title: "buy bread", priority: 2))
        #expect(try notes.items(as: NamedNote.self).last == NamedNote(id: 4, title: "buy bread", priority: 2))
        #expect(try notes.heldItems(as: Note.self).map(\.key) == ["1", "2", "3", "4"])
        let afterWrites = store.snapshot.seq

        // When a fetch fails (here: the upstream is gone, connection refused)
        await upstream.stop()
        var failed: [FetchReport] = []
        var heldAfterFailure: [Item] = []
        do {
            try await items.fetch()
        } catch DefinedSourceError.fetchFailed(_, _, let reports) {
            failed = reports
            let held = try items.items(as: Item.self)
            heldAfterFailure = held
        }
        #expect(failed.count == 1 && failed.allSatisfy { !$0.isUsable })
        #expect(heldAfterFailure == all)

        // In a later session
        let again = try store.source("catalog").resource("items")
        #expect(try again.items(as: Item.self) == all)
        #expect(store.snapshot.seq == afterWrites + 1) // the failed attempt only: taking the source appended nothing

        await store.close()
    }

    /// Every statement of the article's Swift blocks (but the `Package.swift` one) is a line
    /// of this file, so the article shows no code this test does not run — but the store's
    /// directory and configuration, which here are a temporary directory and the sample
    /// upstream's.
    @Test func everyStatementOfTheArticleIsRunHere() throws {
        let blocks = try ArticleCode.blocks(of: "Sources/FetchlogCore/FetchlogCore.docc/GettingStarted.md")
        #expect(blocks.count == 14)
        #expect(blocks.first?.hasPrefix("// swift-tools-version:") == true)
        #expect(blocks.first?.contains(#".product(name: "Fetchlog", package: "Fetchlog")"#) == true)
        let replaced: Set = [#"let directory = URL(filePath: "catalog.fetchlog")"#, "let configuration = Store.Configuration()"]
        for statement in try ArticleCode.statementsNotIn(#filePath, blocks: Array(blocks.dropFirst()), replaced: replaced) {
            Issue.record("the article's \(statement) is not run by this test")
        }
    }
}
