import Foundation

/// What a run of asset downloads tells its caller while it works (a progress bar).
///
/// Both callbacks may be called from any task; the reports a run returns come in plan
/// order whatever the order of these calls.
public struct AssetProgress: Sendable {
    /// Once, before the first download starts: how many downloads are planned — one per
    /// distinct URL that an item tries first and whose bytes are not held yet. A fallback
    /// (the original after the medium failed) is a download beyond the plan.
    public var onPlan: @Sendable (Int) -> Void
    /// After each download (one URL with the fetcher's retries) ends, in completion order.
    public var onReport: @Sendable (FetchReport) -> Void

    public init(onPlan: @escaping @Sendable (Int) -> Void = { _ in }, onReport: @escaping @Sendable (FetchReport) -> Void = { _ in }) {
        self.onPlan = onPlan
        self.onReport = onReport
    }
}

/// Downloading the images the views name, with the fallback the apps promise: each
/// candidate is tried (with the fetcher's retries) before the next; each distinct URL is
/// fetched once per run; TVmaze images follow the durable window like their items.
///
/// Up to `concurrency` items download at once (a task group). The promises hold whatever
/// the timing: an item's candidates are still tried strictly in order; a URL two items
/// share is fetched once and the other item waits for its outcome; and the reports come
/// back in the order a one-at-a-time run would give them (plan order), not in completion
/// order.
extension OfflineFirst {
    /// One asset by its real URL.
    @discardableResult
    public func fetchAsset(_ url: String, durable: Bool = true) async throws -> FetchReport {
        let report = try await fetcher.fetch(.asset(url), recording: durable ? .durable : .session(store.session))
        try await store.catchUp()
        return report
    }

    /// One item to download: its candidates in preference order, and whether it is durable.
    struct DownloadItem: Sendable {
        let candidates: [(kind: String, url: String)]
        let durable: Bool
    }

    /// The list images of the first `count` shows (by item index).
    public func fetchShowListImages(first count: Int, concurrency: Int = 4, progress: AssetProgress = AssetProgress()) async throws -> [FetchReport] {
        try await fetchShowListImages(items: 0 ..< max(0, count), concurrency: concurrency, progress: progress)
    }

    /// The list images of the shows whose item index lies in `items`. An image is durable
    /// when its show is: held in the log on a page that starts inside the durable window.
    public func fetchShowListImages(items: Range<Int>, concurrency: Int = 4, progress: AssetProgress = AssetProgress()) async throws -> [FetchReport] {
        let state = store.snapshot.state
        var linksByID: [Int: TVMazeImageLinks] = [:]
        for (_, held) in state.documents {
            if case .tvmazeShowsPage(let shows) = held.document { for show in shows { linksByID[show.id] = show.image } }
        }
        let durableIDs = durableShowIDs()
        let plan = ShowsView(state: state).shows.filter { items.contains($0.itemIndex) }.map { row in
            DownloadItem(candidates: ImageChoice.listCandidates(linksByID[row.id] ?? nil), durable: durableIDs.contains(row.id))
        }
        return try await download(plan, concurrency: concurrency, progress: progress)
    }

    /// The detail image of one show (its `/images` must be held). It is kept for the session
    /// only when the show is: held on list pages, none of them durable inside the window.
    /// A show fetched by id alone has its `/images` in the log, and its image goes there too.
    public func fetchShowDetailImage(id: Int, concurrency: Int = 4, progress: AssetProgress = AssetProgress()) async throws -> [FetchReport] {
        let state = store.snapshot.state
        guard case .tvmazeImages(let images)? = state.document(.tvmazeImages(id))?.document else { return [] }
        let listed = ShowsView(state: state).show(id: id) != nil
        let item = DownloadItem(candidates: ImageChoice.detailCandidates(images), durable: !listed || durableShowIDs().contains(id))
        return try await download([item], concurrency: concurrency, progress: progress)
    }

    /// Every distinct gnome thumbnail of the census.
    public func fetchGnomeThumbnails(concurrency: Int = 4, progress: AssetProgress = AssetProgress()) async throws -> [FetchReport] {
        let urls = Array(Set(GnomesView(state: store.snapshot.state).gnomes.map(\.thumbnail))).sorted()
        return try await download(urls.map { DownloadItem(candidates: [("thumbnail", $0)], durable: true) },
                                  concurrency: concurrency, progress: progress)
    }

    /// The IIIF image of every held artwork.
    public func fetchArtworkImages(concurrency: Int = 4, progress: AssetProgress = AssetProgress()) async throws -> [FetchReport] {
        let urls = ArtworksView(state: store.snapshot.state).artworks.compactMap(\.imageURL)
        return try await download(urls.map { DownloadItem(candidates: [("iiif", $0)], durable: true) },
                                  concurrency: concurrency, progress: progress)
    }

    /// Ids of the shows held in the log on a page whose first item index is known and inside
    /// the durable window: the shows whose images may be written to the log. (A show held
    /// only for the session, or on a page whose index cannot be shown, is not one of them.)
    func durableShowIDs() -> Set<Int> {
        let state = store.durableState
        let window = DurableWindow(items: durableWindow)
        var ids = Set<Int>()
        for (key, held) in state.documents {
            guard let page = CatalogPaths.tvmazeShowsPage(key), case .tvmazeShowsPage(let shows) = held.document,
                  window.isDurable(window.position(ofPage: page, in: state)) else { continue }
            for show in shows { ids.insert(show.id) }
        }
        return ids
    }

    // MARK: The run

    /// Downloads `plan` with at most `concurrency` items in flight; returns the reports in
    /// the order a one-at-a-time run gives them.
    func download(_ plan: [DownloadItem], concurrency: Int, progress: AssetProgress) async throws -> [FetchReport] {
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
final class DownloadRun: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [String: Task<FetchReport?, any Error>] = [:]
    private var finished: [String: FetchReport] = [:]

    /// True when `url`'s bytes are held after this run's one fetch of it (or were before:
    /// `fetch` returns nil then). Only the first caller's `fetch` runs.
    func outcome(of url: String, fetch: @escaping @Sendable () async throws -> FetchReport?) async throws -> Bool {
        let task = lock.withLock {
            if let running = tasks[url] { return running }
            let task = Task { try await fetch() }
            tasks[url] = task
            return task
        }
        let report = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        guard let report else { return true }
        lock.withLock { finished[url] = report }
        return report.outcome == .fetched || report.outcome == .notModified
    }

    /// The report of this run's fetch of `url`, nil when it was not fetched.
    func report(for url: String) -> FetchReport? { lock.withLock { finished[url] } }
}
