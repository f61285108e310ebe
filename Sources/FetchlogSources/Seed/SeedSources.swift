import FetchlogCore
import Foundation

/// The five seed sources — TVmaze, Brastlewark, Viaplay, Thmanyah, ARTIC — and their views,
/// registered as plug-ins on the engine's public API like any other source.
public enum SeedSources {
    public static let plugins: [any SourcePlugin] = [TVMazeSource(), BrastlewarkSource(), ViaplaySource(), ThmanyahSource(), ArticSource()]

    public static let views: [ViewDefinition] = [
        ViewDefinition(ArtistsView.self, sources: ["artic"],
                       columns: ["id", "title", "birthDate", "deathDate", "description", "artworkIds"], make: ArtistsView.init),
        ViewDefinition(ArtworksView.self, sources: ["artic"],
                       columns: ["id", "title", "artistDisplay", "artistId", "artistTitle", "dateDisplay", "imageId", "imageURL", "imageKind"], make: ArtworksView.init),
        ViewDefinition(FiltersView.self, sources: ["brastlewark"], make: FiltersView.init),
        ViewDefinition(FriendsView.self, sources: ["brastlewark"],
                       columns: ["id", "friends", "listedBy", "unknownFriends"], make: FriendsView.init),
        ViewDefinition(GnomesView.self, sources: ["brastlewark"],
                       columns: ["id", "name", "thumbnail", "age", "weight", "height", "hairColor", "professions", "friends"], make: GnomesView.init)
            .copied(by: GnomesCopy.make),
        ViewDefinition(PagesView.self, sources: ["viaplay"],
                       columns: ["path", "title", "description", "pageType", "sections", "blocks", "nextHref"], make: PagesView.init),
        ViewDefinition(SearchView.self, sources: ["thmanyah", "tvmaze"],
                       columns: ["list", "query", "sections", "results"], make: SearchView.init),
        ViewDefinition(SectionsView.self, sources: ["thmanyah"],
                       columns: ["name", "type", "rawType", "contentType", "rawContentType", "order", "page", "items"], make: SectionsView.init),
        ViewDefinition(ShowsView.self, sources: ["tvmaze"],
                       columns: ["id", "name", "premiereYear", "genres", "status", "rating", "summary", "image", "itemIndex"], make: ShowsView.init)
            .segmented(by: ShowsView.segments),
    ]

    public static let parameterizedViews: [ParameterizedView] = [
        ParameterizedView(prefix: "show/", pattern: "show/ID") { state, parameter in
            guard let id = Int(parameter), id >= 0 else { return nil }
            return ShowDetailView(state: state, id: id).export(asOf: state.seq)
        },
    ]

    /// The engine with the five seed sources.
    public static let registry = SourceRegistry(plugins, views: views, parameterizedViews: parameterizedViews)

    /// Opens (creating when new) the store in `directory` with the five seed sources:
    /// `Store.open(at:sources:configuration:)` with ``registry``. The registry is named here,
    /// once, rather than defaulted inside the engine's initialisers, so a store of one's own
    /// sources never holds the seed ones by accident.
    public static func openStore(at directory: URL, configuration: Store.Configuration = Store.Configuration()) async throws -> Store {
        try await Store.open(at: directory, sources: registry, configuration: configuration)
    }

    /// Decodes a body of one of the seed kinds with its source's plug-in (the source is the
    /// kind's name up to its first dot: `tvmaze.show` is TVmaze's).
    public static func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        let source = kind == .asset ? Source.assets.rawValue : String(kind.rawValue.prefix { $0 != "." })
        guard let plugin = registry.plugin(source) else {
            throw DecodeError(path: "$", reason: "no seed source decodes '\(kind)'")
        }
        return try plugin.decode(kind, body: body)
    }
}

extension SourceRegistry {
    /// The five seed sources and their views (`SeedSources.registry`).
    public static var seed: SourceRegistry { SeedSources.registry }
}

extension DocumentKind {
    /// Every document kind of the seed sources, and the core's `asset`.
    public static let seedKinds: [DocumentKind] = [
        .tvmazeShowsPage, .tvmazeShow, .tvmazeImages, .tvmazeEpisodes, .tvmazeSearch, .brastlewarkCensus, .viaplayPage,
        .thmanyahHome, .thmanyahSearch, .articArtworks, .articArtwork, .articAgent, .asset,
    ]
}
