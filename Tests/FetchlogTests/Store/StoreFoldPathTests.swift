import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Issue 25, item 1: the store owns the log's appends and folds every appended event by one
/// path — `.eventsAppended` through `AppReducer` — whoever appended it; its checkpoint
/// interval is set once, when it opens; a fetch that brought nothing usable says so.
@Suite struct StoreFoldPathTests {
    /// What the store reduced, in order: an action's name, with the seqs of appended events
    /// (and of the bodies that came decoded with them).
    private enum Reduced: Equatable, CustomStringConvertible {
        case appended(seqs: [UInt64], decoded: [UInt64])
        case other(String)
        var description: String {
            switch self {
            case .appended(let seqs, let decoded): "appended \(seqs) decoded \(decoded)"
            case .other(let name): name
            }
        }
    }

    @Test func everyAppendedEventIsFoldedOnceByEventsAppended() async throws {
        // The census fails once (503) and then comes: two attempts, two events.
        let h = try await FetchHarness.start(faults: [Fault(match: "/brastlewark", kind: .failNext(1))], retries: 1)
        defer { Task { await h.stop() } }
        let reduced = LockedBox<[Reduced]>([])
        h.store.observeActions { action in
            let entry: Reduced? = switch action {
            // A catch-up with nothing new (before a fetch, for the validators) folds nothing.
            case .eventsAppended(let events, _) where events.isEmpty: nil
            case .eventsAppended(let events, let decoded): .appended(seqs: events.map(\.seq), decoded: decoded.keys.sorted())
            case .fetch: .other("fetch")
            case .fetchForSession: .other("fetchForSession")
            case .intent: .other("intent")
            case .renew: .other("renew")
            }
            if let entry { reduced.set(reduced.get() + [entry]) }
        }

        // This process's fetch: the failure and the success, in order, the census body
        // handed over as the fetcher decoded it.
        let report = try await h.store.fetch(.brastlewarkCensus)
        #expect(report.outcome == .fetched)
        #expect(report.attempts.map(\.seq) == [1, 2])
        // This process's intent.
        try await h.store.sendIntent(source: .brastlewark, label: "filter.reset", body: .object([]))
        // Another process's append, seen by catch-up.
        try await h.log.append(Event(recordedAt: fixedTime, kind: .fetchFailed, source: "tvmaze", label: "/shows?page=0", attempt: 1,
                                     request: Event.Request(url: h.base + "/tvmaze/shows?page=0"), failure: Event.Failure(.timeout, "slow")))
        #expect(try await h.store.catchUp() == 1)

        #expect(reduced.get() == [
            .other("fetch"), .appended(seqs: [1, 2], decoded: [2]),
            .other("intent"), .appended(seqs: [3], decoded: []),
            .appended(seqs: [4], decoded: []),
        ], "\(reduced.get())")
        // What that one path folded is what the log alone gives.
        #expect(h.store.durableState == (try Store.replay(h.log, sources: .seed).state))
        #expect(h.store.durableState.seq == 4)
    }

    @Test func theCheckpointIntervalIsSetOnceWhenTheStoreOpens() async throws {
        let directory = TemporaryDirectory("checkpoint-interval")
        var configuration = Store.Configuration()
        configuration.clock = FixedClock(fixedTime)
        configuration.checkpointInterval = 3
        let store = try await Store.open(at: URL(filePath: directory.path), sources: .seed, configuration: configuration)
        #expect(store.checkpointInterval == 3)
        func checkpointSeq() throws -> UInt64? {
            try store.log.loadCheckpoint().flatMap { try JSONValue.parse(bytes: $0)["seq"]?.intValue }.map(UInt64.init)
        }
        var saved: [UInt64?] = []
        for _ in 1 ... 7 {
            try await store.sendIntent(source: .brastlewark, label: "filter.reset", body: .object([]))
            saved.append(try checkpointSeq())
        }
        // A checkpoint after every third applied event, none before.
        #expect(saved == [nil, nil, 3, 3, 3, 6, 6])
        await store.close()

        let defaults = try await Store.open(at: URL(filePath: TemporaryDirectory("checkpoint-default").path), sources: .seed)
        #expect(defaults.checkpointInterval == 500)
        await defaults.close()
    }

    @Test func aFetchThatBroughtNothingUsableSaysSo() async throws {
        let h = try await FetchHarness.start(retries: 0)
        defer { Task { await h.stop() } }
        // Nothing held, the one attempt fails: nothing usable.
        await h.upstream.setFaults([Fault(match: "/brastlewark", kind: .failNext(1))])
        let failed = try await h.store.fetch(.brastlewarkCensus)
        #expect(failed.outcome == .failed(.httpStatus, "HTTP 503 Service Unavailable"))
        #expect(!failed.holdsBody)
        #expect(failed.usability == .nothingUsable)

        let fetched = try await h.store.fetch(.brastlewarkCensus)
        #expect(fetched.outcome == .fetched)
        #expect(fetched.holdsBody)
        #expect(fetched.usability == .usable)

        // A failure with the census held from before: not refreshed, still usable.
        await h.upstream.setFaults([Fault(match: "/brastlewark", kind: .failNext(1))])
        let stale = try await h.store.fetch(.brastlewarkCensus)
        #expect(stale.outcome == .failed(.httpStatus, "HTTP 503 Service Unavailable"))
        #expect(stale.holdsBody)
        #expect(stale.usability == .keptHeldBody)
        #expect(try h.events().map(\.kind) == [.fetchFailed, .fetched, .fetchFailed])

        // Offline: no attempt, nothing held for this resource.
        var configuration = h.fetcher.configuration
        configuration.offline = true
        let offline = Fetcher(sources: .seed, configuration: configuration)
        defer { Task { await offline.shutdown() } }
        let none = try await Store(log: h.log, sources: .seed, fetcher: offline).fetch(.tvmazeShowsPage(0))
        #expect(none.attempts.isEmpty)
        #expect(none.usability == .nothingUsable)
    }
}
