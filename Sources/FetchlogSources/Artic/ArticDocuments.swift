import FetchlogCore
/// Art Institute of Chicago: artwork list pages, one artwork, one agent (artist).
/// Every answer wraps its record(s) in `data`; error answers (`{status, error, detail}`)
/// have no `data` and so fail with a `DecodeError` at `$.data`.

/// The `pagination` of an artworks page.
public struct ArticPagination: Sendable, Equatable {
    public var total: Int
    public var limit: Int
    public var offset: Int
    public var totalPages: Int
    public var currentPage: Int
    /// nil on the last page.
    public var nextURL: String?

    public init(total: Int, limit: Int, offset: Int, totalPages: Int, currentPage: Int, nextURL: String?) {
        self.total = total
        self.limit = limit
        self.offset = offset
        self.totalPages = totalPages
        self.currentPage = currentPage
        self.nextURL = nextURL
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> ArticPagination {
        ArticPagination(total: try c.int("total"), limit: try c.int("limit"), offset: try c.int("offset"),
                        totalPages: try c.int("total_pages"), currentPage: try c.int("current_page"),
                        nextURL: try c.optionalString("next_url"))
    }
}

/// One page of `/api/v1/artworks`: its pagination, artworks and the IIIF base.
public struct ArticArtworksPage: Sendable, Equatable {
    public var pagination: ArticPagination
    /// As sent: the API repeats an artwork across pages, so de-duplication is the views' job.
    public var artworks: [ArticArtwork]
    /// `config.iiif_url`, the base of every image URL.
    public var iiifURL: String?

    public init(pagination: ArticPagination, artworks: [ArticArtwork], iiifURL: String?) {
        self.pagination = pagination
        self.artworks = artworks
        self.iiifURL = iiifURL
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> ArticArtworksPage {
        ArticArtworksPage(pagination: try ArticPagination.decode(try c.field("pagination")),
                          artworks: try c.field("data").map(ArticArtwork.decode),
                          iiifURL: try ArticArtwork.iiifURL(in: c))
    }
}

/// One artwork, with the fields the views show.
public struct ArticArtwork: Sendable, Equatable {
    public var id: Int
    public var title: String
    /// Several lines ("Name\nNationality, 1845-1921").
    public var artistDisplay: String?
    public var artistID: Int?
    public var artistTitle: String?
    /// Free text: "1869", "c. 1615–75", "n.d.".
    public var dateDisplay: String?
    public var dateStart: Int?
    public var dateEnd: Int?
    public var placeOfOrigin: String?
    public var mediumDisplay: String?
    public var artworkTypeTitle: String?
    public var departmentTitle: String?
    public var creditLine: String?
    public var imageID: String?
    /// `thumbnail.alt_text`.
    public var thumbnailAltText: String?

    public init(id: Int, title: String, artistDisplay: String? = nil, artistID: Int? = nil, artistTitle: String? = nil,
                dateDisplay: String? = nil, dateStart: Int? = nil, dateEnd: Int? = nil, placeOfOrigin: String? = nil,
                mediumDisplay: String? = nil, artworkTypeTitle: String? = nil, departmentTitle: String? = nil,
                creditLine: String? = nil, imageID: String? = nil, thumbnailAltText: String? = nil) {
        self.id = id
        self.title = title
        self.artistDisplay = artistDisplay
        self.artistID = artistID
        self.artistTitle = artistTitle
        self.dateDisplay = dateDisplay
        self.dateStart = dateStart
        self.dateEnd = dateEnd
        self.placeOfOrigin = placeOfOrigin
        self.mediumDisplay = mediumDisplay
        self.artworkTypeTitle = artworkTypeTitle
        self.departmentTitle = departmentTitle
        self.creditLine = creditLine
        self.imageID = imageID
        self.thumbnailAltText = thumbnailAltText
    }

    /// `iiif_url + "/" + image_id + "/full/843,/0/default.jpg"`; nil without an image id or base.
    public func imageURL(iiifURL: String?) -> String? {
        guard let iiifURL, let imageID, !imageID.isEmpty else { return nil }
        return iiifURL + "/" + imageID + "/full/843,/0/default.jpg"
    }

    static func iiifURL(in document: JSONCursor) throws(DecodeError) -> String? {
        try document.optionalField("config")?.optionalString("iiif_url")
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> ArticArtwork {
        ArticArtwork(
            id: try c.int("id"),
            title: try c.string("title"),
            artistDisplay: try c.optionalString("artist_display"),
            artistID: try c.optionalInt("artist_id"),
            artistTitle: try c.optionalString("artist_title"),
            dateDisplay: try c.optionalString("date_display"),
            dateStart: try c.optionalInt("date_start"),
            dateEnd: try c.optionalInt("date_end"),
            placeOfOrigin: try c.optionalString("place_of_origin"),
            mediumDisplay: try c.optionalString("medium_display"),
            artworkTypeTitle: try c.optionalString("artwork_type_title"),
            departmentTitle: try c.optionalString("department_title"),
            creditLine: try c.optionalString("credit_line"),
            imageID: try c.optionalString("image_id"),
            thumbnailAltText: try c.optionalField("thumbnail")?.optionalString("alt_text"))
    }
}

/// One agent (an artist).
public struct ArticAgent: Sendable, Equatable {
    public var id: Int
    public var title: String
    /// Years; nil for organisations and unknown dates.
    public var birthDate: Int?
    public var deathDate: Int?
    public var descriptionHTML: String?

    public init(id: Int, title: String, birthDate: Int?, deathDate: Int?, descriptionHTML: String?) {
        self.id = id
        self.title = title
        self.birthDate = birthDate
        self.deathDate = deathDate
        self.descriptionHTML = descriptionHTML
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> ArticAgent {
        ArticAgent(id: try c.int("id"), title: try c.string("title"), birthDate: try c.optionalInt("birth_date"),
                   deathDate: try c.optionalInt("death_date"), descriptionHTML: try c.optionalString("description"))
    }
}
