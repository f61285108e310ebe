import FetchlogCore
import Foundation
import Synchronization
import Testing

/// Issue 36, item 2: the pager is a client of the store. A list's pages are each folded
/// once, by the fetch that asked it; the pager reads each page from the snapshot that fetch
/// left, with no catch-up of its own.
@Suite struct ManifestPagerTests {
    @Test func eachPageIsFoldedOnceByTheFetchThatAskedIt() async throws {
        let tests = ManifestTests()
        let rig = try await tests.start(try ManifestTests.manifest(
            #"{"name":"pages","primary_key":"id","endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}}"#))
        // The size of every batch of events the store folds, empty ones included.
        let folds = Mutex<[Int]>([])
        rig.store.observeActions { action in
            if case .eventsAppended(let events, _) = action { folds.withLock { $0.append(events.count) } }
        }
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: "pages")
        #expect(reports.map(\.resource.path) == ["/pages?page=1", "/pages?page=2", "/pages?page=3"])
        let batches = folds.withLock { $0 }
        // One batch per page, holding that page's event.
        #expect(batches.filter { $0 > 0 } == [1, 1, 1], "\(batches)")
        // And the one empty one: the run's own catch-up before its first page. The store
        // catches up before a request only when another process appended since (whose
        // validators would be the ones to send), and the pager adds none per page.
        #expect(batches == [0, 1, 1, 1], "\(batches)")
        await tests.stop(rig)
    }
}
