@testable import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// A view read again after new mutations folds them on the last view (`WriteOverlay.Kept`)
/// instead of folding every pending mutation on the 100k items again. Views are pure
/// functions of the log: after every step of a fixed pseudo-random session (creates,
/// updates, replaces, deletes, a create naming its own key, pushes, refetches) the view
/// folded step by step must equal the one folded from scratch.
@Suite struct WriteOverlayIncrementalTests {
    @Test func foldingOnTheLastViewEqualsTheFullFold() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-incremental")
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: upstream.base)
        configuration.fetching.retry.retries = 0
        let store = try await Store.open(at: URL(filePath: dir.sub("store")), sources: SourceRegistry([]), configuration: configuration)
        // A resource name of its own: the kept views are per resource, and other suites run at once.
        let manifest = OfflineWritesTests.manifest.replacingOccurrences(of: #"{"name":"notes","#, with: #"{"name":"drafts","#)
        try await store.define(try RestManifest(json: try JSONValue.parse(manifest)))
        _ = try await store.fetchManifestResource(source: "catalog", resource: "drafts")
        let (source, resource) = ("catalog", "drafts")
        var steps = WriteOverlayFoldingTests.Steps(state: 2611)
        var incremental = 0, refused = 0
        for step in 0 ..< 160 {
            let keys = try #require(ItemsView(state: store.snapshot.state, source: source, resource: resource)).items.map { ItemsView.text($0["id"]) }
            let key = keys.isEmpty ? "1" : keys[steps.next(keys.count)]
            do {
                switch steps.next(20) {
                case 0 ..< 6:
                    try await store.write(.create, source: source, resource: resource,
                                          fields: [("title", .string("step \(step)")), ("priority", .number(String(1 + step % 5)))])
                case 6 ..< 12:
                    try await store.write(.update, source: source, resource: resource, key: key, fields: [("priority", .number(String(1 + step % 5)))])
                case 12 ..< 14:
                    try await store.write(.update, source: source, resource: resource, key: key, fields: [("title", .string("retitled \(step)"))])
                case 14 ..< 16:
                    try await store.write(.replace, source: source, resource: resource, key: key, fields: [("title", .string("replaced \(step)"))])
                case 16 where keys.count > 4:
                    // Not the last items: the fields a create may give are read from them.
                    try await store.write(.delete, source: source, resource: resource, key: key)
                case 16, 17:
                    // Names its own key (the server refuses it: 422, rejected).
                    try await store.write(.create, source: source, resource: resource, fields: [("id", .number(String(900 + step))), ("title", .string("own \(step)"))])
                case 18:
                    try await store.push()
                default:
                    _ = try await store.fetchManifestResource(source: "catalog", resource: "drafts")
                }
            } catch is WriteError {
                refused += 1  // an item the view no longer holds (deleted, its create rejected)
            }
            let state = store.snapshot.state
            for confirmedOnly in [false, true] {
                let stepwise = try #require(ItemsView(state: state, source: source, resource: resource, confirmedOnly: confirmedOnly))
                let cacheKey = "\(source)/\(resource)/" + (confirmedOnly ? "confirmed" : "optimistic")
                // Taken out, the next view folds from scratch; put back, the session goes on stepwise.
                let kept = WriteOverlay.Kept.take(cacheKey)
                if kept?.incremental == true, !confirmedOnly { incremental += 1 }
                let full = try #require(ItemsView(state: state, source: source, resource: resource, confirmedOnly: confirmedOnly))
                #expect(stepwise.items == full.items, "step \(step), confirmedOnly \(confirmedOnly)")
                if let kept { WriteOverlay.Kept.keep(cacheKey, kept) }
            }
        }
        // The same session every run: so many steps were folded on the last view.
        #expect(incremental == 126 && refused == 0, "incremental \(incremental), refused \(refused)")
        await store.close()
        await upstream.stop()
    }
}
