import Foundation

/// One thing that can be fetched: a source, its path (relative to the source's base,
/// used as the event label and the key validators are kept under) and what its body is.
public struct Resource: Sendable, Hashable, CustomStringConvertible {
    /// The source whose plug-in fetches and decodes it.
    public let source: Source
    /// Path and query relative to the source's base: the label of the resource's events.
    public let path: String
    /// What its body is, so the plug-in can decode it.
    public let document: DocumentKind

    /// The resource at `path` of `source`, whose body is a `document`.
    public init(source: Source, path: String, document: DocumentKind) {
        self.source = source
        self.path = path
        self.document = document
    }

    /// `source` followed by `path`, as the log names the resource.
    public var description: String { "\(source)\(path)" }

    /// An image or other asset by its real URL (`https://host/…`); its key is the URL.
    public static func asset(_ url: String) -> Resource { Resource(source: .assets, path: url, document: .asset) }

    /// `text` as a query value: everything but unreserved characters percent-encoded.
    package static func queryEscape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? text
    }

    /// Built once: building it took most of the time of reading which resource a page
    /// belongs to, which every optimistic view does for each page held (issue 26's bench).
    private static let queryAllowed: CharacterSet = {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()
}
