import Foundation

/// One thing that can be fetched: a source, its path (relative to the source's base,
/// used as the event label and the key validators are kept under) and what its body is.
public struct Resource: Sendable, Hashable, CustomStringConvertible {
    public let source: Source
    public let path: String
    public let document: DocumentKind

    public init(source: Source, path: String, document: DocumentKind) {
        self.source = source
        self.path = path
        self.document = document
    }

    public var description: String { "\(source)\(path)" }

    /// The real host of this resource: Thmanyah's search lives on a second host.
    public var realBase: String {
        document == .thmanyahSearch ? "https://mock.apidog.com" : source.realBase
    }

    // MARK: tvmaze
    public static func tvmazeShowsPage(_ page: Int) -> Resource { Resource(source: .tvmaze, path: "/shows?page=\(page)", document: .tvmazeShowsPage) }
    public static func tvmazeShow(_ id: Int) -> Resource { Resource(source: .tvmaze, path: "/shows/\(id)", document: .tvmazeShow) }
    public static func tvmazeImages(_ id: Int) -> Resource { Resource(source: .tvmaze, path: "/shows/\(id)/images", document: .tvmazeImages) }
    public static func tvmazeEpisodes(_ id: Int) -> Resource { Resource(source: .tvmaze, path: "/shows/\(id)/episodes", document: .tvmazeEpisodes) }
    public static func tvmazeSearch(_ text: String) -> Resource {
        Resource(source: .tvmaze, path: "/search/shows?q=" + queryEscape(text), document: .tvmazeSearch)
    }

    // MARK: brastlewark
    public static let brastlewarkCensus = Resource(source: .brastlewark, path: "/data.json", document: .brastlewarkCensus)

    // MARK: viaplay
    public static let viaplayRoot = Resource(source: .viaplay, path: "/ios-se", document: .viaplayPage)
    /// A page named by an href from a body (any viaplay host, templated or not) or a path.
    public static func viaplayPage(_ href: String, upstream: Upstream = .real) -> Resource? {
        let stripped = ViaplayHref.stripTemplate(href)
        let path = stripped.hasPrefix("/") ? stripped : upstream.relativePath(of: stripped, source: .viaplay)
        guard let path, !path.isEmpty else { return nil }
        return Resource(source: .viaplay, path: path, document: .viaplayPage)
    }

    // MARK: thmanyah
    public static func thmanyahHome(_ page: Int) -> Resource {
        Resource(source: .thmanyah, path: "/home_sections?page=\(page)", document: .thmanyahHome)
    }
    public static func thmanyahSearch(_ text: String) -> Resource {
        Resource(source: .thmanyah, path: "/m1/735111-711675-default/search?q=" + queryEscape(text), document: .thmanyahSearch)
    }

    // MARK: artic
    public static func articArtworks(page: Int, limit: Int) -> Resource {
        Resource(source: .artic, path: "/api/v1/artworks?page=\(page)&limit=\(limit)", document: .articArtworks)
    }
    public static func articArtwork(_ id: Int) -> Resource { Resource(source: .artic, path: "/api/v1/artworks/\(id)", document: .articArtwork) }
    public static func articAgent(_ id: Int) -> Resource { Resource(source: .artic, path: "/api/v1/agents/\(id)", document: .articAgent) }

    // MARK: assets

    /// An image or other asset by its real URL (`https://static.tvmaze.com/…`); its key is the URL.
    public static func asset(_ url: String) -> Resource { Resource(source: .assets, path: url, document: .asset) }

    static func queryEscape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Rebuilds a resource from a logged event's source and label.
    public static func from(source: String, label: String) -> Resource? {
        guard let source = Source(rawValue: source) else { return nil }
        let path = label
        let pathOnly = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        let parts = pathOnly.split(separator: "/").map(String.init)
        let document: DocumentKind
        switch source {
        case .tvmaze:
            switch parts.count {
            case 1 where parts[0] == "shows": document = .tvmazeShowsPage
            case 2 where parts[0] == "shows": document = .tvmazeShow
            case 3 where parts[2] == "images": document = .tvmazeImages
            case 3 where parts[2] == "episodes": document = .tvmazeEpisodes
            case 2 where parts[0] == "search": document = .tvmazeSearch
            default: return nil
            }
        case .brastlewark: document = .brastlewarkCensus
        case .viaplay: document = .viaplayPage
        case .thmanyah: document = parts.last == "search" ? .thmanyahSearch : .thmanyahHome
        case .artic:
            if parts.count >= 3, parts[2] == "agents" { document = .articAgent }
            else if parts.count == 4 { document = .articArtwork }
            else { document = .articArtworks }
        case .assets: document = .asset
        }
        return Resource(source: source, path: path, document: document)
    }
}
