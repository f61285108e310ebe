import Foundation
import Synchronization

/// A source made from a `RestManifest`: no Swift, the manifest says it all. Each resource
/// is a document kind (`SOURCE.RESOURCE`); a body decodes to a `ManifestPage` — the items
/// its `data_selector` names and what its paginator reads (total, next URL, cursor).
package struct ManifestSource: SourcePlugin {
    package let manifest: RestManifest
    /// How long a held page counts as current (dlt has no word for it; a day by default).
    package var freshness: FreshnessRule

    /// `freshness` nil: the shortest `fetchlog.ttl` of the resources, else a day.
    package init(_ manifest: RestManifest, freshness: FreshnessRule? = nil) {
        self.manifest = manifest
        let ttl = manifest.resources.compactMap(\.timeToLive).min() ?? .seconds(24 * 3600)
        self.freshness = freshness ?? .timeToLive(ttl, renewOnOpen: false)
    }

    package var source: Source { Source(manifest.name) }
    package var summary: String { "from a manifest: \(manifest.resources.map(\.name).joined(separator: ", "))" }
    package var realBase: String { manifest.baseURL }

    package func kind(of resource: RestResource) -> DocumentKind { DocumentKind(manifest.name + "." + resource.name) }

    /// The resource's `fetchlog.writes` (issue 26): a manifest declares its writes as data.
    package func writes(for resource: String) -> ResourceWrites? { manifest.resource(resource)?.writes }

    func resource(of kind: DocumentKind) -> RestResource? {
        manifest.resources.first { self.kind(of: $0) == kind }
    }

    package func documentKind(ofPath path: String) -> DocumentKind? {
        resource(ofLabel: path).map(kind(of:))
    }

    /// The resource whose request a label is. Several resources may share a path (`bulk`
    /// with `size=2` and with `size=5`): the label's query tells them apart — a resource
    /// whose fixed parameter has another value in it did not ask for it, and of the rest
    /// the one whose fixed parameters it holds most of did. A resource's own path beats a
    /// child's pattern; a tie keeps manifest order (the same request asked twice). A page
    /// reached by a link that would read as another resource's carries its own resource's
    /// name as a fragment (`/linked?page=2#bracketed`), never sent: that name decides; so
    /// it does in a request with a body (`/search#search POST {…}`, `RestResource.requestSuffix`).
    func resource(ofLabel full: String) -> RestResource? {
        var label = Substring(full)
        if let hash = label.firstIndex(of: "#") {
            let fragment = label[label.index(after: hash)...]
            let named = manifest.resource(String(fragment.prefix { $0 != " " }))
            label = label[..<hash]
            if let named { return named }
        }
        let parts = label.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let pathOnly = String(parts[0])
        // Every value of each query name (a paginator may repeat a fixed parameter's name).
        var query: [Substring: [Substring]] = [:]
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query[kv[0], default: []].append(kv.count > 1 ? kv[1] : "")
            }
        }
        // The most fixed params matched wins; between equals, the one missing fewest (a
        // resource's own requests carry all its fixed params, so a page without `done=true`
        // is not `done_notes`'s even when it is listed before `notes`); then the first.
        var best: (resource: RestResource, score: Int, missing: Int)?
        for resource in manifest.resources {
            let own = resource.parent == nil && resource.requestPath == pathOnly
            guard own || resource.matches(path: pathOnly) else { continue }
            var score = own ? 1 << 20 : 0
            var missing = 0
            var conflicts = false
            for (name, value) in resource.params where !value.contains("{" as Character) {
                guard let given = query[Substring(name)] else { missing += 1; continue }
                if given.contains(Substring(Resource.queryEscape(value))) { score += 1 } else { conflicts = true }
            }
            guard !conflicts else { continue }
            if let best, score < best.score || (score == best.score && missing >= best.missing) { continue }
            best = (resource, score, missing)
        }
        return best?.resource
    }

    package func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        guard let resource = resource(of: kind) else { throw DecodeError(path: "$", reason: "\(manifest.name) has no resource for \(kind)") }
        // `response_actions` with `content` ignore a body holding the text (dlt looks in the
        // text, before any JSON): an empty page that ends the list.
        if !resource.ignoredContent.isEmpty {
            let text = String(decoding: body, as: UTF8.self)
            if resource.ignoredContent.contains(where: { text.contains($0.content) }) { return ManifestPage(ignoredBy: resource) }
        }
        let json: JSONValue
        do { json = try JSONValue.parse(bytes: body) } catch { throw DecodeError(path: "$", reason: "\(error)") }
        return try ManifestPage(json, resource: resource)
    }

    package func isEndOfList(status: UInt16, kind: DocumentKind) -> Bool {
        resource(of: kind)?.ignoredStatuses.contains(Int(status)) ?? false
    }

    /// The method and body a label asks with (`RestResource.requestSuffix`: `#NAME METHOD
    /// BODY`); a label without them is a GET. The Content-Type is the resource's body's.
    package func request(for resource: Resource) -> SourceRequest {
        guard let hash = resource.path.firstIndex(of: "#") else { return .get }
        let parts = resource.path[resource.path.index(after: hash)...].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let named = manifest.resource(String(parts[0])) else { return .get }
        var request = SourceRequest(method: String(parts[1]))
        var rest = parts.count == 3 ? parts[2] : nil
        // Filled header templates come first, as one `H…` token.
        if !named.headerTemplates.isEmpty, let token = rest.map({ $0.prefix { $0 != " " } }), let headers = RestResource.headers(fromToken: token) {
            request.headers = headers
            rest = token.endIndex < rest!.endIndex ? rest![rest!.index(after: token.endIndex)...] : nil
        }
        if let rest {
            request.body = Array(rest.utf8)
            // A cursor written into a body that had none makes a JSON one.
            request.contentType = named.body.map { $0.contentType } ?? "application/json"
        }
        return request
    }

    /// The headers the resource's paginator makes the next request from (a `header_cursor`'s):
    /// kept in the log, since a not-modified answer does not repeat them.
    package func keptResponseHeaders(for kind: DocumentKind) -> Set<String> {
        resource(of: kind)?.paginator.kind.keptResponseHeaders ?? []
    }
}

/// One page of a manifest resource, as decoded: the items, and what the paginator reads.
package struct ManifestPage: SourceDocument, Equatable {
    /// The whole body as parsed: a new definition of the source re-reads it (`reread`)
    /// without fetching again.
    package let body: JSONValue
    package let items: [JSONValue]
    /// What the body says about the next page, as the resource's paginator reads it.
    package let signals: PageSignals
    /// Items the resource's view leaves out, when it has a primary key: those without a
    /// value for one of its fields (`nonObjectItems` of them not objects at all).
    package let keylessItems: Int
    package let nonObjectItems: Int
    /// A body a `response_actions` `content` rule ignored: no items, and the list ends.
    package let ignoredByAction: Bool
    /// An incremental resource's last cursor value among this page's items (within its
    /// bounds): the next request's start is the extreme of the held pages' values.
    package let lastCursor: JSONValue?
    /// Which reading of which body this is: unique in the process, kept by every snapshot
    /// holding the page, so a view built from pages can be reused while its pages are the
    /// same (`ItemsView`'s cache) without comparing their contents.
    let identity: UInt64

    package static func == (a: ManifestPage, b: ManifestPage) -> Bool {
        // One reading of one body is equal to itself: the store compares its states on every
        // catch-up, and a deep comparison of 100 held pages of 1,000 items took 80 ms.
        if a.identity == b.identity { return true }
        return a.body == b.body && a.items == b.items && a.signals == b.signals
    }

    /// The page a body ignored by a `response_actions` `content` rule stands for.
    init(ignoredBy resource: RestResource) {
        body = .null
        identity = PageIdentity.next()
        items = []
        signals = PageSignals()
        keylessItems = 0
        nonObjectItems = 0
        ignoredByAction = true
        lastCursor = nil
    }

    init(_ json: JSONValue, resource: RestResource) throws(DecodeError) {
        body = json
        identity = PageIdentity.next()
        ignoredByAction = false
        var selected = json
        var path = "$"
        if let selector = resource.dataSelector {
            if let names = selector.memberNames {
                // Plain members: each step checked, so a wrong selector is named where it fails.
                for key in names {
                    path = JSONCursor.path(path, member: key)
                    guard case .object = selected else { throw DecodeError(path: path, reason: "expected an object on the way to the items") }
                    guard let next = selected[key] else { throw DecodeError(path: path, reason: "missing (the data_selector names it)") }
                    selected = next
                }
            } else {
                // Wildcards, indexes, `..`: one value is the items (or the one item), as dlt
                // takes a single match; several are the items.
                path = selector.text
                let found = selector.values(in: json)
                guard !found.isEmpty else { throw DecodeError(path: path, reason: "selects nothing (the data_selector)") }
                selected = found.count == 1 ? found[0] : .array(found)
            }
        }
        switch selected {
        case .array(let list): items = list
        case .object where resource.dataSelector == nil:
            // No selector and an object: the first member holding a list of objects, as dlt
            // finds records; else the object itself is the one item.
            if case .object(let members) = selected,
               let list = members.first(where: { member in
                   if case .array(let values) = member.1, values.allSatisfy({ if case .object = $0 { true } else { false } }) { return !values.isEmpty }
                   return false
               })?.1.arrayValue {
                items = list
            } else {
                items = [selected]
            }
        case .object: items = [selected]
        case .null: items = []
        // A selector naming one value: dlt wraps it, whatever it is (`$` of a bare 42).
        case _ where resource.dataSelector != nil: items = [selected]
        default: throw DecodeError(path: path, reason: "expected a list of items or one item")
        }
        var keyless = 0, nonObjects = 0
        if !resource.primaryKey.isEmpty {
            for item in items {
                guard case .object = item else {
                    keyless += 1
                    nonObjects += 1
                    continue
                }
                if !ItemsView.hasKey(item, resource.primaryKey) { keyless += 1 }
            }
        }
        keylessItems = keyless
        nonObjectItems = nonObjects
        if let incremental = resource.incremental {
            let selected = items
            lastCursor = incremental.lastValue(of: selected.filter(incremental.keeps))
        } else {
            lastCursor = nil
        }
        signals = try resource.paginator.kind.signals(in: json)
    }
}

/// Hands out page identities.
enum PageIdentity {
    private static let last = Mutex<UInt64>(0)

    static func next() -> UInt64 { last.withLock { $0 += 1; return $0 } }
}
