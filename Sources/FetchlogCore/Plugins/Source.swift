/// A source's name: what events carry in their `source` field, what `--upstream BASE`
/// puts after the base (`BASE/<name>/<path>`), and what a `SourcePlugin` is registered
/// under. The core knows one source by name, `assets` (images and other binary files
/// named by bodies, on their own hosts); every other source is a plug-in.
public struct Source: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ name: String) { rawValue = name }
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    /// Images and other binary assets named by the sources' bodies (a core capability).
    public static let assets = Source("assets")

    public static func < (a: Source, b: Source) -> Bool { a.rawValue < b.rawValue }
    public var description: String { rawValue }
}
