/// Fetching a manifest resource page by page, as its paginator says, with dlt's meaning for
/// every parameter — a client of the store, through its door only: it fetches each page
/// with `Store.fetch`, reads the page from the snapshot that fetch leaves, and asks the
/// store for what snapshots do not hold (a held response's headers, the URL a request goes
/// to, the upstream). A child resource is its parent's list first, then one list per
/// distinct parent item; each list is a `ListFetch`.
package struct ManifestPager: Sendable {
    /// Lists fetched at once, at most this many (dlt's `parallelized` runs them in a pool).
    static let childListsAtOnce = 4

    let store: Store
    let source: ManifestSource
    /// Pages asked for per list (nil: until the list ends).
    let maxPages: Int?
    /// The ceiling asked for (nil: `PageBounds.listPageCeiling`, or the paginator's maximum).
    let pageCeiling: Int?

    /// A pager for the source `name` as the store's state defines it (caught up by the caller).
    package init(store: Store, source name: Source, maxPages: Int? = nil, pageCeiling: Int? = nil) throws {
        guard let source = store.durableState.plugin(name.rawValue) as? ManifestSource else {
            throw ManifestFetchError(.notDefined, "\(name) is not a source defined by a manifest")
        }
        self.store = store
        self.source = source
        self.maxPages = maxPages
        self.pageCeiling = pageCeiling
    }

    /// The source's resource `name` (or whose `table_name` it is).
    package func resource(named name: String) throws -> RestResource {
        guard let resource = source.manifest.resource(name) else {
            let names = source.manifest.resources.map(\.name)
            throw ManifestFetchError(.unknownResource, "\(source.source) has no resource '\(name)'\(Suggest.didYouMean(name, names)): use \(names.joined(separator: ", "))")
        }
        return resource
    }

    /// Fetches `defined` from its first page until its paginator says the list ends,
    /// `maxPages` pages were fetched, or a page fails (see `Store.fetchManifestResource`).
    /// `firstPage` (from 1) starts its own list further on, not its parent's or its children's.
    package func fetch(_ defined: RestResource, firstPage: Int = 1, onReport: (FetchReport) -> Void) async throws -> [FetchReport] {
        // Issue 26, read your writes: the resource's pending changes are sent first.
        try await store.pushBeforeFetch(source: source.source.rawValue, resource: defined.name)
        let resource = prepared(defined)
        guard let parentName = resource.parent else {
            return try await list(resource).run(firstPage: firstPage, onReport: onReport)
        }
        // A child resource, as dlt reads one: its parent first, then one list per parent
        // item (each distinct item once) — from the parent items held after that fetch, so a
        // failed parent fetch still lists the children of what is held.
        let reports = try await fetch(try self.resource(named: parentName), onReport: onReport)
        guard let parent = ItemsView(state: store.snapshot.state, source: source.source.rawValue, resource: parentName, confirmedOnly: true) else {
            return reports
        }
        if resource.parallelized {
            return reports + (try await Self.runAtOnce(try children(of: resource, for: parent).map(list), onReport: onReport))
        }
        // One list after the other, each child resolved when its turn comes.
        var all = reports
        var done = Set<String>()
        for item in parent.items {
            let child = try self.child(of: resource, for: item, parent: parent)
            guard done.insert(child.label()).inserted else { continue }
            all += try await list(child).run(firstPage: 1, onReport: onReport)
        }
        return all
    }

    /// One list of `resource`, within the bounds its paginator and the caller set.
    private func list(_ resource: RestResource) -> ListFetch {
        ListFetch(store: store, source: source, resource: resource,
                  bounds: PageBounds(maxPages: maxPages, pageCeiling: pageCeiling, paginator: resource.paginator))
    }

    /// `defined` as its next fetch asks it. An incremental resource asks from the last value
    /// its held items hold: the extreme of its held pages' last cursors (each read once, at
    /// decode), or, for a child whose pages need their parents to be told apart, of its
    /// view's items. Any other resource asks as defined: no view is built for it.
    private func prepared(_ defined: RestResource) -> RestResource {
        guard let incremental = defined.incremental else { return defined }
        let state = store.snapshot.state
        guard defined.parent == nil else {
            return defined.preparedForFetch(held: ItemsView(state: state, source: source.source.rawValue, resource: defined.name, confirmedOnly: true)?.items ?? [])
        }
        let kind = source.kind(of: defined)
        let lasts = state.documents.compactMap { key, held -> JSONValue? in
            guard key.source == source.source.rawValue, source.documentKind(ofPath: key.path) == kind else { return nil }
            return (held.document as? ManifestPage)?.lastCursor
        }
        return defined.preparedForFetch(lastValue: incremental.extreme(of: lasts))
    }

    /// The child resource for each distinct item of `parent` (by the label it asks), in
    /// parent order.
    private func children(of resource: RestResource, for parent: ItemsView) throws -> [RestResource] {
        var done = Set<String>()
        return try parent.items.map { item in try child(of: resource, for: item, parent: parent) }.filter { done.insert($0.label()).inserted }
    }

    /// `resource` for one item of `parent`; an item without a field the child's path takes
    /// is an error.
    private func child(of resource: RestResource, for item: JSONValue, parent: ItemsView) throws -> RestResource {
        switch resource.resolved(for: item) {
        case .success(let child): return child
        case .failure(let missing):
            throw ManifestFetchError(.missingField, "a \(parent.resource) item has no \(missing.field), which \(resource.name)'s path takes: \(item.canonicalText().prefix(200))")
        }
    }

    /// `parallelized`: `childListsAtOnce` lists at a time; each list's reports are handed on
    /// as it ends and returned in parent order.
    private static func runAtOnce(_ lists: [ListFetch], onReport: (FetchReport) -> Void) async throws -> [FetchReport] {
        var done = [[FetchReport]](repeating: [], count: lists.count)
        try await withThrowingTaskGroup(of: (Int, [FetchReport]).self) { group in
            var next = 0
            func start() {
                guard next < lists.count else { return }
                let (index, list) = (next, lists[next])
                next += 1
                group.addTask { (index, try await list.run(firstPage: 1, onReport: { _ in })) }
            }
            for _ in 0 ..< childListsAtOnce { start() }
            while let (index, reports) = try await group.next() {
                done[index] = reports
                reports.forEach(onReport)
                start()
            }
        }
        return done.flatMap { $0 }
    }
}
