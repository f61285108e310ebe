import FetchlogCore
/// Every held Viaplay page (root, section and category pages), by path.
///
/// Export: `{"view":"pages","asOf":N,"pages":[{path, title, description, pageType,
/// sections:[{id,title,href,name,type}], blocks:[{id,type,title,totalProductCount,pageCount,
/// products:[{type,title,year,synopsis,href}]}], nextHref}], "count":N}`.
public struct PagesView: ExportableView, Equatable {
    public static let viewName = "pages"
    /// The path of the navigation root.
    public static let rootPath = Resource.viaplayRoot.path

    public struct PageRow: Sendable, Equatable {
        public var path: String
        public var title: String?
        /// As sent: Viaplay descriptions are plain text (old roots send a translation key).
        public var description: String?
        public var pageType: String?
        /// The page's own `viaplay:sections` links in document order (on the root: the
        /// navigation). `href` is already stripped of its template part by the decoder.
        public var sections: [ViaplaySection]
        public var blocks: [ViaplayBlock]
        public var nextHref: String?
    }

    /// Sorted by path.
    public let pages: [PageRow]

    public init(state: LogState) {
        pages = state.documents
            .compactMap { key, held -> PageRow? in
                guard key.source == Source.viaplay.rawValue, case .viaplayPage(let page)? = held.viaplay else { return nil }
                return PageRow(path: key.path, title: page.title, description: page.description, pageType: page.pageType,
                               sections: page.sections, blocks: page.blocks, nextHref: page.nextHref)
            }
            .sorted { $0.path < $1.path }
    }

    public func page(path: String) -> PageRow? { pages.first { $0.path == path } }

    public var root: PageRow? { page(path: Self.rootPath) }

    public func exportMembers() -> [(String, JSONValue)] {
        [("pages", .array(pages.map(Self.json))), ("count", .number(pages.count))]
    }

    /// One page as the `pages` export holds it.
    public static func json(_ page: PageRow) -> JSONValue {
        .object([
            ("path", .string(page.path)),
            ("title", .optional(page.title)),
            ("description", .optional(page.description)),
            ("pageType", .optional(page.pageType)),
            ("sections", .array(page.sections.map { s in
                .object([("id", .string(s.id)), ("title", .string(s.title)), ("href", .string(s.href)),
                         ("name", .optional(s.name)), ("type", .optional(s.type))])
            })),
            ("blocks", .array(page.blocks.map(json))),
            ("nextHref", .optional(page.nextHref)),
        ])
    }

    static func json(_ block: ViaplayBlock) -> JSONValue {
        .object([
            ("id", .optional(block.id)),
            ("type", .optional(block.type)),
            ("title", .optional(block.title)),
            ("totalProductCount", .optional(block.totalProductCount)),
            ("pageCount", .optional(block.pageCount)),
            ("products", .array(block.products.map { p in
                .object([("type", .optional(p.type)), ("title", .optional(p.title)), ("year", .optional(p.year)),
                         ("synopsis", .optional(p.synopsis)), ("href", .optional(p.href))])
            })),
        ])
    }
}
