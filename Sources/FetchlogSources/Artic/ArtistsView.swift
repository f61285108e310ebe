import FetchlogCore
/// ARTIC artists: every held `/api/v1/agents/{id}` record by id, each with the held
/// artworks (those of `ArtworksView`) attributed to it.
public struct ArtistsView: ExportableView, Equatable {
    public static let viewName = "artists"

    public struct ArtistRow: Sendable, Equatable {
        public let id: Int
        public let title: String
        public let birthDate: Int?
        public let deathDate: Int?
        /// `HTMLText.clean` of the description; nil when the API sent none.
        public let description: String?
        /// Ids of held artworks whose `artist_id` is this artist, ascending.
        public let artworkIds: [Int]

        var json: JSONValue {
            .object([
                ("id", .number(id)), ("title", .string(title)), ("birthDate", .optional(birthDate)),
                ("deathDate", .optional(deathDate)), ("description", .optional(description)),
                ("artworkIds", .array(artworkIds.map { .number($0) })),
            ])
        }
    }

    public let artists: [ArtistRow]

    public init(state: LogState) {
        var worksByArtist: [Int: [Int]] = [:]
        for artwork in ArtworksView(state: state).artworks {
            if let artist = artwork.artistId { worksByArtist[artist, default: []].append(artwork.id) }
        }
        // By id; should two keys hold the same agent, the later fetch (larger seq) wins.
        var seen = Set<Int>()
        artists = state.documents.compactMap { key, held -> (seq: UInt64, agent: ArticAgent)? in
            guard key.source == "artic", case .articAgent(let agent)? = held.artic else { return nil }
            return (held.seq, agent)
        }
        .sorted { ($0.agent.id, $1.seq) < ($1.agent.id, $0.seq) }
        .filter { seen.insert($0.agent.id).inserted }
        .map { _, agent in
            ArtistRow(id: agent.id, title: agent.title, birthDate: agent.birthDate, deathDate: agent.deathDate,
                      description: agent.descriptionHTML.map(HTMLText.clean),
                      artworkIds: (worksByArtist[agent.id] ?? []).sorted())
        }
    }

    public var count: Int { artists.count }

    public func artist(id: Int) -> ArtistRow? { artists.first { $0.id == id } }

    public func exportMembers() -> [(String, JSONValue)] {
        [("artists", .array(artists.map(\.json))), ("count", .number(count))]
    }
}
