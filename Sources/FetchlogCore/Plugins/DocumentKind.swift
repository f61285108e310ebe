/// What a response body is, so it can be decoded (and a decode failure named) right
/// after it arrives: one kind per endpoint shape, named by its source (`shows.page`).
/// A plug-in maps each resource path to its kind (`SourcePlugin.documentKind(ofPath:)`).
public struct DocumentKind: Hashable, Sendable, CustomStringConvertible {
    /// The kind's name, as its source chose it (`shows.page`).
    public let rawValue: String
    /// The kind named `name`.
    public init(_ name: String) { rawValue = name }
    /// The kind's name.
    public var description: String { rawValue }

    /// An image named by a body (JPEG, PNG, GIF, WebP): the core's own kind.
    public static let asset = DocumentKind("asset")
}

/// A body that arrived but does not have the shape its endpoint promises. `path` names
/// the field (`$.items[3].age`), `reason` what was wrong with it.
public struct DecodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Where in the body the problem is (`$.items[3].age`).
    public let path: String
    /// What was wrong with the value there.
    public let reason: String
    /// A decode failure at `path`, because of `reason`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    /// The path and the reason, as a user reads them.
    public var description: String { "\(path): \(reason)" }
}
