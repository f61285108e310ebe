import Synchronization

/// A manifest resource's items as one segment per held page (`ViewSegment`), so its SQL table
/// (`SOURCE.RESOURCE`) in a long-lived process takes a fetch that adds a page by inserting
/// that page's items (issue 35: what the next query costs grows with the page, not with the
/// items held). Only where the items are the pages' items one after the other:
/// - a resource of its own (no parent), not `replace` (which reads the latest run's pages);
/// - no write of it pending or answered (their overlay may change any item);
/// - by `merge` (the default) with a primary key: no key found twice among the held items,
///   and the items without one left out, as `ItemsView.deduplicated` does; by `append`, all;
/// - dlt's incremental bounds applied item by item, as the view applies them.
/// Nil otherwise: the table is built from the view. A page's token is its label and body
/// identity (hashed), where it starts and how many items it gives.
package enum ItemsSegments {
    package static func of(_ state: LogState, source: String, resource name: String) -> [ViewSegment]? {
        guard let plugin = state.plugin(source) as? ManifestSource, let resource = plugin.manifest.resource(name),
              resource.parent == nil, resource.writeDisposition != .replace else { return nil }
        let writes = state.writes
        let prefix = source + "/" + name + "/"
        if writes.confirmed.keys.contains(where: { $0.hasPrefix(prefix) })
            || writes.mutations.values.contains(where: { $0.source == source && $0.resource == name }) { return nil }
        let held = HeldPages.of(state, plugin: plugin, source: source, resource: resource)
        let key = resource.writeDisposition == .append ? [] : resource.primaryKey
        let incremental = resource.incremental
        @Sendable func kept(_ page: ManifestPage) -> [JSONValue] {
            var items = page.items
            if !key.isEmpty { items = items.filter { ItemsView.hasKey($0, key) } }
            if let incremental { items = items.filter(incremental.keeps) }
            return items
        }
        // Per page identity: how many items it gives; and, keyed, the keys of the pages so far.
        let cacheKey = source + "/" + name
        var memo = memos.withLock { $0.removeValue(forKey: cacheKey) }
        if memo?.manifest != plugin.manifest { memo = nil }
        var entry = memo ?? Memo(manifest: plugin.manifest, counts: [:], keyedIdentities: [], keys: [])
        if !key.isEmpty {
            // The keys of the pages found before, when they lead the pages now: only the new
            // pages' keys are looked at. A page moved or gone: all are looked at again.
            if !(entry.keyedIdentities.count <= held.identities.count && zip(entry.keyedIdentities, held.identities).allSatisfy(==)) {
                entry.keyedIdentities = []
                entry.keys = []
            }
            for (identity, (_, page)) in zip(held.identities, held.pages).dropFirst(entry.keyedIdentities.count) {
                for item in kept(page) where !entry.keys.insert(ItemsView.keyText(item, key)).inserted {
                    memos.withLock { $0[cacheKey] = Memo(manifest: plugin.manifest, counts: entry.counts, keyedIdentities: [], keys: []) }
                    return nil
                }
                entry.keyedIdentities.append(identity)
            }
        }
        var segments: [ViewSegment] = []
        var start = 0
        for (identity, (_, page)) in zip(held.identities, held.pages) {
            let count: Int
            if let known = entry.counts[identity] { count = known } else {
                count = kept(page).count
                entry.counts[identity] = count
            }
            segments.append(ViewSegment(token: [hash(identity), UInt64(start), UInt64(count)], count: count) { kept(page) })
            start += count
        }
        if entry.counts.count > 4 * held.identities.count + 64 {
            let now = Set(held.identities)
            entry.counts = entry.counts.filter { now.contains($0.key) }
        }
        memos.withLock { $0[cacheKey] = entry }
        return segments
    }

    /// 64-bit FNV-1a of the text's bytes.
    package static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    private struct Memo {
        let manifest: RestManifest
        var counts: [String: Int]
        var keyedIdentities: [String]
        var keys: Set<String>
    }

    private static let memos = Mutex<[String: Memo]>([:])
}
