import Synchronization

/// The pages a state holds of one manifest resource, in view order (by the seq of their
/// held body, session-only pages last, then by label), and the newest one's seq. Finding
/// them reads which resource every held document belongs to (`resource(ofLabel:)`, a parse
/// of each label): kept, per resource, for as long as the state's documents and the
/// manifest are the ones they were found in (`LogState.documentsToken`), so a view read
/// again after a write — which changes no document — does not look at every page again.
struct HeldPages: Sendable {
    /// (label, page) in view order.
    let pages: [(String, ManifestPage)]
    /// Each page's label and body identity, as a view's fingerprint lists them.
    let identities: [String]
    /// The seq of the newest document of the resource (a page or not); session-only ones
    /// (seq 0) are newer than any. 0: none.
    let newestSeq: UInt64

    static func of(_ state: LogState, plugin: ManifestSource, source: String, resource: RestResource) -> HeldPages {
        let key = source + "/" + resource.name
        if let kept = cache.withLock({ $0[key] }), kept.token == state.documentsToken, kept.manifest == plugin.manifest {
            return kept.pages
        }
        let kind = plugin.kind(of: resource)
        let all = state.documents.filter { key, _ in key.source == source && plugin.documentKind(ofPath: key.path) == kind }
        let newest = all.values.reduce(UInt64(0)) { max($0, $1.seq == 0 ? .max : $1.seq) }
        let pages = all
            .sorted { ($0.value.seq == 0 ? .max : $0.value.seq, $0.key.path) < ($1.value.seq == 0 ? .max : $1.value.seq, $1.key.path) }
            .compactMap { key, held in (held.document as? ManifestPage).map { (key.path, $0) } }
        let found = HeldPages(pages: pages, identities: pages.map { $0.0 + "\u{0}" + String($0.1.identity) }, newestSeq: newest)
        cache.withLock { cache in
            if cache.count >= 256 { cache.removeAll() }
            cache[key] = (state.documentsToken, plugin.manifest, found)
        }
        return found
    }

    /// The last pages found of each resource, with the documents token and manifest they were found in.
    private static let cache = Mutex<[String: (token: UInt64, manifest: RestManifest, pages: HeldPages)]>([:])
}
