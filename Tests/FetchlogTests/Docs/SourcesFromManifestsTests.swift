import FetchlogCore
import FetchlogSources
import Foundation
import SampleUpstream
import Testing

/// The code of `Sources/FetchlogCore/FetchlogCore.docc/SourcesFromManifests.md`, compiled and
/// run against the bundled sample upstream (same statements, same order; keep them in step).
@Suite struct SourcesFromManifestsTests {
    @Test func theArticleRunsAsWritten() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let temporary = TemporaryDirectory("manifests-article")
        let log = try EventLog.open(at: temporary.path)
        var configuration = FetchConfiguration()
        configuration.upstream = Upstream(base: base)
        let fetcher = Fetcher(sources: .seed, configuration: configuration)
        let store = try Store(log: log, sources: .seed, fetcher: fetcher)

        // Define a source
        let manifest = try RestManifest(json: try JSONValue.parse(bytes: Array("""
            {"name": "catalog",
             "client": {"base_url": "https://catalog.example"},
             "resource_defaults": {"primary_key": "id"},
             "resources": [
               {"name": "items",
                "endpoint": {"path": "pages", "data_selector": "data",
                             "paginator": {"type": "page_number", "base_page": 1, "total_path": "total_pages"}},
                "fetchlog": {"search": ["name"], "facets": ["size"]}},
               {"name": "reviews",
                "endpoint": {"path": "items/{resources.items.id}/reviews", "data_selector": "data", "paginator": "single_page"},
                "include_from_parent": ["name"]}]}
            """.utf8)))
        try await store.define(manifest)

        // Fetch a resource
        let reports = try await store.fetchManifestResource(source: "catalog", resource: "reviews")
        #expect(reports.count == 15)

        // Ask the views
        let state = store.snapshot.state
        let items = ItemsView(state: state, source: "catalog", resource: "items")!
        let found = items.query(text: "item 1", conditions: [ItemsView.Condition(field: "size", value: "100..120")])
        #expect(found.compactMap { $0["id"]?.intValue } == [10, 11, 12])
        let reviews = ItemsView(state: state, source: "catalog", resource: "reviews")!
        #expect(reviews.items.first?["_items_name"] == .string("item 1"))
        let schema = ManifestSchemas.schema(of: "items/catalog/reviews", state: state)!
        #expect(schema["title"] == .string("items/catalog/reviews"))

        // Change the reading, not the data
        let edited = #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":[{"name":"items","primary_key":"id","#
            + #""endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}}]}"#
        let editedManifest = try RestManifest(json: try JSONValue.parse(bytes: Array(edited.utf8)))
        let trial = ManifestTrial(editedManifest, on: store.snapshot.state)
        #expect(trial.resources.map(\.resource) == ["items", "reviews"])
        #expect(trial.resources.last?.removed.count == 12) // the reviews resource is gone from the edit
        try await store.define(editedManifest)
        #expect(ItemsView(state: store.snapshot.state, source: "catalog", resource: "reviews") == nil)

        await fetcher.shutdown()
        log.close()
        await upstream.stop()
    }
}
