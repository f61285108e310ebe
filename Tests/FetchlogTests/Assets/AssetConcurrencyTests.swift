import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Bounded concurrency for asset downloads (issue 12, item 11), measured on the server:
/// the sample upstream holds each image request 200 ms (its latency fault) and records when
/// it answered, so each request was in flight at least over (answer − 200 ms, answer].
@Suite(.serialized) struct AssetConcurrencyTests {
    /// The most requests the server held at one moment, from the answer times. Each
    /// request's interval is cut to its last 200 ms — within its real interval — so this can
    /// only under-count, never over-count.
    static func mostAtOnce(_ answered: [Date], hold: TimeInterval = 0.2) -> Int {
        answered.map { t in answered.filter { $0 >= t && $0.timeIntervalSince(t) < hold }.count }.max() ?? 0
    }

    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var plans: [Int] = []
        private var reported: [String] = []
        func plan(_ n: Int) { lock.withLock { plans.append(n) } }
        func report(_ r: FetchReport) { lock.withLock { reported.append(r.resource.path) } }
        var snapshot: (plans: [Int], reported: [String]) { lock.withLock { (plans, reported) } }
    }

    /// Eight shows (one sized page of 8), each with its own medium image; returns the
    /// reports, the server's answer times of the image requests, and the callbacks seen.
    func run(concurrency: Int) async throws -> (reports: [FetchReport], answered: [Date], seen: Seen, assets: [AssetsView.Row]) {
        let rig = try await PolicyRig.start {
            $0.tvmazePageSize = 8
            $0.tvmazePages = 1
            $0.faults = [Fault(match: "/assets", kind: .latency(milliseconds: 200))]
        }
        try await rig.policy.fetchShowsPage(0)
        let seen = Seen()
        let reports = try await rig.policy.fetchShowListImages(
            first: 8, concurrency: concurrency, progress: AssetProgress(onPlan: { seen.plan($0) }, onReport: { seen.report($0) }))
        let answered = await rig.upstream.requestLog.filter { $0.path.hasPrefix("/assets/") }.map(\.date)
        let assets = AssetsView(state: rig.store.snapshot.state).rows
        await rig.stop()
        return (reports, answered, seen, assets)
    }

    static let mediums = (1 ... 8).map { "https://static.tvmaze.com/uploads/images/medium_portrait/sized/\($0).jpg" }

    @Test func fourAtOnceAtMostAndTheSameResultsAsOneAtATime() async throws {
        let parallel = try await run(concurrency: 4)
        let serial = try await run(concurrency: 1)

        #expect(parallel.answered.count == 8)
        let most = Self.mostAtOnce(parallel.answered)
        #expect(most <= 4 && most >= 2, "the server held \(most) image requests at once")
        #expect(serial.answered.count == 8)
        #expect(Self.mostAtOnce(serial.answered) == 1)

        // Plan order, whatever the completion order: the eight mediums, shows 1…8.
        #expect(parallel.reports.map(\.resource.path) == Self.mediums)
        #expect(serial.reports.map(\.resource.path) == Self.mediums)
        #expect(parallel.reports.map(\.outcome) == Array(repeating: .fetched, count: 8))
        #expect(parallel.reports.map(\.attempts.count) == serial.reports.map(\.attempts.count))
        // The same bytes held either way (seqs differ with the completion order).
        #expect(parallel.assets.map { [$0.url, $0.info?.sha256 ?? "", "\($0.info?.size ?? 0)"] }
                == serial.assets.map { [$0.url, $0.info?.sha256 ?? "", "\($0.info?.size ?? 0)"] })
        #expect(parallel.assets.count == 8 && parallel.assets.allSatisfy { $0.info != nil })

        // The plan is told once, before anything; every download is reported once.
        for seen in [parallel.seen, serial.seen] {
            #expect(seen.snapshot.plans == [8])
            #expect(seen.snapshot.reported.sorted() == Self.mediums.sorted())
        }
    }

    /// URLs already held are neither planned nor fetched.
    @Test func heldURLsAreNotPlanned() async throws {
        let rig = try await PolicyRig.start()
        _ = try await rig.store.fetch(.brastlewarkCensus)
        try await rig.store.catchUp()
        let thumbnails = Array(Set(GnomesView(state: rig.store.snapshot.state).gnomes.map(\.thumbnail))).sorted()
        #expect(thumbnails.count == 32)
        // Two held before the run: 30 planned, 30 fetched.
        for url in thumbnails.prefix(2) { try await rig.policy.fetchAsset(url) }
        let seen = Seen()
        let reports = try await rig.policy.fetchGnomeThumbnails(concurrency: 4, progress: AssetProgress(onPlan: { seen.plan($0) }, onReport: { seen.report($0) }))
        #expect(seen.snapshot.plans == [30])
        #expect(reports.map(\.resource.path) == Array(thumbnails.dropFirst(2)))
        #expect(await rig.upstream.requestLog.filter { $0.path.hasPrefix("/assets/") }.count == 32)
        await rig.stop()
    }

    /// Items that share a URL, running at once, share one fetch of it: the first caller's
    /// fetch runs, the others wait for its outcome.
    @Test func concurrentItemsShareOneFetchOfAURL() async throws {
        let run = DownloadRun()
        let calls = Seen()
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0 ..< 8 {
                group.addTask {
                    try await run.outcome(of: "https://example.org/shared.jpg") {
                        calls.plan(1)
                        try await Task.sleep(for: .milliseconds(100))
                        return nil // "already held": success without a report
                    }
                }
            }
            var all: [Bool] = []
            for try await ok in group { all.append(ok) }
            return all
        }
        #expect(outcomes == Array(repeating: true, count: 8))
        #expect(calls.snapshot.plans == [1], "one fetch for eight items")
        #expect(run.report(for: "https://example.org/shared.jpg") == nil)
    }
}
