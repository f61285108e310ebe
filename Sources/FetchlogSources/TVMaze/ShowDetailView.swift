import FetchlogCore
/// One TVmaze show: its record (from `/shows/{id}` when held, else from the list), the
/// detail image chosen over `/shows/{id}/images`, and its episodes in airing order.
public struct ShowDetailView: ExportableView, Equatable {
    public static let viewName = "show"

    public enum HeldFrom: String, Sendable { case detail, list }

    /// The detail image rule's outcome.
    public struct DetailImage: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case mainPoster = "main-poster", firstPoster = "first-poster", placeholder
        }
        public let url: String?
        public let kind: Kind
        public let imageId: Int?

        /// The first `main` poster, else the first poster, else the placeholder. The URL is
        /// `resolutions.original.url`, falling back to the medium one; the choice is made on
        /// `main`/`type` alone, so a chosen poster without resolutions keeps a null URL.
        public init(_ images: [TVMazeImage]) {
            let posters = images.filter { $0.type == "poster" }
            if let main = posters.first(where: \.main) {
                (url, kind, imageId) = (main.original?.url ?? main.medium?.url, .mainPoster, main.id)
            } else if let first = posters.first {
                (url, kind, imageId) = (first.original?.url ?? first.medium?.url, .firstPoster, first.id)
            } else {
                (url, kind, imageId) = (nil, .placeholder, nil)
            }
        }

        var json: JSONValue {
            .object([("url", .optional(url)), ("kind", .string(kind.rawValue)), ("imageId", .optional(imageId))])
        }
    }

    public struct EpisodeRow: Sendable, Equatable {
        public let id: Int
        public let season: Int?
        public let number: Int?
        public let name: String
        public let airdate: String?
        public let runtime: Int?
        public let rating: Double?
        public let summary: String?

        init(_ e: TVMazeEpisode) {
            (id, season, number, name, airdate, runtime, rating) = (e.id, e.season, e.number, e.name, e.airdate, e.runtime, e.rating)
            summary = e.summaryHTML.map(HTMLText.clean)
        }

        var json: JSONValue {
            .object([
                ("id", .number(id)), ("season", .optional(season)), ("number", .optional(number)), ("name", .string(name)),
                ("airdate", .optional(airdate)), ("runtime", .optional(runtime)), ("rating", .optional(rating)),
                ("summary", .optional(summary)),
            ])
        }

        /// (season, number) ascending; a missing season or number (specials) sorts after the
        /// numbered ones of its group; id breaks ties so the order never depends on input order.
        static func airingOrder(_ a: EpisodeRow, _ b: EpisodeRow) -> Bool {
            let ka = (a.season ?? Int.max, a.number ?? Int.max, a.id), kb = (b.season ?? Int.max, b.number ?? Int.max, b.id)
            return ka < kb
        }
    }

    /// The id asked for.
    public let id: Int
    public let show: TVMazeShow?
    public let heldFrom: HeldFrom?
    /// Whether `/shows/{id}/images` is held; without it the image is the placeholder.
    public let imagesHeld: Bool
    public let image: DetailImage
    /// nil when `/shows/{id}/episodes` is not held (unknown), `[]` when held and empty.
    public let episodes: [EpisodeRow]?

    public init(state: LogState, id: Int) {
        self.id = id
        if case .tvmazeShow(let show)? = state.document(.tvmazeShow(id))?.tvmaze, show.id == id {
            (self.show, heldFrom) = (show, .detail)
        } else if let show = ShowsView.heldShows(in: state).first(where: { $0.id == id }) {
            (self.show, heldFrom) = (show, .list)
        } else {
            (show, heldFrom) = (nil, nil)
        }
        if case .tvmazeImages(let images)? = state.document(.tvmazeImages(id))?.tvmaze {
            (imagesHeld, image) = (true, DetailImage(images))
        } else {
            (imagesHeld, image) = (false, DetailImage([]))
        }
        if case .tvmazeEpisodes(let list)? = state.document(.tvmazeEpisodes(id))?.tvmaze {
            episodes = list.map(EpisodeRow.init).sorted(by: EpisodeRow.airingOrder)
        } else {
            episodes = nil
        }
    }

    public var found: Bool { show != nil }

    /// Season numbers present among the episodes, ascending.
    public var seasons: [Int] { Array(Set((episodes ?? []).compactMap(\.season))).sorted() }

    public func episodes(season: Int) -> [EpisodeRow] { (episodes ?? []).filter { $0.season == season } }

    /// Every member is present; when the show is unknown all but `id` and `found` are null.
    public func exportMembers() -> [(String, JSONValue)] {
        guard let show else {
            return [("id", .number(id)), ("found", .bool(false)), ("heldFrom", .null), ("name", .null),
                    ("premiereYear", .null), ("genres", .null), ("status", .null), ("rating", .null),
                    ("summary", .null), ("imagesHeld", .null), ("image", .null), ("episodes", .null)]
        }
        return [
            ("id", .number(id)), ("found", .bool(true)), ("heldFrom", .optional(heldFrom?.rawValue)),
            ("name", .string(show.name)), ("premiereYear", .optional(show.premiereYear)),
            ("genres", .array(show.genres.map(JSONValue.string))), ("status", .optional(show.status)),
            ("rating", .optional(show.rating)), ("summary", .optional(show.summaryHTML.map(HTMLText.clean))),
            ("imagesHeld", .bool(imagesHeld)), ("image", image.json),
            ("episodes", episodes.map { .array($0.map(\.json)) } ?? .null),
        ]
    }
}
