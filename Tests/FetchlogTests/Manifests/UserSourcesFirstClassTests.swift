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
