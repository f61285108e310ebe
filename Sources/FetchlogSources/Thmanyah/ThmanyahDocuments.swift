import FetchlogCore
/// Thmanyah home sections and search. Both answer `{"sections": [...]}`; home adds
/// `pagination`. The search host is a mock that sends faker data with loose types (`order`
/// as text, numbers as strings, lorem words in `type`/`content_type`), so search is decoded
/// in a lenient mode where a number field holding non-numeric text becomes nil instead of
/// an error.

/// One page of the home sections, with its pagination.
public struct ThmanyahHome: Sendable, Equatable {
    /// In the order sent (not sorted by `order`: sorting is a view concern).
    public var sections: [ThmanyahSection]
    /// `pagination.next_page`, e.g. "/home_sections?page=2"; nil on the last page.
    public var nextPage: String?
    public var totalPages: Int?

    public init(sections: [ThmanyahSection], nextPage: String?, totalPages: Int?) {
        self.sections = sections
        self.nextPage = nextPage
        self.totalPages = totalPages
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> ThmanyahHome {
        let pagination = try c.optionalField("pagination")
        return ThmanyahHome(
            sections: try ThmanyahSection.decodeAll(try c.field("sections"), loose: false),
            nextPage: try pagination?.optionalString("next_page"),
            totalPages: try pagination?.optionalInt("total_pages"))
    }
}

/// One home (or search) section and its items.
public struct ThmanyahSection: Sendable, Equatable {
    public enum SectionType: Sendable, Equatable {
        case square, bigSquare, twoLinesGrid, horizontalScroll, queue
        case unknown(String)

        /// Case, spaces and underscores are not significant: "big_square" == "big square".
        public init(raw: String) {
            switch ThmanyahSection.normalized(raw) {
            case "square": self = .square
            case "big_square": self = .bigSquare
            case "2_lines_grid": self = .twoLinesGrid
            case "horizontal_scroll": self = .horizontalScroll
            case "queue": self = .queue
            default: self = .unknown(raw)
            }
        }
    }

    public enum ContentType: Sendable, Equatable {
        case podcast, episode, audioBook, audioArticle
        case unknown(String)

        public init(raw: String) {
            switch ThmanyahSection.normalized(raw) {
            case "podcast": self = .podcast
            case "episode": self = .episode
            case "audio_book", "audiobook": self = .audioBook
            case "audio_article": self = .audioArticle
            default: self = .unknown(raw)
            }
        }

        /// The item member holding the id for this content type.
        var idKey: String? {
            switch self {
            case .podcast: "podcast_id"
            case .episode: "episode_id"
            case .audioBook: "audiobook_id"
            case .audioArticle: "article_id"
            case .unknown: nil
            }
        }
    }

    public var name: String
    public var type: SectionType
    public var contentType: ContentType
    /// Home sends an integer. Search sends text: a numeric one is read as a number; a
    /// non-numeric one (the mock's lorem words) becomes the section's 1-based position.
    public var order: Int
    public var content: [ThmanyahItem]

    public init(name: String, type: SectionType, contentType: ContentType, order: Int, content: [ThmanyahItem]) {
        self.name = name
        self.type = type
        self.contentType = contentType
        self.order = order
        self.content = content
    }

    static func normalized(_ raw: String) -> String {
        String(raw.trimmedForDecoding().lowercased().map { $0 == " " || $0 == "-" ? "_" : $0 })
    }

    static func decodeAll(_ sections: JSONCursor, loose: Bool) throws(DecodeError) -> [ThmanyahSection] {
        var result: [ThmanyahSection] = []
        for (index, section) in try sections.elements().enumerated() {
            result.append(try decode(section, position: index + 1, loose: loose))
        }
        return result
    }

    static func decode(_ c: JSONCursor, position: Int, loose: Bool) throws(DecodeError) -> ThmanyahSection {
        let contentType = ContentType(raw: try c.looseString("content_type"))
        let orderField = try c.field("order")
        let order: Int
        if let n = orderField.lenientInt() {
            order = n
        } else if loose, orderField.isString {
            order = position
        } else {
            throw orderField.mismatch("an integer")
        }
        return ThmanyahSection(
            name: try c.looseString("name"),
            type: SectionType(raw: try c.looseString("type")),
            contentType: contentType,
            order: order,
            content: try c.optionalArray("content") { (item: JSONCursor) throws(DecodeError) in
                try ThmanyahItem.decode(item, contentType: contentType, loose: loose)
            })
    }
}

/// One item of a section: a podcast, an episode, an audiobook or an article.
public struct ThmanyahItem: Sendable, Equatable {
    /// podcast_id / episode_id / audiobook_id / article_id as text. Not unique: the recorded
    /// home repeats "audiobook_001" and "article_001" in every item of their sections.
    public var id: String
    public var name: String
    /// HTML as sent (`<br>`, links); `HTMLText.clean` makes it text.
    public var descriptionHTML: String?
    public var avatarURL: String?
    /// Seconds.
    public var duration: Int?
    public var releaseDate: String?
    public var episodeCount: Int?
    /// Sent as "" for some episodes; kept as sent.
    public var authorName: String?
    public var score: Double?
    /// For episodes: the podcast they belong to (nil when `id` itself is the podcast_id).
    public var podcastID: String?
    public var podcastName: String?
    public var audioURL: String?
    public var language: String?

    public init(id: String, name: String, descriptionHTML: String? = nil, avatarURL: String? = nil, duration: Int? = nil,
                releaseDate: String? = nil, episodeCount: Int? = nil, authorName: String? = nil, score: Double? = nil,
                podcastID: String? = nil, podcastName: String? = nil, audioURL: String? = nil, language: String? = nil) {
        self.id = id
        self.name = name
        self.descriptionHTML = descriptionHTML
        self.avatarURL = avatarURL
        self.duration = duration
        self.releaseDate = releaseDate
        self.episodeCount = episodeCount
        self.authorName = authorName
        self.score = score
        self.podcastID = podcastID
        self.podcastName = podcastName
        self.audioURL = audioURL
        self.language = language
    }

    /// Tried after the content type's own key; episodes also carry `podcast_id`, so it is last.
    static let idKeys = ["episode_id", "audiobook_id", "article_id", "podcast_id"]

    static func decode(_ c: JSONCursor, contentType: ThmanyahSection.ContentType, loose: Bool) throws(DecodeError) -> ThmanyahItem {
        var id: String?
        var idKey = ""
        for key in [contentType.idKey].compactMap({ $0 }) + idKeys where id == nil {
            id = try c.optionalLooseString(key)
            idKey = key
        }
        guard let id else {
            throw DecodeError(path: c.path, reason: "missing required field: none of podcast_id, episode_id, audiobook_id, article_id")
        }
        func number(_ key: String) throws(DecodeError) -> Int? {
            guard let field = try c.optionalField(key) else { return nil }
            if let n = field.lenientInt() { return n }
            if loose, field.isString { return nil }
            throw field.mismatch("an integer")
        }
        func decimal(_ key: String) throws(DecodeError) -> Double? {
            guard let field = try c.optionalField(key) else { return nil }
            if let d = field.lenientDouble() { return d }
            if loose, field.isString { return nil }
            throw field.mismatch("a number")
        }
        return ThmanyahItem(
            id: id,
            name: try c.looseString("name"),
            descriptionHTML: try c.optionalLooseString("description"),
            avatarURL: try c.optionalString("avatar_url"),
            duration: try number("duration"),
            releaseDate: try c.optionalString("release_date"),
            episodeCount: try number("episode_count"),
            authorName: try c.optionalLooseString("author_name"),
            score: try decimal("score"),
            podcastID: idKey == "podcast_id" ? nil : try c.optionalLooseString("podcast_id"),
            podcastName: try c.optionalLooseString("podcast_name"),
            audioURL: try c.optionalString("audio_url"),
            language: try c.optionalString("language"))
    }
}
