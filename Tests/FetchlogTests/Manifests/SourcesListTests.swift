import Foundation
import Testing
@testable import FetchlogCore

/// Issue 36, the user's own sources first-class: `sources` lists the sources defined by
/// manifests after the plug-ins, with their base URL, resources held and last success.
@Suite struct SourcesListTests {
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
}
