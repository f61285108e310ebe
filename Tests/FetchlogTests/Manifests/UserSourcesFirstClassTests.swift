import Foundation
import Testing
@testable import FetchlogCore

/// Issue 36, the user's own sources first-class: `sources` lists the sources defined by
/// manifests after the plug-ins, with their base URL, resources held and last success;
/// `replay` and `replay --verify` name their resources' views beside the seeds'.
@Suite struct UserSourcesFirstClassTests {
    @Test func sourcesListsTheManifestSourcesAfterThePlugins() async throws {
        let fixture = try await SQLTestStore.make("sources-list")
        let listed = try await fixture.run(["--format", "json", "query", "sources"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let rows = try JSONValue.parse(listed.stdout).arrayValue ?? []
        #expect(rows.compactMap { $0["source"]?.stringValue } == ["tvmaze", "brastlewark", "viaplay", "thmanyah", "artic", "catalog", "census"])
        let census = try #require(rows.first { $0["source"] == .string("census") })
        #expect(census["base"] == .string("https://raw.githubusercontent.com/rrafols/mobile_test/master"))
        #expect(census["held"] == .number(1))
        #expect(census["lastSuccess"]?.stringValue?.isEmpty == false)
        let catalog = try #require(rows.first { $0["source"] == .string("catalog") })
        #expect(catalog["base"] == .string("https://catalog.example"))
        // 3 pages of items, and the reviews of each of its 12 items.
        #expect(catalog["held"] == .number(15))
    }

    @Test func replayNamesTheManifestResourcesViews() async throws {
        let fixture = try await SQLTestStore.make("replay-names")
        let replay = try await fixture.run(["--format", "json", "replay", "--verify"])
        #expect(replay.status == 0, "\(replay.stderr)")
        let rows = try JSONValue.parse(replay.stdout).arrayValue ?? []
        let items = rows.filter { $0["view"]?.stringValue?.hasPrefix("items/") == true }
        #expect(items.compactMap { $0["view"]?.stringValue } == ["items/catalog/items", "items/catalog/reviews", "items/catalog/linked", "items/catalog/cursored",
                                                                 "items/catalog/offsets", "items/catalog/headed", "items/catalog/ended", "items/census/gnomes"])
        #expect(items.allSatisfy { $0["matchesLive"] == .bool(true) })
        // Each fed by its source's events: census one fetch; catalog its items' 3 pages, then
        // for the reviews the 3 pages again and the 12 items' reviews.
        #expect(items.first { $0["view"] == .string("items/census/gnomes") }?["events"] == .number(1))
        #expect(items.first { $0["view"] == .string("items/catalog/items") }?["events"] == .number(18))
        // The seeds' views come first, as before.
        #expect(rows.first?["view"] == .string("artists"))
        // `export --help` names a manifest's views beside the seeds'.
        let help = try await runFetchlog(["export", "--help"])
        #expect(help.stdout.contains("items/SOURCE/RESOURCE and facets/SOURCE/RESOURCE"), "\(help.stdout)")
    }
}

/// Issue 36: `help items` (and `item`, `facets`, `links`) gives a real example: on a store
/// that defines sources, one of its own that runs and answers; on one that defines none, the
/// census manifest's, with the steps that make it run.
@Suite struct HelpGivesARealExampleTests {
    @Test func helpNamesTheStoresOwnSourceAndTheExampleRuns() async throws {
        let fixture = try await SQLTestStore.make("help-examples")
        for (command, expected) in [("items", "items catalog items"), ("item", "item catalog items 1"), ("facets", "facets catalog items"),
                                    ("links", "links catalog items 1")] {
            let help = try await fixture.run(["--format", "json", "query", "help \(command)"])
            #expect(help.status == 0, "\(help.stderr)")
            #expect(try JSONValue.parse(help.stdout)["example"] == .string(expected), "\(help.stdout)")
        }
        // What the example says runs, and answers the first item.
        let ran = try await fixture.run(["--format", "json", "query", "item catalog items 1"])
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(try JSONValue.parse(ran.stdout)["id"] == .number(1), "\(ran.stdout)")
    }

    @Test func onAStoreWithoutManifestsHelpSaysHowToMakeOneRun() async throws {
        let dir = TemporaryDirectory("help-no-manifest")
        let help = try await runFetchlog(["--store", dir.sub("store"), "query", "help items"])
        #expect(help.status == 0, "\(help.stderr)")
        #expect(help.stdout.contains("  example: items census gnomes   (once defined and fetched: source add docs/manifests/census.json, then fetch census gnomes)\n"),
                "\(help.stdout)")
    }
}
