import FetchlogCore

extension Source {
    /// TVmaze: the show index, shows, their images and episodes, show search.
    public static let tvmaze = Source("tvmaze")
}

extension DocumentKind {
    public static let tvmazeShowsPage = DocumentKind("tvmaze.showsPage")        // GET /shows?page=N → [show]
    public static let tvmazeShow = DocumentKind("tvmaze.show")                  // GET /shows/{id} → show
    public static let tvmazeImages = DocumentKind("tvmaze.images")              // GET /shows/{id}/images → [image]
    public static let tvmazeEpisodes = DocumentKind("tvmaze.episodes")          // GET /shows/{id}/episodes → [episode]
    public static let tvmazeSearch = DocumentKind("tvmaze.search")              // GET /search/shows?q= → [{score, show}]
}

/// A TVmaze body, decoded.
public enum TVMazeDocument: SourceDocument, Equatable {
    case tvmazeShowsPage([TVMazeShow])
    case tvmazeShow(TVMazeShow)
    case tvmazeImages([TVMazeImage])
    case tvmazeEpisodes([TVMazeEpisode])
    case tvmazeSearch([TVMazeSearchResult])
}

extension HeldDocument {
    /// The body as TVmaze's, nil for another source's.
    public var tvmaze: TVMazeDocument? { document as? TVMazeDocument }
}

/// The TVmaze plug-in (sources.md): paged show index ending in a 404, 15 minutes' time to
/// live renewed when a view opens.
public struct TVMazeSource: SourcePlugin {
    public init() {}
    public var source: Source { .tvmaze }
    public var summary: String { "TVmaze shows, images, episodes and show search" }
    public var realBase: String { "https://api.tvmaze.com" }
    public var otherBases: [String] { ["http://api.tvmaze.com"] }
    public var freshness: FreshnessRule { .timeToLive(.seconds(15 * 60), renewOnOpen: true) }

    public func documentKind(ofPath path: String) -> DocumentKind? {
        let parts = (path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path).split(separator: "/").map(String.init)
        switch parts.count {
        case 1 where parts[0] == "shows": return .tvmazeShowsPage
        case 2 where parts[0] == "shows": return .tvmazeShow
        case 3 where parts[2] == "images": return .tvmazeImages
        case 3 where parts[2] == "episodes": return .tvmazeEpisodes
        case 2 where parts[0] == "search": return .tvmazeSearch
        default: return nil
        }
    }

    public func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        try DocumentDecoder.decodeJSON(body) { (root) throws(DecodeError) -> TVMazeDocument in
            switch kind {
            case .tvmazeShowsPage: return .tvmazeShowsPage(try root.map(TVMazeShow.decode))
            case .tvmazeShow: return .tvmazeShow(try TVMazeShow.decode(root))
            case .tvmazeImages: return .tvmazeImages(try root.map(TVMazeImage.decode))
            case .tvmazeEpisodes: return .tvmazeEpisodes(try root.map(TVMazeEpisode.decode))
            case .tvmazeSearch: return .tvmazeSearch(try root.map(TVMazeSearchResult.decode))
            default: throw DecodeError(path: "$", reason: "TVmaze has no document kind '\(kind)'")
            }
        }
    }

    /// TVmaze answers 404 past the last page of the index: the end of the list.
    public func isEndOfList(status: UInt16, kind: DocumentKind) -> Bool { status == 404 && kind == .tvmazeShowsPage }
}

extension Resource {
    public static func tvmazeShowsPage(_ page: Int) -> Resource { Resource(source: .tvmaze, path: "/shows?page=\(page)", document: .tvmazeShowsPage) }
    public static func tvmazeShow(_ id: Int) -> Resource { Resource(source: .tvmaze, path: "/shows/\(id)", document: .tvmazeShow) }
    public static func tvmazeImages(_ id: Int) -> Resource { Resource(source: .tvmaze, path: "/shows/\(id)/images", document: .tvmazeImages) }
    public static func tvmazeEpisodes(_ id: Int) -> Resource { Resource(source: .tvmaze, path: "/shows/\(id)/episodes", document: .tvmazeEpisodes) }
    public static func tvmazeSearch(_ text: String) -> Resource {
        Resource(source: .tvmaze, path: "/search/shows?q=" + queryEscape(text), document: .tvmazeSearch)
    }
}
