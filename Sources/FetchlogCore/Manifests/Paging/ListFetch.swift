/// One list of a manifest resource: its first page, then what its paginator makes of each
/// page, until the list ends, `bounds.limit` pages were fetched, or a page fails. Pages
/// whose first item is at or past `fetchlog.durable_items` are kept for this session only.
/// Each report is handed on once its notices are known (what ended the list early, items
/// left out).
struct ListFetch: Sendable {
    let store: Store
    let source: ManifestSource
    let resource: RestResource
    let bounds: PageBounds

    /// `firstPage` (from 1): a kind that cannot go straight there reads its way, the pages
    /// on the way fetched but not counted in `bounds.limit`.
    func run(firstPage: Int, onReport: (FetchReport) -> Void) async throws -> [FetchReport] {
        let kind = source.kind(of: resource)
        let first = resource.paginator.kind.first(skipping: firstPage - 1)
        var next: (label: String, request: PageRequest)? = (resource.label(first.request), first.request)
        var reports: [FetchReport] = []
        var asked = Set<String>()
        var itemsBefore = 0
        var previous: ManifestPage?
        while let (label, request) = next {
            asked.insert(label)
            let target = Resource(source: source.source, path: label, document: kind)
            let durable = resource.durableItems.map { itemsBefore < $0 } ?? true
            var report = try await store.fetch(target, durable: durable)
            if !durable { report.firstItemIndex = itemsBefore }
            next = nil
            // The page as the fetch left it in the state: nothing more to catch up.
            if report.outcome == .fetched || report.outcome == .notModified,
               let page = store.snapshot.state.document(target)?.document as? ManifestPage {
                itemsBefore += page.items.count
                report.notices += ListNotices.leftOut(page, resource: resource, source: source.source)
                next = self.next(after: page, answering: request, previous: previous, target: target, report: &report)
                previous = page
            }
            if let label = next?.label, asked.contains(label) {
                report.notices.append(ListNotices.loop(next: label))
                next = nil
            }
            if let label = next?.label, reports.count + 1 >= bounds.limit + first.uncounted {
                if let ceiling = bounds.ceiling { report.notices.append(ListNotices.ceiling(ceiling, next: label)) }
                next = nil
            }
            reports.append(report)
            onReport(report)
        }
        return reports
    }

    /// The page after `page` (which answered `request`) as its label and the request it
    /// makes, or nil when the list ends there.
    private func next(after page: ManifestPage, answering request: PageRequest, previous: ManifestPage?, target: Resource,
                      report: inout FetchReport) -> (label: String, request: PageRequest)? {
        // A `response_actions` rule ignored the body: the list ends, as dlt's does.
        if page.ignoredByAction { return nil }
        if let previous, previous.body == page.body {
            report.notices.append(ListNotices.repeatedPage(target.path))
            return nil
        }
        let answered = report
        let step = resource.paginator.kind.next(after: AnsweredPage(request: request, itemCount: page.items.count, signals: page.signals,
                                                                    headers: { responseHeaders($0, of: answered, target: target) }))
        switch step {
        case .request(let request): return (resource.label(request), request)
        case .link(let url): return follow(url, from: target, report: &report).map { ($0, PageRequest()) }
        case .end: return nil
        }
    }

    /// Every value of a response header (each line the response sent it on, as recorded)
    /// of the page just fetched, or, when it was not modified (a 304 need not repeat them),
    /// of the response whose body is held.
    private func responseHeaders(_ name: String, of report: FetchReport, target: Resource) -> [String] {
        let lower = name.lowercased()
        let headers = report.outcome == .fetched ? report.responseHeaders : store.heldResponseHeaders(of: target)
        return headers.filter { $0.name.lowercased() == lower }.map(\.value)
    }

    /// `url` — a next link as the page wrote it — as the next page's label, or nil with a
    /// notice on `report` when it leaves the source's origin (its credentials stay with it).
    /// A link is a URI reference resolved against the URL `target` was asked at (RFC 3986
    /// §5, as dlt's `urljoin(request.url, …)`): `</items?page=2>` is the origin's
    /// `/items`, `<items?page=2>` and `<?page=2>` are beside the page asked.
    private func follow(_ url: String, from target: Resource, report: inout FetchReport) -> String? {
        guard !url.isEmpty else { return nil }
        var absolute = URLReference.resolve(url, against: store.requestURL(of: target, plugin: source))
        // A fragment is never sent (and a label's fragment names a resource).
        if let hash = absolute.firstIndex(of: "#") { absolute = String(absolute[..<hash]) }
        guard var label = label(ofURL: absolute) else {
            report.notices.append(ListNotices.linkNotFollowed(url, source: source))
            return nil
        }
        // A request with a body follows the link with the same method and body (dlt
        // changes only the URL): the label gets the resource's suffix, which names it.
        let suffix = resource.requestSuffix()
        if !suffix.isEmpty {
            if let hash = label.firstIndex(of: "#") { label = String(label[..<hash]) }
            return label + suffix
        }
        // A link that drops the fixed params telling this resource from another on its
        // path keeps the resource's name as a fragment (not sent; the label decides).
        return source.resource(ofLabel: label)?.name == resource.name ? label : label + "#" + resource.name
    }

    /// The resource label of an absolute next-page URL: its path under the source's base
    /// (or, under `--upstream`, under `BASE/<name>`); in the base's origin but outside its
    /// path (GitHub's `/repositories/ID/issues?page=2` from a base of `/repos/OWNER/REPO`),
    /// a label climbing out of the base (`URLReference.labelOutside`). Nil elsewhere.
    private func label(ofURL url: String) -> String? {
        let upstream = store.upstream
        if let path = upstream.relativePath(of: url, source: source) { return path }
        return upstream.base == nil ? URLReference.labelOutside(url, base: source.realBase) : nil
    }
}
