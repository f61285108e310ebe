/// A source's name: what events carry in their `source` field, what `--upstream BASE`
/// puts after the base (`BASE/<name>/<path>`), and what a `SourcePlugin` is registered
/// under. The core knows one source by name, `assets` (images and other binary files
/// named by bodies, on their own hosts); every other source is a plug-in.
public struct Source: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name, as events and the registry carry it.
    public let rawValue: String

    /// The source named `name`.
    public init(_ name: String) { rawValue = name }
    /// The source named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The source named by a literal: `"catalog"`.
    public init(stringLiteral value: String) { rawValue = value }

    /// Images and other binary assets named by the sources' bodies (a core capability).
    public static let assets = Source("assets")

    /// Ordered by name, so listings are stable.
    public static func < (a: Source, b: Source) -> Bool { a.rawValue < b.rawValue }
    /// The name.
    public var description: String { rawValue }
}
