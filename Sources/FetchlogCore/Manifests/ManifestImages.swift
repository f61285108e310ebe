/// The images a manifest resource names (`fetchlog.images`: fields in fallback order),
/// downloaded into the store as assets, as the seed sources' images are.
extension OfflineFirst {
    /// Every held item's image: its `fetchlog.images` fields tried in order (a later one
    /// only when an earlier one fails), each distinct URL once; items past the resource's
    /// durable window keep their image for this session only.
    package func fetchManifestImages(source: String, resource: String, concurrency: Int = 4,
                                    progress: AssetProgress = AssetProgress()) async throws -> [FetchReport] {
        guard let view = ItemsView(state: store.snapshot.state, source: source, resource: resource) else {
            throw ManifestFetchError(.unknownResource, "\(source) has no resource '\(resource)' defined by a manifest")
        }
        guard !view.restResource.imageFields.isEmpty else {
            throw ManifestFetchError(.noImages, "\(source) \(resource) names no images: add \"fetchlog\": {\"images\": [FIELD…]} to the resource")
        }
        let window = view.restResource.durableItems ?? .max
        let plan: [DownloadItem] = view.items.enumerated().compactMap { index, item in
            let candidates: [(kind: String, url: String)] = view.restResource.imageFields.compactMap { path in
                var value: JSONValue? = item
                for key in path { value = value?[key] }
                guard case .string(let url)? = value, url.hasPrefix("http://") || url.hasPrefix("https://") else { return nil }
                return (path.joined(separator: "."), url)
            }
            return candidates.isEmpty ? nil : DownloadItem(candidates: candidates, durable: index < window)
        }
        return try await download(plan, concurrency: concurrency, progress: progress)
    }
}
