/// Fetching a manifest resource page by page, through the store, as its paginator says —
/// with dlt's meaning for every parameter. What a page says about the next one is read
/// from the page as the store holds it (and its `Link` header from the resource's status).
extension Store {
    /// The most pages one run fetches of a list that never says it ended, unless told
    /// otherwise (a manifest's `pageCeiling`, a paginator's own maximum, a shell's page range).
    package static let listPageCeiling = 10_000

    /// Fetches `resource` of the manifest source `source` from its first page until its
    /// paginator says the list ends, `maxPages` pages were fetched, or a page fails.
    /// A page the paginator would ask for twice ends the run (a loop in the API's links).
    /// `firstPage` (from 1) starts a `page_number` or `offset` list further on; any other
    /// paginator reads its way there, its earlier pages fetched but not counted in `maxPages`.
    ///
    /// A list that has not ended after `pageCeiling` pages (default: `listPageCeiling`,
    /// or more when the paginator's own `maximum_page`/`maximum_offset` allows more) stops
    /// there, and the last report's `notices` say so; so does a page that repeats the page
    /// before it, a next link outside the source's base, and items a view leaves out.
    public func fetchManifestResource(source: Source, resource name: String, firstPage: Int = 1, maxPages: Int? = nil,
                                      pageCeiling: Int? = nil,
                                      onReport: (FetchReport) -> Void = { _ in }) async throws -> [FetchReport] {
        _ = try await catchUp()
        guard let plugin = durableState.plugin(source.rawValue) as? ManifestSource else {
            throw ManifestFetchError(.notDefined, "\(source) is not a source defined by a manifest")
        }
        guard let defined = plugin.manifest.resource(name) else {
            let names = plugin.manifest.resources.map(\.name)
            throw ManifestFetchError(.unknownResource, "\(source) has no resource '\(name)'\(Suggest.didYouMean(name, names)): use \(names.joined(separator: ", "))")
        }
        // Issue 26, read your writes: the resource's pending changes are sent first.
        try await pushBeforeFetch(source: source.rawValue, resource: name)
        let ceiling = pageCeiling ?? max(Self.listPageCeiling, defined.paginator.pageBound ?? 0)
        let limit = min(maxPages ?? ceiling, ceiling)
        // Stopping at `maxPages` is what was asked; stopping at the ceiling is news.
        let limitIsCeiling = maxPages.map { $0 >= ceiling } ?? true
        let ceilingName = pageCeiling.map { "\(FrontEndTerm.pageCeiling) \($0)" } ?? "the ceiling of \(ceiling) pages"
        let paging = Paging(limit: limit, ceiling: limitIsCeiling ? ceilingName : nil)
        // An incremental resource asks from the last value its held items hold: the extreme
        // of its held pages' last cursors (each read once, at decode), or, for a child whose
        // pages need their parents to be told apart, of its view's items.
        let resource: RestResource
        if let incremental = defined.incremental, defined.parent == nil {
            let kind = plugin.kind(of: defined)
            let state = snapshot.state
            let lasts = state.documents.compactMap { key, held -> JSONValue? in
                guard key.source == source.rawValue, plugin.documentKind(ofPath: key.path) == kind else { return nil }
                return (held.document as? ManifestPage)?.lastCursor
            }
            resource = defined.preparedForFetch(lastValue: incremental.extreme(of: lasts))
        } else {
            resource = defined.preparedForFetch(held: ItemsView(state: snapshot.state, source: source.rawValue, resource: name, confirmedOnly: true)?.items ?? [])
        }
        guard let parentName = resource.parent else {
            return try await fetchPages(resource, plugin: plugin, firstPage: firstPage, paging: paging, onReport: onReport)
        }
        // A child resource, as dlt reads one: its parent first, then one list per parent
        // item (each distinct item once) — from the parent items held after that fetch, so a
        // failed parent fetch still lists the children of what is held.
        var reports = try await fetchManifestResource(source: source, resource: parentName, maxPages: maxPages, pageCeiling: pageCeiling,
                                                      onReport: onReport)
        guard let parent = ItemsView(state: snapshot.state, source: source.rawValue, resource: parentName, confirmedOnly: true) else { return reports }
        if resource.parallelized {
            return reports + (try await fetchChildrenAtOnce(resource, of: parent, plugin: plugin, paging: paging, onReport: onReport))
        }
        var done = Set<String>()
        for item in parent.items {
            switch resource.resolved(for: item) {
            case .success(let child):
                guard done.insert(child.label()).inserted else { continue }
                reports += try await fetchPages(child, plugin: plugin, firstPage: 1, paging: paging, onReport: onReport)
            case .failure(let missing):
                throw ManifestFetchError(.missingField, "a \(parentName) item has no \(missing.field), which \(name)'s path takes: \(item.canonicalText().prefix(200))")
            }
        }
        return reports
    }

    /// Lists fetched at once, at most this many (dlt's `parallelized` runs them in a pool).
    static let childListsAtOnce = 4

    /// `parallelized`: a child's lists, one per distinct parent item, `childListsAtOnce` at
    /// a time; each list's reports are handed on as it ends and returned in parent order.
    private func fetchChildrenAtOnce(_ resource: RestResource, of parent: ItemsView, plugin: ManifestSource, paging: Paging,
                                     onReport: (FetchReport) -> Void) async throws -> [FetchReport] {
        var children: [RestResource] = []
        var done = Set<String>()
        for item in parent.items {
            switch resource.resolved(for: item) {
            case .success(let child):
                if done.insert(child.label()).inserted { children.append(child) }
            case .failure(let missing):
                throw ManifestFetchError(.missingField, "a \(parent.resource) item has no \(missing.field), which \(resource.name)'s path takes: \(item.canonicalText().prefix(200))")
            }
        }
        var lists = [[FetchReport]](repeating: [], count: children.count)
        try await withThrowingTaskGroup(of: (Int, [FetchReport]).self) { group in
            var next = 0
            func start() {
                guard next < children.count else { return }
                let (index, child) = (next, children[next])
                next += 1
                group.addTask { (index, try await self.fetchPages(child, plugin: plugin, firstPage: 1, paging: paging, onReport: { _ in })) }
            }
            for _ in 0 ..< Self.childListsAtOnce { start() }
            while let (index, list) = try await group.next() {
                lists[index] = list
                list.forEach(onReport)
                start()
            }
        }
        return lists.flatMap { $0 }
    }

    /// How far one list may go: `limit` pages; `ceiling` names the limit when reaching it
    /// with pages left is news (nil: the caller asked for that many).
    struct Paging {
        let limit: Int
        let ceiling: String?
    }

    /// One list: its first page, then what the paginator makes of each page, until the list
    /// ends, `paging.limit` pages were fetched, or a page fails. Pages whose first item is at
    /// or past `fetchlog.durable_items` are kept for this session only. Each report is handed
    /// to `onReport` once its notices are known (what ended the list early, items left out).
    private func fetchPages(_ resource: RestResource, plugin: ManifestSource, firstPage: Int, paging: Paging,
                            onReport: (FetchReport) -> Void) async throws -> [FetchReport] {
        let kind = plugin.kind(of: resource)
        var reports: [FetchReport] = []
        var asked = Set<String>()
        var itemsBefore = 0
        // The first request, then what each paginator makes of the page before.
        let skip = firstPage - 1
        var pageValue: Int = switch resource.paginator {
        case .pageNumber(let range), .offset(let range): range.first + skip * range.step
        default: 0
        }
        var label: String? = switch resource.paginator {
        case .pageNumber(let range), .offset(let range): resource.label(range.request(at: pageValue))
        default: resource.label()
        }
        // Other paginators only know the next page from the one before: read up to the first.
        let uncounted = switch resource.paginator {
        case .pageNumber, .offset: 0
        default: skip
        }
        var previous: ManifestPage?
        while let current = label {
            asked.insert(current)
            let target = Resource(source: plugin.source, path: current, document: kind)
            let durable = resource.durableItems.map { itemsBefore < $0 } ?? true
            var report = try await fetch(target, durable: durable)
            if !durable { report.firstItemIndex = itemsBefore }
            label = nil
            guard report.outcome == .fetched || report.outcome == .notModified,
                  let page = snapshot.state.document(target)?.document as? ManifestPage else {
                reports.append(report)
                onReport(report)
                break
            }
            itemsBefore += page.items.count
            report.notices += Self.leftOut(page, resource: resource, source: plugin.source)
            if page.ignoredByAction {
                // A `response_actions` rule ignored the body: the list ends, as dlt's does.
            } else if let previous, previous.body == page.body {
                // An API that ignores the paging parameter answers the same page for ever.
                report.notices.append(FetchNotice(.repeatedPage, "\(current) repeats the page before it, body for body: "
                    + "paging stopped there (the API may not take the paginator's parameter)"))
            } else {
                switch resource.paginator {
                case .singlePage:
                    break
                case .pageNumber(let range), .offset(let range):
                    // As dlt's RangePaginator: an empty page ends the list when asked to; else
                    // the next value, unless past the total or the maximum, or `has_more_path`
                    // says false.
                    if range.stopAfterEmptyPage && page.items.isEmpty { break }
                    // A limit of 0 never moves the offset: the next page would be this one.
                    if range.step == 0 { break }
                    pageValue += range.step
                    if let total = page.total, pageValue >= total + range.base { break }
                    if let maximum = range.maximum, pageValue >= maximum { break }
                    if page.hasMore == false { break }
                    // With no total, maximum, has_more_path or empty-page stop, dlt refuses to go on.
                    if page.total == nil && range.maximum == nil && range.hasMorePath == nil && !range.stopAfterEmptyPage { break }
                    label = resource.label(range.request(at: pageValue))
                case .jsonLink:
                    label = follow(page.nextURL, from: target, of: resource, plugin: plugin, report: &report)
                case .headerLink(let relation):
                    // Every `Link` line of the recorded response (`links_next_key`: the relation).
                    let link = LinkHeader.target(responseHeaders("Link", of: report, target: target), relation: relation)
                    label = follow(link, from: target, of: resource, plugin: plugin, report: &report)
                case .cursor(_, let cursorTarget, _, let stopAfterEmpty):
                    // As dlt: an empty page ends the list when asked to, then `has_more_path`
                    // decides, and without a cursor there is no next page to ask for.
                    if stopAfterEmpty && page.items.isEmpty { break }
                    if page.hasMore == false { break }
                    guard let cursor = page.cursor, !cursor.isEmpty else { break }
                    switch cursorTarget {
                    case .param(let param): label = resource.label(extra: [(param, cursor)])
                    case .body: label = resource.label(bodyCursor: page.cursorValue)
                    }
                case .headerCursor(let key, let param):
                    if let cursor = responseHeader(key, of: report, target: target), !cursor.isEmpty {
                        label = resource.label(extra: [(param, cursor)])
                    }
                case .auto:
                    let link = LinkHeader.target(responseHeaders("Link", of: report, target: target), relation: "next")
                    label = follow(link ?? page.nextURL, from: target, of: resource, plugin: plugin, report: &report)
                }
            }
            previous = page
            if let next = label, asked.contains(next) {
                // A loop in the API's links: a page it would ask for twice.
                report.notices.append(FetchNotice(.repeatedPage, "the next page, \(next), was fetched already in this run: paging stopped (a loop in the API's links)"))
                label = nil
            }
            if label != nil, reports.count + 1 >= paging.limit + uncounted {
                if let ceiling = paging.ceiling {
                    report.notices.append(FetchNotice(.pageCeiling, "stopped at \(ceiling) with the list not ended (next: \(label!)); "
                        + "\(FrontEndTerm.pageCeiling) N (or the paginator's maximum_page) moves the ceiling"))
                }
                label = nil
            }
            reports.append(report)
            onReport(report)
        }
        return reports
    }

    /// A response header of the page just fetched, or, when it was not modified (a 304 need
    /// not repeat it), of the response whose body is held.
    private func responseHeader(_ name: String, of report: FetchReport, target: Resource) -> String? {
        responseHeaders(name, of: report, target: target).first
    }

    /// Every value of a response header (each line the response sent it on, as recorded)
    /// of the page just fetched, or of the response whose body is held when not modified.
    private func responseHeaders(_ name: String, of report: FetchReport, target: Resource) -> [String] {
        let lower = name.lowercased()
        if report.outcome == .fetched { return report.responseHeaders.filter { $0.name.lowercased() == lower }.map(\.value) }
        guard let seq = snapshot.state.status[ResourceKey(target)]?.lastSuccessSeq, seq > 0,
              let response = (try? log.event(at: seq))??.response else { return [] }
        return response.headers.filter { $0.name.lowercased() == lower }.map(\.value)
    }

    /// `url` — a next link as the page wrote it — as the next page's label, or nil with a
    /// notice on `report` when it leaves the source's origin (its credentials stay with it).
    /// A link is a URI reference resolved against the URL `target` was asked at (RFC 3986
    /// §5, as dlt's `urljoin(request.url, …)`): `</items?page=2>` is the origin's
    /// `/items`, `<items?page=2>` and `<?page=2>` are beside the page asked.
    private func follow(_ url: String?, from target: Resource, of resource: RestResource, plugin: ManifestSource,
                        report: inout FetchReport) -> String? {
        guard let url, !url.isEmpty else { return nil }
        let asked = fetcher?.url(for: target, plugin: plugin) ?? plugin.realBase + target.path
        var absolute = URLReference.resolve(url, against: asked)
        // A fragment is never sent (and a label's fragment names a resource).
        if let hash = absolute.firstIndex(of: "#") { absolute = String(absolute[..<hash]) }
        if var label = nextLabel(absolute, plugin: plugin) {
            // A request with a body follows the link with the same method and body (dlt
            // changes only the URL): the label gets the resource's suffix, which names it.
            let suffix = resource.requestSuffix()
            if !suffix.isEmpty {
                if let hash = label.firstIndex(of: "#") { label = String(label[..<hash]) }
                return label + suffix
            }
            // A link that drops the fixed params telling this resource from another on its
            // path keeps the resource's name as a fragment (not sent; the label decides).
            return plugin.resource(ofLabel: label)?.name == resource.name ? label : label + "#" + resource.name
        }
        report.notices.append(FetchNotice(.linkNotFollowed, "the next link \(url) is outside \(plugin.source)'s base \(plugin.realBase): "
            + "not followed, so paging stopped (Fetchlog sends a source's requests, and its credentials, to its base's origin only)"))
        return nil
    }

    /// What a page's items lose in the view: without a primary key value an item cannot be
    /// told from another and is left out; an item that is not an object has no fields.
    static func leftOut(_ page: ManifestPage, resource: RestResource, source: Source) -> [FetchNotice] {
        guard page.keylessItems > 0 else { return [] }
        let key = resource.primaryKey.joined(separator: ", ")
        let objects = page.keylessItems - page.nonObjectItems
        var parts: [String] = []
        if objects > 0 { parts.append("\(objects) without a value for the primary key (\(key))") }
        if page.nonObjectItems > 0 { parts.append("\(page.nonObjectItems) that \(page.nonObjectItems == 1 ? "is" : "are") not an object") }
        return [FetchNotice(.itemsLeftOut, "\(page.keylessItems) of the page's \(page.items.count) items left out of items/\(source)/\(resource.name): "
            + parts.joined(separator: " and "), count: page.keylessItems)]
    }

    /// The resource label of an absolute next-page URL: its path under the source's base
    /// (or, under `--upstream`, under `BASE/<name>`); in the base's origin but outside its
    /// path (GitHub's `/repositories/ID/issues?page=2` from a base of `/repos/OWNER/REPO`),
    /// a label climbing out of the base (`URLReference.labelOutside`). Nil elsewhere.
    private func nextLabel(_ url: String, plugin: ManifestSource) -> String? {
        let upstream = fetcher?.configuration.upstream ?? .real
        if let path = upstream.relativePath(of: url, source: plugin) { return path }
        return upstream.base == nil ? URLReference.labelOutside(url, base: plugin.realBase) : nil
    }
}
