/// What a response body is, so it can be decoded (and a decode failure named) right
/// after it arrives: one kind per endpoint shape, named by its source (`shows.page`).
/// A plug-in maps each resource path to its kind (`SourcePlugin.documentKind(ofPath:)`).
public struct DocumentKind: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(_ name: String) { rawValue = name }
    public var description: String { rawValue }

    /// An image named by a body (JPEG, PNG, GIF, WebP): the core's own kind.
    public static let asset = DocumentKind("asset")
}

/// A body that arrived but does not have the shape its endpoint promises. `path` names
/// the field (`$.items[3].age`), `reason` what was wrong with it.
public struct DecodeError: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(path): \(reason)" }
}
