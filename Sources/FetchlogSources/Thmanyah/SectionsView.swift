import FetchlogCore
/// Thmanyah's home: the sections of every held `/home_sections?page=N`, shown by `order`.
///
/// Export: `{"view":"sections","asOf":N,"sections":[{name, type, rawType, contentType,
/// rawContentType, order, page, items:[{id,name,description,avatarURL,duration,releaseDate,
/// episodeCount,authorName}]}], "count":N, "pagesHeld":N, "totalPages":N|null}`.
///
/// Unknown section and content types are kept, not dropped: `type` is then `"unknown"` and
/// `rawType` holds the name as sent (`rawType` is null for known types; likewise
/// `contentType`/`rawContentType`). A flat string enum keeps the schema simple and lets a
/// client switch on `type` without first testing for an object.
public struct SectionsView: ExportableView, Equatable {
    public static let viewName = "sections"

    public struct ItemRow: Sendable, Equatable {
        /// Not unique (every recorded audiobook is "audiobook_001"): never dedup by it.
        public var id: String
        public var name: String
        /// `HTMLText.clean` of the HTML description.
        public var description: String?
        public var avatarURL: String?
        public var duration: Int?
        public var releaseDate: String?
        public var episodeCount: Int?
        public var authorName: String?

        init(_ item: ThmanyahItem) {
            id = item.id
            name = item.name
            description = item.descriptionHTML.map(HTMLText.clean)
            avatarURL = item.avatarURL
            duration = item.duration
            releaseDate = item.releaseDate
            episodeCount = item.episodeCount
            authorName = item.authorName
        }
    }

    public struct SectionRow: Sendable, Equatable {
        public var name: String
        public var type: ThmanyahSection.SectionType
        public var contentType: ThmanyahSection.ContentType
        public var order: Int
        /// The home page it came from; nil for search results (they have no pages).
        public var page: Int?
        public var items: [ItemRow]

        init(_ section: ThmanyahSection, page: Int?) {
            name = section.name
            type = section.type
            contentType = section.contentType
            order = section.order
            self.page = page
            items = section.content.map(ItemRow.init)
        }
    }

    /// Sorted by `order`; ties keep page order, then document order.
    public let sections: [SectionRow]
    /// Distinct page numbers held, ascending.
    public let pages: [Int]
    /// `pagination.total_pages` of the held page-1 document.
    public let totalPages: Int?

    public init(state: LogState) {
        // Page number → the home document; two paths naming one page keep the later fetch.
        var byPage: [Int: HeldDocument] = [:]
        for (key, held) in state.documents where key.source == Source.thmanyah.rawValue {
            guard case .thmanyahHome? = held.thmanyah, let page = Self.pageNumber(key.path) else { continue }
            if let other = byPage[page], other.seq > held.seq { continue }
            byPage[page] = held
        }
        pages = byPage.keys.sorted()
        var rows: [SectionRow] = []
        for page in pages {
            guard case .thmanyahHome(let home)? = byPage[page]?.thmanyah else { continue }
            rows += home.sections.map { SectionRow($0, page: page) }
        }
        // Swift's sort is not guaranteed stable: sort on (order, position in page-then-document order).
        sections = rows.enumerated().sorted { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }.map(\.element)
        if case .thmanyahHome(let first)? = byPage[1]?.thmanyah { totalPages = first.totalPages } else { totalPages = nil }
    }

    /// The first section (in shown order) with exactly this name.
    public func section(named name: String) -> SectionRow? { sections.first { $0.name == name } }

    public func exportMembers() -> [(String, JSONValue)] {
        [
            ("sections", .array(sections.map(Self.json))),
            ("count", .number(sections.count)),
            ("pagesHeld", .number(pages.count)),
            ("totalPages", .optional(totalPages)),
        ]
    }

    /// N from `/home_sections?page=N` (the `page` query item, wherever it is in the query).
    static func pageNumber(_ path: String) -> Int? {
        guard path.hasPrefix("/home_sections?") else { return nil }
        let query = path.dropFirst("/home_sections?".count)
        for item in query.split(separator: "&") where item.hasPrefix("page=") {
            return Int(item.dropFirst("page=".count))
        }
        return nil
    }

    static func json(_ section: SectionRow) -> JSONValue {
        var members = sectionMembers(section)
        members.insert(("page", .optional(section.page)), at: members.count - 1)
        return .object(members)
    }

    /// Shared with `SearchView` (which has no `page`): every member but `page`, `items` last.
    static func sectionMembers(_ section: SectionRow) -> [(String, JSONValue)] {
        let (type, rawType) = typeNames(section.type)
        let (contentType, rawContentType) = contentTypeNames(section.contentType)
        return [
            ("name", .string(section.name)),
            ("type", .string(type)),
            ("rawType", .optional(rawType)),
            ("contentType", .string(contentType)),
            ("rawContentType", .optional(rawContentType)),
            ("order", .number(section.order)),
            ("items", .array(section.items.map(json))),
        ]
    }

    static func json(_ item: ItemRow) -> JSONValue {
        .object([
            ("id", .string(item.id)),
            ("name", .string(item.name)),
            ("description", .optional(item.description)),
            ("avatarURL", .optional(item.avatarURL)),
            ("duration", .optional(item.duration)),
            ("releaseDate", .optional(item.releaseDate)),
            ("episodeCount", .optional(item.episodeCount)),
            ("authorName", .optional(item.authorName)),
        ])
    }

    /// Export name and raw name (nil when known). "big square" is already `.bigSquare`.
    public static func typeNames(_ type: ThmanyahSection.SectionType) -> (String, String?) {
        switch type {
        case .square: ("square", nil)
        case .bigSquare: ("big_square", nil)
        case .twoLinesGrid: ("2_lines_grid", nil)
        case .horizontalScroll: ("horizontal_scroll", nil)
        case .queue: ("queue", nil)
        case .unknown(let raw): ("unknown", raw)
        }
    }

    public static func contentTypeNames(_ type: ThmanyahSection.ContentType) -> (String, String?) {
        switch type {
        case .podcast: ("podcast", nil)
        case .episode: ("episode", nil)
        case .audioBook: ("audio_book", nil)
        case .audioArticle: ("audio_article", nil)
        case .unknown(let raw): ("unknown", raw)
        }
    }
}
