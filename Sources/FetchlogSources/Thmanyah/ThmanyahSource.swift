import FetchlogCore

extension Source {
    /// Thmanyah: podcast home sections (paged) and podcast search (on a second host).
    public static let thmanyah = Source("thmanyah")
}

extension DocumentKind {
    public static let thmanyahHome = DocumentKind("thmanyah.home")       // GET /home_sections?page=N
    public static let thmanyahSearch = DocumentKind("thmanyah.search")   // GET /m1/735111-711675-default/search?q=
}

/// A Thmanyah body, decoded.
public enum ThmanyahDocument: SourceDocument, Equatable {
    case thmanyahHome(ThmanyahHome)
    /// The search answer's sections, decoded leniently (it has no pagination).
    case thmanyahSearch([ThmanyahSection])
}

extension HeldDocument {
    public var thmanyah: ThmanyahDocument? { document as? ThmanyahDocument }
}

/// The Thmanyah plug-in: sections change during the day, so they revalidate after ten
/// minutes; search lives on the mock host.
public struct ThmanyahSource: SourcePlugin {
    static let searchBase = "https://mock.apidog.com"

    public init() {}
    public var source: Source { .thmanyah }
    public var summary: String { "Thmanyah podcast home sections and podcast search" }
    public var realBase: String { "https://api-v2-b2sit6oh3a-uc.a.run.app" }
    public var otherBases: [String] { [Self.searchBase] }
    public var freshness: FreshnessRule { .timeToLive(.seconds(10 * 60), renewOnOpen: false) }
    public func realBase(for kind: DocumentKind) -> String { kind == .thmanyahSearch ? Self.searchBase : realBase }

    public func documentKind(ofPath path: String) -> DocumentKind? {
        let parts = (path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path).split(separator: "/")
        return parts.last == "search" ? .thmanyahSearch : .thmanyahHome
    }

    public func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        try DocumentDecoder.decodeJSON(body) { (root) throws(DecodeError) -> ThmanyahDocument in
            switch kind {
            case .thmanyahHome: return .thmanyahHome(try ThmanyahHome.decode(root))
            case .thmanyahSearch: return .thmanyahSearch(try ThmanyahSection.decodeAll(try root.field("sections"), loose: true))
            default: throw DecodeError(path: "$", reason: "Thmanyah has no document kind '\(kind)'")
            }
        }
    }
}

extension Resource {
    public static func thmanyahHome(_ page: Int) -> Resource {
        Resource(source: .thmanyah, path: "/home_sections?page=\(page)", document: .thmanyahHome)
    }
    public static func thmanyahSearch(_ text: String) -> Resource {
        Resource(source: .thmanyah, path: "/m1/735111-711675-default/search?q=" + queryEscape(text), document: .thmanyahSearch)
    }
}
