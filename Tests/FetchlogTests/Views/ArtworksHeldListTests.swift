import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Artworks after a non-default limit (issue 12, item 2): the list the user fetched with
/// `--limit 4` is the one readers open and the prefetch continues.
@Suite(.serialized) struct ArtworksHeldListTests {
    @Test func theHeldLimitIsFoundAndThePrefetchUsesIt() async throws {
        let rig = try await PolicyRig.start()
        // Nothing held: the API's default page size.
        let none = ArtworksView.heldList(in: rig.store.snapshot.state)
        #expect(none.limit == 12 && none.page1 == .articArtworks(page: 1, limit: 12))

        // The sample upstream holds 10 artworks; with limit 4 pages advance by 3 (the last of
        // a page repeats as the next one's first), so there are 3 pages: 1 and 2 here, then 3.
        let fetched = try await rig.store.fetchArticArtworks(pages: .range(1 ... 2), limit: 4)
        #expect(fetched.map(\.outcome) == [.fetched, .fetched])
        try await rig.store.catchUp()
        let held = ArtworksView.heldList(in: rig.store.snapshot.state)
        #expect(held.limit == 4)
        #expect(held.page1 == .articArtworks(page: 1, limit: 4))
        #expect(ArtworksView(state: rig.store.snapshot.state).count == 7)

        // Near the end of what is held, the next page of the held list is fetched: page 3
        // with limit=4, never a limit-12 page 1.
        #expect(rig.policy.didShow(itemIndex: 6, of: .artworks()) == .articArtworks(page: 3, limit: 4))
        await rig.policy.waitForBackgroundWork()
        #expect(await rig.requests("/artic/api/v1/artworks?page=3&limit=4") == 1)
        #expect(await rig.upstream.requestLog.filter { $0.path.contains("limit=12") }.isEmpty)
        #expect(ArtworksView(state: rig.store.snapshot.state).count == 10)
        // Page 3 of 3 is the last: nothing more to prefetch.
        #expect(rig.policy.didShow(itemIndex: 9, of: .artworks()) == nil)

        // Two limits held: the most recently fetched page 1 decides.
        _ = try await rig.store.fetch(.articArtworks(page: 1, limit: 5))
        try await rig.store.catchUp()
        #expect(ArtworksView.heldList(in: rig.store.snapshot.state).limit == 5)
        await rig.stop()
    }
}
