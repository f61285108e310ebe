import FetchlogCore
import FetchlogSources
import FetchlogSQL
import Foundation
import Testing

/// `replay --diff`: a checkpoint records every view as its build read the log; a build with
/// a changed reducer replays the log and names exactly what its reading changes.
@Suite struct ReplayDiffTests {
    /// The census plug-in with a deliberate change in how it reads a body: gnome 0 (Tobus
    /// Quickwhistle) is read one year older.
    struct OlderTobus: SourcePlugin {
        let base = BrastlewarkSource()
        var source: Source { base.source }
        var summary: String { base.summary }
        var realBase: String { base.realBase }
        var freshness: FreshnessRule { base.freshness }
        var initialSlice: (any SourceSlice)? { base.initialSlice }
        func documentKind(ofPath path: String) -> DocumentKind? { base.documentKind(ofPath: path) }
        func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
            var text = String(decoding: body, as: UTF8.self)
            if let tobus = text.range(of: #"{"id":0,"name":"Tobus Quickwhistle","#),
               let age = text.range(of: #""age":306,"#, range: tobus.upperBound ..< text.endIndex) {
                text.replaceSubrange(age, with: #""age":307,"#)
            }
            return try base.decode(kind, body: Array(text.utf8))
        }
    }

    @Test func aChangedReducerNamesExactlyTheChangedItems() async throws {
        let harness = try await FetchHarness.start()
        _ = try await harness.store.fetch(.brastlewarkCensus)
        _ = try await harness.store.fetch(.viaplayRoot)
        try await harness.store.saveCheckpoint()

        // The same build: every view reads the same.
        let same = try #require(try Store.replayDiff(harness.log, sources: .seed))
        #expect(same.seq == 2)
        #expect(same.views.allSatisfy { $0.status == "same" }, "\(same.views.filter { $0.status != "same" }.map(\.view))")
        #expect(same.views.map(\.view) == SeedSources.registry.views.map(\.name))

        // A build whose census reading changed.
        let changed = SourceRegistry(SeedSources.plugins.map { $0.source == .brastlewark ? OlderTobus() : $0 }, views: SeedSources.views)
        let diff = try #require(try Store.replayDiff(harness.log, sources: changed))
        let gnomes = try #require(diff.views.first { $0.view == "gnomes" })
        #expect(gnomes.status == "differs")
        #expect(gnomes.changes == [ViewDiff.Change(kind: .changed, path: "/gnomes[0]/age", before: .number(306), after: .number(307))])
        // Only the views that read the census can differ; the others read the same.
        let differing = Set(diff.views.filter { $0.status != "same" }.map(\.view))
        #expect(differing.isSubset(of: ["gnomes", "filters", "friends", "search"]))
        #expect(differing.contains("gnomes"))
        #expect(diff.views.first { $0.view == "pages" }?.status == "same")
        #expect(diff.views.first { $0.view == "friends" }?.status == "same") // friendships do not read ages
        await harness.stop()
    }

    /// A saved view is recorded with the checkpoint as `export NAME` gives it (issue 35), so a
    /// changed reducer names the rows of the saved view it changes, and a view that no longer
    /// compiles is recorded as its error.
    @Test func aSavedViewIsRecordedAndItsChangedRowsNamed() async throws {
        let harness = try await FetchHarness.start()
        _ = try await harness.store.fetch(.brastlewarkCensus)
        _ = try await harness.store.sql("CREATE VIEW elders AS SELECT id, name, age FROM gnomes WHERE age >= 306 ORDER BY id LIMIT 2")
        try await harness.store.saveCheckpoint()
        let same = try #require(try Store.replayDiff(harness.log, sources: .seed))
        #expect(same.seq == 2)
        #expect(same.views.map(\.view) == SeedSources.registry.views.map(\.name) + ["elders"])
        #expect(same.views.allSatisfy { $0.status == "same" }, "\(same.views.filter { $0.status != "same" }.map(\.view))")
        let changed = SourceRegistry(SeedSources.plugins.map { $0.source == .brastlewark ? OlderTobus() : $0 }, views: SeedSources.views)
        let diff = try #require(try Store.replayDiff(harness.log, sources: changed))
        let elders = try #require(diff.views.first { $0.view == "elders" })
        #expect(elders.status == "differs")
        #expect(elders.changes.map(\.kind) == [.changed])
        #expect(elders.changes.first?.path.hasSuffix("/age") == true, "\(elders.changes)")
        #expect(elders.changes.first?.before == .number(306))
        #expect(elders.changes.first?.after == .number(307))
        await harness.stop()
    }

    @Test func withoutARecordTheCommandSaysHowToMakeOne() async throws {
        let dir = TemporaryDirectory("replay-diff")
        let store = dir.sub("store")
        // A log without any checkpoint: nothing recorded to compare with.
        let made = try await runFetchlog(["--store", store, "log", "stats"])
        #expect(made.status == 0, "\(made.stderr)")
        let missing = try await runFetchlog(["--store", store, "replay", "--diff"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no views are recorded in this store yet"), "\(missing.stderr)")
        // The demo's shell saves a checkpoint (and the views) when it ends; the same build reads the same.
        let demo = try await runDemoScript(["status"], store: dir.sub("demo"))
        #expect(demo.status == 0, "\(demo.stderr)")
        let diff = try await runFetchlog(["--store", dir.sub("demo"), "replay", "--diff", "--format", "json"])
        #expect(diff.status == 0, "\(diff.stderr)")
        let views = try JSONValue.parse(diff.stdout).arrayValue ?? []
        #expect(views.count == SeedSources.registry.views.count)
        #expect(views.allSatisfy { $0["status"] == .string("same") && $0["changes"] == .array([]) }, "\(diff.stdout.prefix(400))")
        let usage = try await runFetchlog(["--store", dir.sub("demo"), "replay", "--diff", "--to", "3"])
        #expect(usage.status == 64)
    }
}
