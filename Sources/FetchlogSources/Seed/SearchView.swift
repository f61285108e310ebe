import FetchlogCore
import Foundation

/// Held search answers: Thmanyah podcast search and TVmaze show search, keyed by the query
/// text decoded from the path.
///
/// Export: `{"view":"search","asOf":N,"thmanyah":[{query, sections:[{name,type,rawType,
/// contentType,rawContentType,order,items:[…as in sections…]}]}], "tvmaze":[{query,
/// results:[{score,id,name,premiereYear,rating,image,summary}]}]}`, each list sorted by query.
public struct SearchView: ExportableView, Equatable {
    public static let viewName = "search"
    static let thmanyahPrefix = "/m1/735111-711675-default/search?q="
    static let tvmazePrefix = "/search/shows?q="

    public struct PodcastSearchRow: Sendable, Equatable {
        public var query: String
        /// The resource path it was fetched under (not exported).
        public var path: String
        /// In document order: the search mock's `order` is mostly lorem text, so it is no ranking.
        public var sections: [SectionsView.SectionRow]
    }

    public struct ShowResultRow: Sendable, Equatable {
        public var score: Double
        public var id: Int
        public var name: String
        public var premiereYear: Int?
        public var rating: Double?
        /// Medium image, else original, else nil.
        public var image: String?
        /// `HTMLText.clean` of the summary; nil when TVmaze sent none.
        public var summary: String?

        init(_ result: TVMazeSearchResult) {
            score = result.score
            id = result.show.id
            name = result.show.name
            premiereYear = result.show.premiereYear
            rating = result.show.rating
            image = result.show.image?.medium ?? result.show.image?.original
            summary = result.show.summaryHTML.map(HTMLText.clean)
        }
    }

    public struct ShowSearchRow: Sendable, Equatable {
        public var query: String
        public var path: String
        /// In document order (TVmaze's ranking).
        public var results: [ShowResultRow]
    }

    public let podcastSearches: [PodcastSearchRow]
    public let showSearches: [ShowSearchRow]

    public init(state: LogState) {
        var podcasts: [PodcastSearchRow] = []
        var shows: [ShowSearchRow] = []
        for (key, held) in state.documents {
            switch (held.thmanyah, held.tvmaze) {
            case (.thmanyahSearch(let sections)?, _) where key.source == Source.thmanyah.rawValue:
                guard let query = Self.query(key.path, prefix: Self.thmanyahPrefix) else { continue }
                podcasts.append(PodcastSearchRow(query: query, path: key.path, sections: sections.map { SectionsView.SectionRow($0, page: nil) }))
            case (_, .tvmazeSearch(let results)?) where key.source == Source.tvmaze.rawValue:
                guard let query = Self.query(key.path, prefix: Self.tvmazePrefix) else { continue }
                shows.append(ShowSearchRow(query: query, path: key.path, results: results.map(ShowResultRow.init)))
            default:
                continue
            }
        }
        // Two paths can decode to one query (`%20` vs `+`): the path breaks the tie, so the
        // order never depends on dictionary iteration.
        podcastSearches = podcasts.sorted { ($0.query, $0.path) < ($1.query, $1.path) }
        showSearches = shows.sorted { ($0.query, $0.path) < ($1.query, $1.path) }
    }

    /// The podcast search for `query` (trimmed, compared case-insensitively); an exact-case
    /// match wins over other spellings.
    public func podcasts(_ query: String) -> PodcastSearchRow? { Self.match(query, in: podcastSearches, \.query) }

    public func shows(_ query: String) -> ShowSearchRow? { Self.match(query, in: showSearches, \.query) }

    static func match<Row>(_ query: String, in rows: [Row], _ key: (Row) -> String) -> Row? {
        let wanted = query.trimmingCharacters(in: .whitespacesAndNewlines)
        return rows.first { key($0) == wanted }
            ?? rows.first { key($0).trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == wanted.lowercased() }
    }

    /// The `q` value of a path that starts with `prefix`, up to the next `&`, `+` read as a
    /// space (form encoding; `Resource.queryEscape` never writes a bare `+`), then
    /// percent-decoded (left as written when the escapes are malformed).
    static func query(_ path: String, prefix: String) -> String? {
        guard path.hasPrefix(prefix) else { return nil }
        let raw = path.dropFirst(prefix.count).prefix { $0 != "&" }.replacingOccurrences(of: "+", with: " ")
        return raw.removingPercentEncoding ?? raw
    }

    public func exportMembers() -> [(String, JSONValue)] {
        [
            ("thmanyah", .array(podcastSearches.map { row in
                .object([("query", .string(row.query)),
                         ("sections", .array(row.sections.map { .object(SectionsView.sectionMembers($0)) }))])
            })),
            ("tvmaze", .array(showSearches.map { row in
                .object([("query", .string(row.query)), ("results", .array(row.results.map(Self.json)))])
            })),
        ]
    }

    static func json(_ r: ShowResultRow) -> JSONValue {
        .object([
            ("score", .number(r.score)),
            ("id", .number(r.id)),
            ("name", .string(r.name)),
            ("premiereYear", .optional(r.premiereYear)),
            ("rating", .optional(r.rating)),
            ("image", .optional(r.image)),
            ("summary", .optional(r.summary)),
        ])
    }
}
