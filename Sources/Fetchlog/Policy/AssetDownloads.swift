/// Downloading the images the views name, with the fallback the apps promise: each
/// candidate is tried (with the fetcher's retries) before the next; each distinct URL is
/// fetched once per run; TVmaze images follow the durable window like their items.
extension OfflineFirst {
    /// One asset by its real URL.
    @discardableResult
    public func fetchAsset(_ url: String, durable: Bool = true) async throws -> FetchReport {
        let report = try await fetcher.fetch(.asset(url), recording: durable ? .durable : .session(store.session))
        try await store.catchUp()
        return report
    }

    /// Tries candidates in order until one's bytes are held. `tried` carries the URLs
    /// already attempted in this run (a failed one is not asked again).
    func download(_ candidates: [(kind: String, url: String)], durable: Bool, tried: inout [String: Bool]) async throws -> [FetchReport] {
        var reports: [FetchReport] = []
        for candidate in candidates {
            let key = ResourceKey(source: Source.assets.rawValue, path: candidate.url)
            if store.snapshot.state.documents[key] != nil { return reports }
            if let ok = tried[candidate.url] {
                if ok { return reports }
                continue
            }
            let report = try await fetchAsset(candidate.url, durable: durable)
            reports.append(report)
            tried[candidate.url] = report.outcome == .fetched || report.outcome == .notModified
            if tried[candidate.url] == true { return reports }
        }
        return reports
    }

    /// The list images of the first `count` shows (by item index).
    public func fetchShowListImages(first count: Int) async throws -> [FetchReport] {
        try await fetchShowListImages(items: 0 ..< max(0, count))
    }

    /// The list images of the shows whose item index lies in `items`.
    public func fetchShowListImages(items: Range<Int>) async throws -> [FetchReport] {
        let state = store.snapshot.state
        var linksByID: [Int: TVMazeImageLinks] = [:]
        for (_, held) in state.documents {
            if case .tvmazeShowsPage(let shows) = held.document { for show in shows { linksByID[show.id] = show.image } }
        }
        var tried: [String: Bool] = [:]
        var reports: [FetchReport] = []
        for row in ShowsView(state: state).shows where items.contains(row.itemIndex) {
            let candidates = ImageChoice.listCandidates(linksByID[row.id] ?? nil)
            reports += try await download(candidates, durable: row.itemIndex < durableWindow, tried: &tried)
        }
        return reports
    }

    /// The detail image of one show (its `/images` must be held).
    public func fetchShowDetailImage(id: Int) async throws -> [FetchReport] {
        guard case .tvmazeImages(let images)? = store.snapshot.state.document(.tvmazeImages(id))?.document else { return [] }
        let index = ShowsView(state: store.snapshot.state).show(id: id)?.itemIndex ?? 0
        var tried: [String: Bool] = [:]
        return try await download(ImageChoice.detailCandidates(images), durable: index < durableWindow, tried: &tried)
    }

    /// Every distinct gnome thumbnail of the census.
    public func fetchGnomeThumbnails() async throws -> [FetchReport] {
        let urls = Array(Set(GnomesView(state: store.snapshot.state).gnomes.map(\.thumbnail))).sorted()
        var tried: [String: Bool] = [:]
        var reports: [FetchReport] = []
        for url in urls { reports += try await download([("thumbnail", url)], durable: true, tried: &tried) }
        return reports
    }

    /// The IIIF image of every held artwork.
    public func fetchArtworkImages() async throws -> [FetchReport] {
        let urls = ArtworksView(state: store.snapshot.state).artworks.compactMap(\.imageURL)
        var tried: [String: Bool] = [:]
        var reports: [FetchReport] = []
        for url in urls { reports += try await download([("iiif", url)], durable: true, tried: &tried) }
        return reports
    }
}
