import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Cancelling a fetch (what Ctrl-C does to the command's task): the request in flight is
/// abandoned, no retry is made, nothing is recorded for the abandoned attempt, and the
/// error says what was recorded. Real HTTP on loopback against the sample upstream, whose
/// latency fault holds a request far longer than any of these tests may take.
@Suite struct FetchCancellationTests {
    static let held = Fault(match: "/brastlewark", kind: .latency(milliseconds: 90_000))

    /// Waits (bounded) until the upstream has received a request for `path`.
    static func arrived(_ h: FetchHarness, _ path: String, count: Int = 1) async throws {
        // Generous: the full suite on two cores was seen to stall loopback requests over 10 s.
        let arrived = try await waitUntil(timeout: .seconds(60)) {
            await h.upstream.receivedPaths.filter { $0 == path }.count >= count
        }
        try #require(arrived, "\(path) never reached the upstream")
    }

    /// Runs `body` with a harness and always stops it (a fetcher left running traps in a
    /// debug build), also when an expectation ends the test early.
    /// The body runs ahead of the rest of the suite (`aheadOfTheSuite`): these tests bound
    /// how soon a cancellation ends a fetch.
    static func withHarness(faults: [Fault] = [], readTimeout: Duration = .seconds(30),
                            _ body: @escaping @Sendable (FetchHarness) async throws -> Void) async throws {
        try await aheadOfTheSuite {
            let h = try await FetchHarness.start(faults: faults, readTimeout: readTimeout)
            do { try await body(h) } catch {
                await h.stop()
                throw error
            }
            await h.stop()
        }
    }

    static func cancelled<T>(_ task: Task<T, any Error>) async -> FetchCancelled? {
        do {
            _ = try await task.value
            return nil
        } catch {
            return error as? FetchCancelled
        }
    }

    @Test func cancellingAbandonsTheRequestInFlightAndRecordsNothing() async throws {
        try await Self.withHarness(faults: [Self.held], readTimeout: .seconds(120)) { h in
            let task = Task { try await h.store.fetch(.brastlewarkCensus) }
            try await Self.arrived(h, "/brastlewark/data.json")
            let cancelledAt = ContinuousClock.now
            task.cancel()
            let error = try #require(await Self.cancelled(task))
            // Far below the 20 s latency, with room for a loaded machine.
            #expect(ContinuousClock.now - cancelledAt < .seconds(5))
            #expect(error.completed.isEmpty)
            #expect(error.interrupted?.resource == .brastlewarkCensus)
            #expect(error.interrupted?.attempts.isEmpty == true)
            #expect(error.requestInFlight)
            #expect(error.description == "cancelled: no event was recorded; the request in flight was not recorded")
            // No event (not even a failure), no retry sent.
            #expect(try h.events().isEmpty)
            #expect(await h.upstream.receivedPaths == ["/brastlewark/data.json"])
        }
    }

    /// The wait before a retry ends at the cancellation: the failure already recorded stays,
    /// no further attempt is made.
    @Test func cancellingDuringTheRetryWaitMakesNoFurtherAttempt() async throws {
        // 503 with Retry-After: 30, so the next attempt would be 30 s away.
        try await Self.withHarness(faults: [Fault(match: "/brastlewark", kind: .status(503, retryAfter: 30))]) { h in
            let task = Task { try await h.store.fetch(.brastlewarkCensus) }
            // Within the 30 s before the retry; the full suite on two cores was seen to take
            // over 10 s to get the 503 recorded.
            let recorded = try await waitUntil(timeout: .seconds(25)) { try h.log.lastSeq() == 1 }
            try #require(recorded)
            task.cancel()
            let error = try #require(await Self.cancelled(task))
            #expect(!error.requestInFlight)
            #expect(error.interrupted?.attempts.map(\.seq) == [1])
            #expect(error.description == "cancelled: 1 event was recorded (seq 1); no request was in flight")
            let events = try h.events()
            #expect(events.map(\.kind) == [.fetchFailed])
            #expect(events.map { $0.response?.status } == [503])
            #expect(await h.upstream.receivedPaths == ["/brastlewark/data.json"])
        }
    }

    /// A paged fetch stops between pages; the error lists the pages recorded before.
    @Test func aPagedFetchStopsBetweenPagesAndSaysWhatWasRecorded() async throws {
        try await Self.withHarness { h in
            let task = Task {
                try await FetchLedger.collecting {
                    // Cancelled as soon as the first page is in: the second is never asked for.
                    try await h.store.fetchTVMazeShows(pages: .range(0 ... 2), onReport: { _ in
                        withUnsafeCurrentTask { $0?.cancel() }
                    })
                }
            }
            let error = try #require(await Self.cancelled(task))
            #expect(error.completed.map(\.resource) == [.tvmazeShowsPage(0)])
            #expect(error.interrupted == nil)
            #expect(!error.requestInFlight)
            #expect(error.description == "cancelled: 1 event was recorded (seq 1); no request was in flight")
            #expect(try h.events().map(\.label) == ["/shows?page=0"])
            #expect(await h.upstream.receivedPaths == ["/tvmaze/shows?page=0"])
        }
    }

    /// Two callers share one request: when one is cancelled, the other still gets the
    /// answer, recorded once.
    @Test func cancellingOneOfTwoCallersOfASharedFetchLeavesTheOtherItsAnswer() async throws {
        // The answer is held 20 s: the window in which the second caller must join. Under the
        // full suite on two cores a 3 s window closed before the second task ran (the test
        // took 75 s). A read timeout well past it: a held answer failed by the timeout and
        // retried is not what this tests.
        try await Self.withHarness(faults: [Fault(match: "/brastlewark", kind: .latency(milliseconds: 20_000))], readTimeout: .seconds(120)) { h in
            let first = Task { try await h.store.fetch(.brastlewarkCensus) }
            try await Self.arrived(h, "/brastlewark/data.json")
            let second = Task { try await h.store.fetch(.brastlewarkCensus) }
            // The second caller waits on the first one's request (none of its own is sent).
            let joined = try await waitUntil(timeout: .seconds(20)) { h.fetcher.waiters.count(for: .brastlewarkCensus) == 2 }
            try #require(joined)
            first.cancel()
            let report = try await second.value
            #expect(report.outcome == .fetched)
            // The cancelled caller waited for the shared answer too (the request went on for the
            // other caller, and was recorded): it gets that report, not an error that would say
            // the request was not recorded.
            #expect(try await first.value.outcome == .fetched)
            #expect(try h.events().map(\.kind) == [.fetched])
            #expect(await h.upstream.receivedPaths == ["/brastlewark/data.json"])
        }
    }

    /// A command waiting for its first data (nothing held) stops waiting at Ctrl-C, and the
    /// background fetch it waited for is abandoned, not recorded.
    @Test func cancellingAWaitForBackgroundWorkCancelsTheFetchItWaitsFor() async throws {
        try await Self.withHarness(faults: [Self.held], readTimeout: .seconds(120)) { h in
            let store = try Store(log: h.log, sources: .seed, fetcher: h.fetcher, clock: FixedClock(fixedTime))
            let policy = OfflineFirst(store: store, clock: FixedClock(fixedTime))
            let opened = try await policy.open(.brastlewarkCensus)
            #expect(opened.revalidating)
            let waiting = Task { await policy.waitForBackgroundWork() }
            try await Self.arrived(h, "/brastlewark/data.json")
            let cancelledAt = ContinuousClock.now
            waiting.cancel()
            await waiting.value
            // The background fetch ends too (its task removes itself when done).
            // Bounds far below the 20 s latency, with room for a loaded machine.
            let ended = try await waitUntil(timeout: .seconds(5)) { !policy.isRevalidating(.brastlewarkCensus) }
            #expect(ended)
            #expect(ContinuousClock.now - cancelledAt < .seconds(5))
            #expect(try h.events().isEmpty)
            #expect(await h.upstream.receivedPaths == ["/brastlewark/data.json"])
        }
    }

    @Test func replayAndExportStopWhenCancelled() async throws {
        let dir = TemporaryDirectory("replay-cancel")
        let log = try EventLog.open(at: dir.path)
        defer { log.close() }
        try log.appendBlocking(contentsOf: (0 ..< 300).map { _ in richEvent() })
        #expect(throws: ReplayCancelled(seq: 256, last: 300)) { try Store.replay(log, sources: .seed, isCancelled: { true }) }
        #expect(throws: ReplayCancelled(seq: 256, last: 300)) { try Store.fullReplay(log, sources: .seed, isCancelled: { true }) }
        #expect(try Store.replay(log, sources: .seed, isCancelled: { false }).state.seq == 300)

        // In a cancelled task, by default.
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var lines = 0
            let replay = Result { try Store.replay(log, sources: .seed) }
            let export = Result { try log.exportNDJSON { _ in lines += 1 } }
            return (replay, export, lines)
        }
        let (replay, export, lines) = await task.value
        #expect(throws: ReplayCancelled(seq: 256, last: 300)) { try replay.get() }
        #expect(throws: ExportCancelled(lastWritten: nil)) { try export.get() }
        #expect(lines == 0)
    }
}
