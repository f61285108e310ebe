import FetchlogCore

extension Source {
    /// Viaplay: pages named by hrefs, revalidated with ETags on every open.
    public static let viaplay = Source("viaplay")
}

extension DocumentKind {
    public static let viaplayPage = DocumentKind("viaplay.page")   // GET /ios-se, section and category pages
}

/// A Viaplay body, decoded.
public enum ViaplayDocument: SourceDocument, Equatable {
    case viaplayPage(ViaplayPage)
}

extension HeldDocument {
    public var viaplay: ViaplayDocument? { document as? ViaplayDocument }
}

/// The Viaplay plug-in: every page revalidated with its validators when opened.
public struct ViaplaySource: SourcePlugin {
    public init() {}
    public var source: Source { .viaplay }
    public var summary: String { "Viaplay pages and their sections, revalidated with ETags" }
    public var realBase: String { "https://content.viaplay.com" }
    public var otherBases: [String] { ["https://content.viaplay.se", "http://content.viaplay.se", "http://content.viaplay.com"] }
    public var freshness: FreshnessRule { .alwaysRevalidate }

    public func documentKind(ofPath path: String) -> DocumentKind? { .viaplayPage }

    public func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        guard kind == .viaplayPage else { throw DecodeError(path: "$", reason: "Viaplay has no document kind '\(kind)'") }
        return try DocumentDecoder.decodeJSON(body) { (root) throws(DecodeError) in ViaplayDocument.viaplayPage(try ViaplayPage.decode(root)) }
    }
}

extension Resource {
    public static let viaplayRoot = Resource(source: .viaplay, path: "/ios-se", document: .viaplayPage)
    /// A page named by an href from a body (any viaplay host, templated or not) or a path.
    public static func viaplayPage(_ href: String, upstream: Upstream = .real) -> Resource? {
        let stripped = ViaplayHref.stripTemplate(href)
        let path = stripped.hasPrefix("/") ? stripped : upstream.relativePath(of: stripped, source: ViaplaySource())
        guard let path, !path.isEmpty else { return nil }
        return Resource(source: .viaplay, path: path, document: .viaplayPage)
    }
}
