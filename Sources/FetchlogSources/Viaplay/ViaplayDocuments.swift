import FetchlogCore
/// Viaplay content pages (root, section and category pages, 2016–2024 captures).
/// They are HAL documents: sections are links (`_links["viaplay:sections"]`), content comes
/// in embedded blocks (`_embedded["viaplay:blocks"]`) of embedded products.

/// One Viaplay page: title, type, section links and blocks.
public struct ViaplayPage: Sendable, Equatable {
    public var title: String?
    /// The 2016 and 2018 roots send the untranslated key "metadata.start.description2".
    public var description: String?
    /// "root", "section", "category", …
    public var pageType: String?
    public var sections: [ViaplaySection]
    public var blocks: [ViaplayBlock]
    /// `_links.next`, else the next page of the page's only block (category pages page
    /// through their one list block), template part removed.
    public var nextHref: String?

    public init(title: String?, description: String?, pageType: String?, sections: [ViaplaySection],
                blocks: [ViaplayBlock], nextHref: String?) {
        self.title = title
        self.description = description
        self.pageType = pageType
        self.sections = sections
        self.blocks = blocks
        self.nextHref = nextHref
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> ViaplayPage {
        let links = try c.optionalField("_links")
        let sections = try links?.optionalArray("viaplay:sections", ViaplaySection.decode) ?? []
        let blocks = try c.optionalField("_embedded")?.optionalArray("viaplay:blocks", ViaplayBlock.decode) ?? []
        let ownNext = try links.flatMap { (l: JSONCursor) throws(DecodeError) in try ViaplayHref.link("next", in: l) }
        return ViaplayPage(
            title: try c.optionalString("title"),
            description: try c.optionalString("description"),
            pageType: try c.optionalString("pageType"),
            sections: sections,
            blocks: blocks,
            nextHref: ownNext ?? (blocks.count == 1 ? blocks[0].nextHref : nil))
    }
}

/// A section link of a page (template stripped from its href).
public struct ViaplaySection: Sendable, Equatable {
    public var id: String
    /// Not unique: the 2018 root has three sections titled "Sport".
    public var title: String
    /// `rawHref` without its URI-template part (`{?dtg}`, `{?dtg,productsPerPage}`).
    public var href: String
    public var rawHref: String
    /// "series", "movie", …; the 2016 root's rental section sends its id here.
    public var name: String?
    /// "vod", "tvod", "sport", "sportPerDay", …
    public var type: String?

    public init(id: String, title: String, rawHref: String, name: String?, type: String?) {
        self.id = id
        self.title = title
        self.href = ViaplayHref.stripTemplate(rawHref)
        self.rawHref = rawHref
        self.name = name
        self.type = type
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> ViaplaySection {
        ViaplaySection(id: try c.looseString("id"), title: try c.string("title"), rawHref: try c.string("href"),
                       name: try c.optionalString("name"), type: try c.optionalString("type"))
    }
}

/// A block of a page and its products.
public struct ViaplayBlock: Sendable, Equatable {
    /// Missing on 2016 section blocks.
    public var id: String?
    public var type: String?
    public var title: String?
    /// Only the first blocks of a section page embed products; the rest are links only.
    public var products: [ViaplayProduct]
    public var totalProductCount: Int?
    public var currentPage: Int?
    public var pageCount: Int?
    public var productsPerPage: Int?
    /// `_links.next.href`, template part removed.
    public var nextHref: String?

    public init(id: String?, type: String?, title: String?, products: [ViaplayProduct], totalProductCount: Int?,
                currentPage: Int?, pageCount: Int?, productsPerPage: Int?, nextHref: String?) {
        self.id = id
        self.type = type
        self.title = title
        self.products = products
        self.totalProductCount = totalProductCount
        self.currentPage = currentPage
        self.pageCount = pageCount
        self.productsPerPage = productsPerPage
        self.nextHref = nextHref
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> ViaplayBlock {
        ViaplayBlock(
            id: try c.optionalLooseString("id"),
            type: try c.optionalString("type"),
            title: try c.optionalString("title"),
            products: try c.optionalField("_embedded")?.optionalArray("viaplay:products", ViaplayProduct.decode) ?? [],
            totalProductCount: try c.optionalInt("totalProductCount"),
            currentPage: try c.optionalInt("currentPage"),
            pageCount: try c.optionalInt("pageCount"),
            productsPerPage: try c.optionalInt("productsPerPage"),
            nextHref: try c.optionalField("_links").flatMap { (l: JSONCursor) throws(DecodeError) in try ViaplayHref.link("next", in: l) })
    }
}

/// A product (a title) in a block.
public struct ViaplayProduct: Sendable, Equatable {
    /// "series", "movie", "episode", …
    public var type: String?
    /// `content.title`, else `content.series.title` (series products only have the latter).
    public var title: String?
    public var originalTitle: String?
    /// `content.synopsis`, else `content.series.synopsis`.
    public var synopsis: String?
    /// `content.production.year`.
    public var year: Int?
    public var publicPath: String?
    /// `system.guid`; missing in 2016 captures.
    public var guid: String?
    /// `_links["viaplay:page"].href`, else `_links.self.href`, template part removed.
    public var href: String?
    /// `content.images.boxart.url`, else `content.images.landscape.url`.
    public var imageURL: String?

    public init(type: String?, title: String?, originalTitle: String?, synopsis: String?, year: Int?,
                publicPath: String?, guid: String?, href: String?, imageURL: String?) {
        self.type = type
        self.title = title
        self.originalTitle = originalTitle
        self.synopsis = synopsis
        self.year = year
        self.publicPath = publicPath
        self.guid = guid
        self.href = href
        self.imageURL = imageURL
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> ViaplayProduct {
        let content = try c.optionalField("content")
        let series = try content?.optionalField("series")
        let images = try content?.optionalField("images")
        let links = try c.optionalField("_links")
        let pageHref = try links.flatMap { (l: JSONCursor) throws(DecodeError) in try ViaplayHref.link("viaplay:page", in: l) }
        let selfHref = try links.flatMap { (l: JSONCursor) throws(DecodeError) in try ViaplayHref.link("self", in: l) }
        // Evaluated one by one: `??` is `rethrows` and would widen the typed error.
        let ownTitle = try content?.optionalString("title"), seriesTitle = try series?.optionalString("title")
        let ownSynopsis = try content?.optionalString("synopsis"), seriesSynopsis = try series?.optionalString("synopsis")
        let boxart = try images?.optionalField("boxart")?.optionalString("url")
        let landscape = try images?.optionalField("landscape")?.optionalString("url")
        return ViaplayProduct(
            type: try c.optionalString("type"),
            title: ownTitle ?? seriesTitle,
            originalTitle: try content?.optionalString("originalTitle"),
            synopsis: ownSynopsis ?? seriesSynopsis,
            year: try content?.optionalField("production")?.optionalInt("year"),
            publicPath: try c.optionalString("publicPath"),
            guid: try c.optionalField("system")?.optionalLooseString("guid"),
            href: pageHref ?? selfHref,
            imageURL: boxart ?? landscape)
    }
}

/// Viaplay's links are URI templates; the client fills none of their variables.
enum ViaplayHref {
    /// Removes every query-template expression (`{?dtg}`, `{&dtg}`, `{?a,b}`) and keeps the
    /// rest, so "https://…/serier{?dtg}" becomes "https://…/serier". Path expressions such as
    /// `{guid}` are not query parts and are left alone.
    static func stripTemplate(_ href: String) -> String {
        var out = ""
        var rest = Substring(href)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let after = rest[open...].dropFirst()
            guard let close = after.firstIndex(of: "}") else { rest = rest[open...]; break }
            if let op = after.first, op == "?" || op == "&" {
                // dropped
            } else {
                out += rest[open ... close]
            }
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return out
    }

    /// The stripped `href` of link `rel` in a `_links` object, or nil.
    static func link(_ rel: String, in links: JSONCursor) throws(DecodeError) -> String? {
        guard let link = try links.optionalField(rel), link.isObject else { return nil }
        return try link.optionalString("href").map(stripTemplate)
    }
}
