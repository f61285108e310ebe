/// Fetching a manifest resource page by page, through the store, as its paginator says —
/// with dlt's meaning for every parameter. What a page says about the next one is read
/// from the page as the store holds it (and its `Link` header from the resource's status).
extension Store {
    /// Fetches `resource` of the manifest source `source` from its first page until its
    /// paginator says the list ends, `maxPages` pages were fetched, or a page fails.
    /// A page the paginator would ask for twice ends the run (a loop in the API's links).
    /// `firstPage` (from 1) starts a `page_number` or `offset` list further on; any other
    /// paginator reads its way there, its earlier pages fetched but not counted in `maxPages`.
    public func fetchManifestResource(source: Source, resource name: String, firstPage: Int = 1, maxPages: Int? = nil,
                                      onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        _ = try await catchUp()
        guard let plugin = durableState.plugin(source.rawValue) as? ManifestSource else {
            throw ShellError.usage("\(source) is not a source defined by a manifest")
        }
        guard let resource = plugin.manifest.resource(name) else {
            let names = plugin.manifest.resources.map(\.name)
            throw ShellError.usage("\(source) has no resource '\(name)'\(Suggest.didYouMean(name, names)): use \(names.joined(separator: ", "))")
        }
        let limit = min(maxPages ?? PageSelection.limit, PageSelection.limit)
        guard let parentName = resource.parent else {
            return try await fetchPages(resource, plugin: plugin, firstPage: firstPage, limit: limit, onReport: onReport)
        }
        // A child resource, as dlt reads one: its parent first, then one list per parent
        // item (each distinct item once) — from the parent items held after that fetch, so a
        // failed parent fetch still lists the children of what is held.
        var reports = try await fetchManifestResource(source: source, resource: parentName, maxPages: maxPages, onReport: onReport)
        guard let parent = ItemsView(state: snapshot.state, source: source.rawValue, resource: parentName) else { return reports }
        var done = Set<String>()
        for item in parent.items {
            switch resource.resolved(for: item) {
            case .success(let child):
                guard done.insert(child.label()).inserted else { continue }
                reports += try await fetchPages(child, plugin: plugin, firstPage: 1, limit: limit, onReport: onReport)
            case .failure(let missing):
                throw ShellError.failed("a \(parentName) item has no \(missing.field), which \(name)'s path takes: \(item.canonicalText().prefix(200))")
            }
        }
        return reports
    }

    /// One list: its first page, then what the paginator makes of each page, until the list
    /// ends, `limit` pages were fetched, or a page fails. Pages whose first item is at or
    /// past `fetchlog.durable_items` are kept for this session only.
    private func fetchPages(_ resource: RestResource, plugin: ManifestSource, firstPage: Int, limit: Int,
                            onReport: (FetchReport) -> Void) async throws -> [FetchReport] {
        let kind = plugin.kind(of: resource)
        var reports: [FetchReport] = []
        var asked = Set<String>()
        var itemsBefore = 0
        // The first request, then what each paginator makes of the page before.
        let skip = firstPage - 1
        var label: String? = switch resource.paginator {
        case .pageNumber(let base, let page, let param, _, _, _): resource.label(extra: [(param, String((page ?? base) + skip))])
        case .offset(let limit, let offset, let offsetParam, let limitParam, _, _, _):
            resource.label(extra: [(offsetParam, String(offset + skip * limit)), (limitParam, String(limit))])
        default: resource.label()
        }
        var pageValue: Int = switch resource.paginator {
        case .pageNumber(let base, let page, _, _, _, _): (page ?? base) + skip
        case .offset(let limit, let offset, _, _, _, _, _): offset + skip * limit
        default: 0
        }
        // Other paginators only know the next page from the one before: read up to the first.
        let uncounted = switch resource.paginator {
        case .pageNumber, .offset: 0
        default: skip
        }
        while let current = label, reports.count < limit + uncounted, asked.insert(current).inserted {
            let target = Resource(source: plugin.source, path: current, document: kind)
            let durable = resource.durableItems.map { itemsBefore < $0 } ?? true
            var report = try await fetch(target, durable: durable)
            if !durable { report.firstItemIndex = itemsBefore }
            reports.append(report)
            onReport(report)
            label = nil
            guard report.outcome == .fetched || report.outcome == .notModified,
                  let page = snapshot.state.document(target)?.document as? ManifestPage else { break }
            itemsBefore += page.items.count
            switch resource.paginator {
            case .singlePage:
                break
            case .pageNumber(let base, _, let param, _, let maximum, let stopAfterEmpty):
                if stopAfterEmpty && page.items.isEmpty { break }
                pageValue += 1
                if let total = page.total, pageValue >= total + base { break }
                if let maximum, pageValue >= maximum { break }
                // With no total, no maximum and no empty-page stop, dlt refuses to go on.
                if page.total == nil && maximum == nil && !stopAfterEmpty { break }
                label = resource.label(extra: [(param, String(pageValue))])
            case .offset(let step, _, let offsetParam, let limitParam, _, let maximum, let stopAfterEmpty):
                if stopAfterEmpty && page.items.isEmpty { break }
                pageValue += step
                if let total = page.total, pageValue >= total { break }
                if let maximum, pageValue >= maximum { break }
                if page.total == nil && maximum == nil && !stopAfterEmpty { break }
                label = resource.label(extra: [(offsetParam, String(pageValue)), (limitParam, String(step))])
            case .jsonLink:
                label = page.nextURL.flatMap { nextLabel($0, plugin: plugin) }
            case .headerLink:
                label = snapshot.state.status[ResourceKey(target)]?.linkNext.flatMap { nextLabel($0, plugin: plugin) }
            case .cursor(_, let param):
                if let cursor = page.cursor, !cursor.isEmpty { label = resource.label(extra: [(param, cursor)]) }
            case .auto:
                let next = snapshot.state.status[ResourceKey(target)]?.linkNext ?? page.nextURL
                label = next.flatMap { nextLabel($0, plugin: plugin) }
            }
        }
        return reports
    }

    /// The resource label of a next-page URL: a path relative to the source (`/items?page=2`),
    /// or an absolute URL under its base (or, under `--upstream`, `BASE/<name>`).
    private func nextLabel(_ url: String, plugin: ManifestSource) -> String? {
        if url.hasPrefix("/") { return url }
        let upstream = fetcher?.configuration.upstream ?? .real
        return upstream.relativePath(of: url, source: plugin)
    }
}
