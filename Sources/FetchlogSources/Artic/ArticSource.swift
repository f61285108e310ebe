import FetchlogCore

extension Source {
    /// The Art Institute of Chicago: artworks (paged), one artwork, one agent.
    public static let artic = Source("artic")
}

extension DocumentKind {
    public static let articArtworks = DocumentKind("artic.artworks")   // GET /api/v1/artworks?page=&limit=
    public static let articArtwork = DocumentKind("artic.artwork")     // GET /api/v1/artworks/{id} → {"data": artwork, …}
    public static let articAgent = DocumentKind("artic.agent")         // GET /api/v1/agents/{id} → {"data": agent, …}
}

/// An ARTIC body, decoded.
public enum ArticDocument: SourceDocument, Equatable {
    case articArtworks(ArticArtworksPage)
    /// The `data` record and the answer's `config.iiif_url`.
    case articArtwork(ArticArtwork, iiifURL: String?)
    case articAgent(ArticAgent)
}

extension HeldDocument {
    public var artic: ArticDocument? { document as? ArticDocument }
}

/// The ARTIC plug-in: artworks change rarely, so an hour's time to live.
public struct ArticSource: SourcePlugin {
    public init() {}
    public var source: Source { .artic }
    public var summary: String { "Art Institute of Chicago artworks, artists and IIIF images" }
    public var realBase: String { "https://api.artic.edu" }
    public var freshness: FreshnessRule { .timeToLive(.seconds(60 * 60), renewOnOpen: false) }

    public func documentKind(ofPath path: String) -> DocumentKind? {
        let parts = (path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path).split(separator: "/")
        if parts.count >= 3, parts[2] == "agents" { return .articAgent }
        if parts.count == 4 { return .articArtwork }
        return .articArtworks
    }

    public func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        try DocumentDecoder.decodeJSON(body) { (root) throws(DecodeError) -> ArticDocument in
            switch kind {
            case .articArtworks: return .articArtworks(try ArticArtworksPage.decode(root))
            case .articArtwork:
                return .articArtwork(try ArticArtwork.decode(try root.field("data")), iiifURL: try ArticArtwork.iiifURL(in: root))
            case .articAgent: return .articAgent(try ArticAgent.decode(try root.field("data")))
            default: throw DecodeError(path: "$", reason: "ARTIC has no document kind '\(kind)'")
            }
        }
    }
}

extension Resource {
    public static func articArtworks(page: Int, limit: Int) -> Resource {
        Resource(source: .artic, path: "/api/v1/artworks?page=\(page)&limit=\(limit)", document: .articArtworks)
    }
    public static func articArtwork(_ id: Int) -> Resource { Resource(source: .artic, path: "/api/v1/artworks/\(id)", document: .articArtwork) }
    public static func articAgent(_ id: Int) -> Resource { Resource(source: .artic, path: "/api/v1/agents/\(id)", document: .articAgent) }
}
