import Foundation
import Synchronization

/// What a run of asset downloads tells its caller while it works (a progress bar).
///
/// Both callbacks may be called from any task; the reports a run returns come in plan
/// order whatever the order of these calls.
package struct AssetProgress: Sendable {
    /// Once, before the first download starts: how many downloads are planned — one per
    /// distinct URL that an item tries first and whose bytes are not held yet. A fallback
    /// (the original after the medium failed) is a download beyond the plan.
    package var onPlan: @Sendable (Int) -> Void
    /// After each download (one URL with the fetcher's retries) ends, in completion order.
    package var onReport: @Sendable (FetchReport) -> Void

    package init(onPlan: @escaping @Sendable (Int) -> Void = { _ in }, onReport: @escaping @Sendable (FetchReport) -> Void = { _ in }) {
        self.onPlan = onPlan
        self.onReport = onReport
    }
}

/// Downloading the images the views name, with the fallback a source promises: each
/// candidate is tried (with the fetcher's retries) before the next; each distinct URL is
/// fetched once per run; an image is durable when the item naming it is (a source with a
/// durable window plans its images accordingly).
///
/// Up to `concurrency` items download at once (a task group). The promises hold whatever
/// the timing: an item's candidates are still tried strictly in order; a URL two items
/// share is fetched once and the other item waits for its outcome; and the reports come
/// back in the order a one-at-a-time run would give them (plan order), not in completion
/// order.
extension OfflineFirst {
    /// One asset by its real URL.
    @discardableResult
    package func fetchAsset(_ url: String, durable: Bool = true) async throws -> FetchReport {
        try await store.fetch(.asset(url), durable: durable)
    }

    /// One item to download: its candidates in preference order, and whether it is durable.
    package struct DownloadItem: Sendable {
        package let candidates: [(kind: String, url: String)]
        package let durable: Bool
        package init(candidates: [(kind: String, url: String)], durable: Bool) {
            self.candidates = candidates
            self.durable = durable
        }
    }

    // MARK: The run

    /// Downloads `plan` with at most `concurrency` items in flight; returns the reports in
    /// the order a one-at-a-time run gives them.
    package func download(_ plan: [DownloadItem], concurrency: Int = 4, progress: AssetProgress = AssetProgress()) async throws -> [FetchReport] {
        let state = store.snapshot.state
        func held(_ url: String) -> Bool { state.documents[ResourceKey(source: Source.assets.rawValue, path: url)] != nil }
        // A URL named by a durable item is durable, whichever item gets to fetch it first.
        let durableURLs = Set(plan.filter(\.durable).flatMap { $0.candidates.map(\.url) })
        let planned = Set(plan.compactMap { $0.candidates.first?.url }.filter { !held($0) })
        progress.onPlan(planned.count)

        let run = DownloadRun()
        let store = store
        // One item: its candidates in order until one is held. Returns the URLs it needed —
        // tried by itself or by waiting on another item's fetch of the same URL.
        let work: @Sendable (Int) async throws -> (Int, [String]) = { index in
            var tried: [String] = []
            for candidate in plan[index].candidates {
                tried.append(candidate.url)
                let ok = try await run.outcome(of: candidate.url) {
                    // Held before the run (or fetched by another process): nothing to fetch.
                    if store.snapshot.state.documents[ResourceKey(source: Source.assets.rawValue, path: candidate.url)] != nil {
                        return nil
                    }
                    let report = try await self.fetchAsset(candidate.url, durable: durableURLs.contains(candidate.url))
                    progress.onReport(report)
                    return report
                }
                if ok { break }
            }
            return (index, tried)
        }
        let width = max(1, concurrency)
        let needed = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            var results = [[String]](repeating: [], count: plan.count)
            var next = 0, running = 0
            while true {
                while next < plan.count, running < width {
                    let index = next
                    group.addTask { try await work(index) }
                    next += 1
                    running += 1
                }
                guard let (index, tried) = try await group.next() else { break }
                running -= 1
                results[index] = tried
            }
            return results
        }
        // A one-at-a-time run fetches each URL at its first appearance in this walk.
        var reports: [FetchReport] = []
        var emitted = Set<String>()
        for urls in needed {
            for url in urls where emitted.insert(url).inserted {
                if let report = run.report(for: url) { reports.append(report) }
            }
        }
        return reports
    }
}

/// The URLs of one download run: each is fetched by the first item that needs it; later
/// items wait for that fetch's outcome instead of asking again.
final class DownloadRun: Sendable {
    private struct State {
        var tasks: [String: Task<FetchReport?, any Error>] = [:]
        var finished: [String: FetchReport] = [:]
    }

    private let state = Mutex(State())

    /// True when `url`'s bytes are held after this run's one fetch of it (or were before:
    /// `fetch` returns nil then). Only the first caller's `fetch` runs.
    func outcome(of url: String, fetch: @escaping @Sendable () async throws -> FetchReport?) async throws -> Bool {
        let task = state.withLock { state in
            if let running = state.tasks[url] { return running }
            let task = Task { try await fetch() }
            state.tasks[url] = task
            return task
        }
        let report = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        guard let report else { return true }
        state.withLock { $0.finished[url] = report }
        return report.outcome == .fetched || report.outcome == .notModified
    }

    /// The report of this run's fetch of `url`, nil when it was not fetched.
    func report(for url: String) -> FetchReport? { state.withLock { $0.finished[url] } }
}
