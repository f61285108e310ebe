import FetchlogCore

/// The seed sources' image downloads: TVmaze list and detail images (durable as their
/// shows are), gnome thumbnails, ARTIC IIIF images.
extension OfflineFirst {
    /// The list images of the first `count` shows (by item index).
    package func fetchShowListImages(first count: Int, concurrency: Int = 4, progress: AssetProgress = AssetProgress()) async throws -> [FetchReport] {
        try await fetchShowListImages(items: 0 ..< max(0, count), concurrency: concurrency, progress: progress)
    }

    /// The list images of the shows whose item index lies in `items`. An image is durable
    /// when its show is: held in the log on a page that starts inside the durable window.
    package func fetchShowListImages(items: Range<Int>, concurrency: Int = 4, progress: AssetProgress = AssetProgress()) async throws -> [FetchReport] {
        let state = store.snapshot.state
        var linksByID: [Int: TVMazeImageLinks] = [:]
        for (_, held) in state.documents {
            if case .tvmazeShowsPage(let shows)? = held.tvmaze { for show in shows { linksByID[show.id] = show.image } }
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
    package func fetchShowDetailImage(id: Int, concurrency: Int = 4, progress: AssetProgress = AssetProgress()) async throws -> [FetchReport] {
        let state = store.snapshot.state
        guard case .tvmazeImages(let images)? = state.document(.tvmazeImages(id))?.tvmaze else { return [] }
        let listed = ShowsView(state: state).show(id: id) != nil
        let item = DownloadItem(candidates: ImageChoice.detailCandidates(images), durable: !listed || durableShowIDs().contains(id))
        return try await download([item], concurrency: concurrency, progress: progress)
    }

    /// Every distinct gnome thumbnail of the census.
    package func fetchGnomeThumbnails(concurrency: Int = 4, progress: AssetProgress = AssetProgress()) async throws -> [FetchReport] {
        let urls = Array(Set(GnomesView(state: store.snapshot.state).gnomes.map(\.thumbnail))).sorted()
        return try await download(urls.map { DownloadItem(candidates: [("thumbnail", $0)], durable: true) },
                                  concurrency: concurrency, progress: progress)
    }

    /// The IIIF image of every held artwork.
    package func fetchArtworkImages(concurrency: Int = 4, progress: AssetProgress = AssetProgress()) async throws -> [FetchReport] {
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
            guard let page = CatalogPaths.tvmazeShowsPage(key), case .tvmazeShowsPage(let shows)? = held.tvmaze,
                  window.isDurable(window.position(ofPage: page, in: state)) else { continue }
            for show in shows { ids.insert(show.id) }
        }
        return ids
    }

}
