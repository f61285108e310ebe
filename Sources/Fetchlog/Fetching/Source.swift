/// The five upstream sources and where they really live.
public enum Source: String, Sendable, CaseIterable, CustomStringConvertible {
    case tvmaze, brastlewark, viaplay, thmanyah, artic
    /// Images and other binary assets named by the sources' bodies, on their own hosts.
    case assets

    /// The five data sources (every source but `assets`).
    public static let dataSources: [Source] = [.tvmaze, .brastlewark, .viaplay, .thmanyah, .artic]

    /// The base of every endpoint, as in sources.md. Paths of resources are relative to it.
    public var realBase: String {
        switch self {
        case .tvmaze: "https://api.tvmaze.com"
        case .brastlewark: "https://raw.githubusercontent.com/rrafols/mobile_test/master"
        case .viaplay: "https://content.viaplay.com"
        case .thmanyah: "https://api-v2-b2sit6oh3a-uc.a.run.app"
        case .artic: "https://api.artic.edu"
        case .assets: ""
        }
    }

    /// Other bases a body or an endpoint of this source may name. Under `--upstream` they
    /// map to the same `BASE/<source>` prefix.
    public var otherBases: [String] {
        switch self {
        case .viaplay: ["https://content.viaplay.se", "http://content.viaplay.se", "http://content.viaplay.com"]
        case .thmanyah: ["https://mock.apidog.com"]
        case .tvmaze: ["http://api.tvmaze.com"]
        default: []
        }
    }

    public var description: String { rawValue }
}

/// Where requests go: the real hosts, or one server that follows the addressing rule
/// `BASE + "/" + source + <original path and query>` (`--upstream` / `FETCHLOG_UPSTREAM`).
public struct Upstream: Sendable, Equatable {
    /// nil: the real hosts.
    public let base: String?

    public init(base: String?) {
        var trimmed = base
        while let t = trimmed, t.hasSuffix("/") { trimmed = String(t.dropLast()) }
        self.base = (trimmed?.isEmpty ?? true) ? nil : trimmed
    }

    public static let real = Upstream(base: nil)

    /// The URL to ask for `path` (path and query relative to the source's base).
    public func url(source: Source, path: String, realBase: String? = nil) -> String {
        if source == .assets { return assetURL(path) }
        if let base { return base + "/" + source.rawValue + path }
        return (realBase ?? source.realBase) + path
    }

    /// An asset's URL: `https://HOST/PATH` itself, or `BASE/assets/HOST/PATH` under an upstream.
    public func assetURL(_ real: String) -> String {
        guard let base else { return real }
        var rest = Substring(real)
        for scheme in ["https://", "http://"] where rest.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        return base + "/assets/" + rest
    }

    /// The path of a full URL relative to the source's bases (or to this upstream's
    /// `BASE/<source>`), nil when it belongs to none of them.
    public func relativePath(of url: String, source: Source) -> String? {
        var bases = [source.realBase] + source.otherBases
        if let base { bases.insert(base + "/" + source.rawValue, at: 0) }
        for candidate in bases.sorted(by: { $0.count > $1.count }) where url.hasPrefix(candidate) {
            let rest = String(url.dropFirst(candidate.count))
            if rest.isEmpty { return "/" }
            if rest.hasPrefix("/") || rest.hasPrefix("?") { return rest }
        }
        return nil
    }
}
