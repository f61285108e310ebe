import FetchlogCore
/// TVmaze documents: show pages, one show, its images, its episodes, search results.
/// Both the 2019 schema (http URLs, 20 keys) and the current one (23 keys) decode: only `id`
/// and `name` are required, everything else may be missing or `null`.

/// A show's image URLs (`medium`, `original`).
public struct TVMazeImageLinks: Sendable, Equatable {
    public var medium: String?
    public var original: String?

    public init(medium: String?, original: String?) {
        self.medium = medium
        self.original = original
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> TVMazeImageLinks {
        TVMazeImageLinks(medium: try c.optionalString("medium"), original: try c.optionalString("original"))
    }
}

/// One show of the index, a search result or `/shows/{id}`.
public struct TVMazeShow: Sendable, Equatable {
    public var id: Int
    public var name: String
    public var url: String?
    public var type: String?
    public var language: String?
    public var genres: [String]
    public var status: String?
    public var runtime: Int?
    public var averageRuntime: Int?
    /// "YYYY-MM-DD" as sent.
    public var premiered: String?
    /// The year of `premiered`, when it starts with four digits.
    public var premiereYear: Int?
    public var ended: String?
    /// `rating.average`: sent as a float, an integer literal (`8`) or `null`.
    public var rating: Double?
    public var image: TVMazeImageLinks?
    /// HTML as sent; `HTMLText.clean` makes it text.
    public var summaryHTML: String?
    /// Seconds since the epoch of TVmaze's last change to the show.
    public var updated: Int?

    public init(id: Int, name: String, url: String? = nil, type: String? = nil, language: String? = nil,
                genres: [String] = [], status: String? = nil, runtime: Int? = nil, averageRuntime: Int? = nil,
                premiered: String? = nil, ended: String? = nil, rating: Double? = nil,
                image: TVMazeImageLinks? = nil, summaryHTML: String? = nil, updated: Int? = nil) {
        self.id = id
        self.name = name
        self.url = url
        self.type = type
        self.language = language
        self.genres = genres
        self.status = status
        self.runtime = runtime
        self.averageRuntime = averageRuntime
        self.premiered = premiered
        self.premiereYear = premiered.flatMap(TVMazeShow.year(of:))
        self.ended = ended
        self.rating = rating
        self.image = image
        self.summaryHTML = summaryHTML
        self.updated = updated
    }

    /// 2013 from "2013-06-24"; nil unless the text starts with four ASCII digits.
    static func year(of date: String) -> Int? {
        let digits = date.utf8.prefix(4)
        guard digits.count == 4, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> TVMazeShow {
        TVMazeShow(
            id: try c.int("id"),
            name: try c.string("name"),
            url: try c.optionalString("url"),
            type: try c.optionalString("type"),
            language: try c.optionalString("language"),
            genres: try c.stringArray("genres"),
            status: try c.optionalString("status"),
            runtime: try c.optionalInt("runtime"),
            averageRuntime: try c.optionalInt("averageRuntime"),
            premiered: try c.optionalString("premiered"),
            ended: try c.optionalString("ended"),
            rating: try c.optionalField("rating")?.optionalDouble("average"),
            image: try c.optionalField("image").map { (i: JSONCursor) throws(DecodeError) in try TVMazeImageLinks.decode(i) },
            summaryHTML: try c.optionalString("summary"),
            updated: try c.optionalInt("updated"))
    }
}

/// One rendition of an image (URL and size).
public struct TVMazeResolution: Sendable, Equatable {
    public var url: String
    public var width: Int?
    public var height: Int?

    public init(url: String, width: Int?, height: Int?) {
        self.url = url
        self.width = width
        self.height = height
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> TVMazeResolution {
        TVMazeResolution(url: try c.string("url"), width: try c.optionalInt("width"), height: try c.optionalInt("height"))
    }
}

/// One element of `/shows/{id}/images`.
public struct TVMazeImage: Sendable, Equatable {
    public var id: Int
    /// poster, background, banner, typography, or nil (the API sends `null`).
    public var type: String?
    /// A missing `main` counts as false.
    public var main: Bool
    public var original: TVMazeResolution?
    public var medium: TVMazeResolution?

    public init(id: Int, type: String?, main: Bool, original: TVMazeResolution?, medium: TVMazeResolution?) {
        self.id = id
        self.type = type
        self.main = main
        self.original = original
        self.medium = medium
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> TVMazeImage {
        let resolutions = try c.optionalField("resolutions")
        return TVMazeImage(
            id: try c.int("id"),
            type: try c.optionalString("type"),
            main: try c.optionalBool("main") ?? false,
            original: try resolutions?.optionalField("original").map { (r: JSONCursor) throws(DecodeError) in try TVMazeResolution.decode(r) },
            medium: try resolutions?.optionalField("medium").map { (r: JSONCursor) throws(DecodeError) in try TVMazeResolution.decode(r) })
    }
}

/// One episode of `/shows/{id}/episodes`.
public struct TVMazeEpisode: Sendable, Equatable {
    public var id: Int
    public var name: String
    public var season: Int?
    /// nil for specials.
    public var number: Int?
    public var airdate: String?
    public var runtime: Int?
    public var rating: Double?
    public var image: TVMazeImageLinks?
    public var summaryHTML: String?

    public init(id: Int, name: String, season: Int?, number: Int?, airdate: String?, runtime: Int?,
                rating: Double?, image: TVMazeImageLinks?, summaryHTML: String?) {
        self.id = id
        self.name = name
        self.season = season
        self.number = number
        self.airdate = airdate
        self.runtime = runtime
        self.rating = rating
        self.image = image
        self.summaryHTML = summaryHTML
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> TVMazeEpisode {
        TVMazeEpisode(
            id: try c.int("id"),
            name: try c.string("name"),
            season: try c.optionalInt("season"),
            number: try c.optionalInt("number"),
            airdate: try c.optionalString("airdate"),
            runtime: try c.optionalInt("runtime"),
            rating: try c.optionalField("rating")?.optionalDouble("average"),
            image: try c.optionalField("image").map { (i: JSONCursor) throws(DecodeError) in try TVMazeImageLinks.decode(i) },
            summaryHTML: try c.optionalString("summary"))
    }
}

/// One answer of the show search: its score and the show.
public struct TVMazeSearchResult: Sendable, Equatable {
    public var score: Double
    public var show: TVMazeShow

    public init(score: Double, show: TVMazeShow) {
        self.score = score
        self.show = show
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> TVMazeSearchResult {
        TVMazeSearchResult(score: try c.double("score"), show: try TVMazeShow.decode(try c.field("show")))
    }
}
