import Foundation
import Logging
import ServiceLifecycle
import Testing
@testable import FetchlogCore
@testable import FetchlogSources
import FetchlogSync

/// Issue 37, item 3: the sync loop as a swift-service-lifecycle `Service` an app adds to its
/// `ServiceGroup`, its state observable, ended by the group's graceful shutdown. Real LMDB,
/// the catalog upstream on loopback.
@Suite struct SyncServiceTests {
    @Test func aServiceGroupKeepsTheStoreInSyncUntilItShutsDown() async throws {
        let rig = try await ClockedRig.start("sync-service", manifest: SyncLoopTests.manifest)
        let (upstream, fetcher, store) = (rig.upstream, rig.fetcher, rig.store)

        let sync = SyncService(store: store)
        let group = ServiceGroup(services: [sync], gracefulShutdownSignals: [], logger: Logger(label: "sync-service-test"))
        let running = Task { try await group.run() }
        var statuses = sync.statuses.makeAsyncIterator()
        let first = try #require(await statuses.next())
        // The first pass right away: items' three pages and notes, nothing failing, and the
        // next due when items' 15 minutes run out.
        #expect(first.passes == 1)
        #expect(first.at == fixedTime)
        #expect(first.failing == [])
        #expect(first.waitingWrites == 0)
        #expect(first.requests == 4)
        #expect(first.nextDue == Timestamp(milliseconds: fixedTime.milliseconds + 15 * 60_000))
        #expect(store.snapshot.state.seq == 5) // the definition and its 4 fetches

        // One sync per store: a second service is refused while the first runs.
        await #expect(throws: SyncClaim.Held.self) { try await SyncService(store: store).run() }

        // A graceful shutdown ends the sleeping service, and its statuses end with it.
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(await statuses.next() == nil)
        await fetcher.shutdown()
        await upstream.stop()
    }
}
