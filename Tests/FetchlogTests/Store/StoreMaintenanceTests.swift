import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Issue 25: everything the command line does to a store is the store's API
/// (`StoreMaintenance`), with typed reasons; no client needs the log itself.
@Suite struct StoreMaintenanceTests {
    /// The 29 events of `CompactionTests.revalidatedLog()` in a store opened for maintenance only.
    static func filled(_ directory: TemporaryDirectory) async throws -> StoreMaintenance {
        let maintenance = try StoreMaintenance.open(at: URL(filePath: directory.path), sources: SeedSources.registry)
        _ = try await offPool { try maintenance.appendBlocking(contentsOf: try CompactionTests.revalidatedLog()) }
        return maintenance
    }

    @Test func readsCountsAndVerifiesWithoutFoldingTheState() async throws {
        let directory = TemporaryDirectory("maintenance-read")
        let maintenance = try await Self.filled(directory)
        #expect(try maintenance.lastSeq() == 29)
        #expect(try maintenance.tail(2).map(\.seq) == [28, 29])
        #expect(try maintenance.event(at: 4).kind == .notModified)
        #expect(try maintenance.firstEvent(where: { $0.kind == .fetchFailed })?.seq == 29)
        #expect(try maintenance.statistics().events == 29)
        #expect(try maintenance.statistics().bySource == ["brastlewark": 22, "tvmaze": 3, "viaplay": 4])
        let verification = try maintenance.verify()
        #expect(verification.isHealthy)
        #expect(verification.records.checked == 29)
        #expect(verification.pages == [])
    }

    @Test func refusalsAreTypedReasons() async throws {
        let directory = TemporaryDirectory("maintenance-refusals")
        let maintenance = try await Self.filled(directory)
        #expect(throws: MaintenanceError.noEvent(seq: 30, lastSeq: 29)) { try maintenance.event(at: 30) }
        #expect(throws: MaintenanceError.seqPastEnd(seq: 31, lastSeq: 29)) { try maintenance.checkSeq(31) }
        #expect(throws: MaintenanceError.seqPastEnd(seq: 31, lastSeq: 29)) { try maintenance.replay(to: 31) }
        // No checkpoint was saved, so no build recorded its views.
        #expect(throws: MaintenanceError.noRecordedViews) { try maintenance.replayDiff() }
        let empty = TemporaryDirectory("maintenance-salvage-nothing")
        #expect(throws: MaintenanceError.nothingToSalvage(dataFile: empty.path + "/data.mdb")) {
            try StoreMaintenance.salvage(at: URL(filePath: empty.path))
        }
        #expect(MaintenanceError.noEvent(seq: 30, lastSeq: 29).description == "no event 30: the log holds 1…29")
    }

    /// Compaction through an open store: the superseded bodies go (as `CompactionTests`
    /// counts them) and the store's state, folded again, reads the same at the head.
    @Test func theStoreCompactsAndFoldsTheChange() async throws {
        let directory = TemporaryDirectory("maintenance-compact")
        let maintenance = try await Self.filled(directory)
        var configuration = Store.Configuration()
        configuration.fetches = false
        let store = try await Store.open(maintenance, configuration: configuration)
        let headBefore = try ViewCatalog.export("all", state: store.snapshot.state).canonicalText()
        let done = try await store.compact()
        #expect(done.events == 23)
        #expect(try store.maintenance.compactionHorizon() == 28)
        #expect(try ViewCatalog.export("all", state: store.snapshot.state).canonicalText() == headBefore)
        #expect(try await store.compact() == BodyCompaction())
        await store.close()
    }

    /// Export from one store, merge into another through its open store: every event once,
    /// the state folded; merging again adds nothing.
    @Test func exportAndMergeGoThroughTheStore() async throws {
        let from = TemporaryDirectory("maintenance-export")
        let source = try await Self.filled(from)
        let file = from.path + "/export.ndjson"
        var text = ""
        #expect(try source.exportNDJSON { text += $0 } == 29)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let into = TemporaryDirectory("maintenance-merge")
        var configuration = Store.Configuration()
        configuration.fetches = false
        let store = try await Store.open(at: URL(filePath: into.path), sources: SeedSources.registry, configuration: configuration)
        let first = try await store.merge(file: file)
        #expect((first.imported, first.alreadyHeld, first.firstSeq, first.lastSeq) == (29, 0, 1, 29))
        #expect(store.snapshot.seq == 29)
        let second = try await store.merge(file: file)
        #expect((second.imported, second.alreadyHeld) == (0, 29))
        let missing = into.path + "/missing.ndjson"
        do {
            _ = try store.maintenance.merge(file: missing)
            Issue.record("a missing file was merged")
        } catch MaintenanceError.unreadable(let file, _) {
            #expect(file == missing)
        }
        await store.close()
    }
}
