/// One kind of dlt paginator: what it asks first, what it reads of each page, what it asks
/// next and when the list ends — all in the kind's own type (`SinglePagePaginator`,
/// `PageNumberPaginator`, `OffsetPaginator`, `JSONLinkPaginator`, `HeaderLinkPaginator`,
/// `CursorPaginator`, `HeaderCursorPaginator`, `AutoPaginator`), which also reads its own
/// keys from the manifest (`init(_: ManifestReader)`) with dlt's meaning and defaults.
/// `RestPaginator` says which kind a resource has; `ManifestPager` runs a list by asking
/// the kind, never by naming kinds.
package protocol Paginator: Sendable, Equatable {
    /// The first page's request, `skip` pages on from the list's start, and how many pages
    /// must be fetched (not counted against the caller's page limit) to get there: a kind
    /// that knows the next page only from the one before reads its way to it.
    func first(skipping skip: Int) -> FirstPage

    /// What a page's body says about the next page, read once, when the body is decoded.
    func signals(in body: JSONValue) throws(DecodeError) -> PageSignals

    /// After `page`: the next page's request, a link to follow, or the end of the list.
    func next(after page: AnsweredPage) -> PagingStep

    /// Response headers (lowercased) the next request is made from: kept in the log with
    /// the page, since a not-modified answer does not repeat them.
    var keptResponseHeaders: Set<String> { get }

    /// True when the kind writes into the request's JSON body, so a list's pages have
    /// bodies of their own.
    var writesBody: Bool { get }

    /// How many pages the kind's own maximum allows from its first page, when it sets one.
    var pageBound: Int? { get }
}

extension Paginator {
    /// The resource's own request; a later page is reached through the ones before it.
    package func first(skipping skip: Int) -> FirstPage { FirstPage(request: PageRequest(), uncounted: skip) }
    /// Nothing: the kind finds the next page somewhere else than in the body.
    package func signals(in body: JSONValue) throws(DecodeError) -> PageSignals { PageSignals() }
    package var keptResponseHeaders: Set<String> { [] }
    package var writesBody: Bool { false }
    package var pageBound: Int? { nil }
}

/// Where the first page of a list is, and how far it is from the list's start.
package struct FirstPage: Sendable, Equatable {
    /// What the first page's request adds to the resource's.
    package var request: PageRequest
    /// Pages fetched on the way to it that the caller's page limit does not count.
    package var uncounted: Int

    package init(request: PageRequest, uncounted: Int) {
        self.request = request
        self.uncounted = uncounted
    }
}

/// What a paginator adds to a resource's request for one page: query parameters after the
/// resource's own, and values written at paths of its JSON body (dlt's `*_body_path`).
package struct PageRequest: Sendable, Equatable {
    /// Query parameters, in the order dlt adds them (the page or offset, then the limit).
    @ComparedPairs package var query: [(String, String)] = []
    /// Values and the member names leading to where they go in the body.
    @ComparedPairs package var body: [([String], JSONValue)] = []
    /// A range paginator's page number or offset (the next one is counted from it).
    package var position: Int?

    package init(query: [(String, String)] = [], body: [([String], JSONValue)] = [], position: Int? = nil) {
        self.query = query
        self.body = body
        self.position = position
    }
}

/// What a page's body says about the next page, as its paginator read it at decode.
package struct PageSignals: Sendable, Equatable {
    /// The value at `total_path` (pages or items).
    package var total: Int?
    /// The next page's URL as the body writes it (`next_url_path`, or `auto`'s `next`);
    /// never empty.
    package var nextURL: String?
    /// The next cursor at `cursor_path`, as the body holds it (its type kept for a body
    /// path); nil when dlt reads it as none (null, "", 0, false, an empty list or object).
    package var cursor: JSONValue?
    /// `has_more_path`'s boolean; nil when the paginator has none.
    package var hasMore: Bool?

    package init(total: Int? = nil, nextURL: String? = nil, cursor: JSONValue? = nil, hasMore: Bool? = nil) {
        self.total = total
        self.nextURL = nextURL
        self.cursor = cursor
        self.hasMore = hasMore
    }

    /// The cursor as query text: a string as it is, anything else as canonical JSON.
    package var cursorText: String? { cursor.map { $0.stringValue ?? $0.canonicalText() } }
}

/// A page as its paginator reads it to ask the next: the request it answered, its items
/// and signals, and the response's headers.
package struct AnsweredPage {
    /// What the paginator added to the request this page answered.
    package var request: PageRequest
    /// How many items the page holds (the empty-page stop rules).
    package var itemCount: Int
    package var signals: PageSignals
    /// Every value of a response header, by name in any case, on each line the response sent
    /// it on; read only by the kinds that look at headers (a not-modified page's come from
    /// the log).
    package var headers: (String) -> [String]

    package init(request: PageRequest, itemCount: Int, signals: PageSignals, headers: @escaping (String) -> [String]) {
        self.request = request
        self.itemCount = itemCount
        self.signals = signals
        self.headers = headers
    }
}

/// What a paginator makes of a page.
package enum PagingStep: Equatable {
    /// The next page: the resource's request with this added.
    case request(PageRequest)
    /// The next page is at this URL as the page wrote it (a link: relative or absolute).
    case link(String)
    /// The list ends here.
    case end(ListEnd)
}

/// Why a paginator ends a list (dlt's rules, kind by kind).
package enum ListEnd: Sendable, Equatable {
    /// `single_page`: the first page is the list.
    case singlePage
    /// An empty page, with `stop_after_empty_page`.
    case emptyPage
    /// The next page or offset would be past `total_path`'s total.
    case total
    /// The next page or offset would be past `maximum_page` / `maximum_offset`.
    case maximum
    /// `has_more_path` says false.
    case noMore
    /// An offset with `limit: 0` never moves: the next page would be this one.
    case noStep
    /// A page number or offset with no total, maximum, `has_more_path` or empty-page stop:
    /// dlt refuses to go on, since nothing would ever end the list.
    case noStopRule
    /// No next link (body or `Link` header) or cursor (body or response header).
    case noNext
}

extension PageSignals {
    /// `has_more_path`'s boolean, a `"true"`/`"false"` string read as dlt's `str2bool` reads it.
    static func hasMore(at path: JSONPath, in json: JSONValue) throws(DecodeError) -> Bool {
        let flag = path.first(in: json)
        switch flag {
        case .bool(let b)?: return b
        case .string(let text)? where ["true", "false", "1", "0", "yes", "no", "y", "n", "on", "off", "t", "f"].contains(text.lowercased()):
            return ["true", "1", "yes", "y", "on", "t"].contains(text.lowercased())
        default:
            // dlt stops with an error: the body does not say whether there is more.
            throw DecodeError(path: path.text, reason: flag == nil ? "missing (the paginator's has_more_path names it)"
                : "expected a boolean (the paginator's has_more_path), got \(flag!.canonicalText().prefix(80))")
        }
    }
}
