import Foundation

/// Where requests go: the real hosts, or one server that follows the addressing rule
/// `BASE + "/" + source + <original path and query>` (`--upstream` / `FETCHLOG_UPSTREAM`).
public struct Upstream: Sendable, Equatable {
    /// nil: the real hosts.
    public let base: String?

    /// Requests go to `base` (`http://127.0.0.1:8080` asks for `BASE/<source>/<path>`);
    /// nil: to the real hosts. A trailing `/` is ignored.
    public init(base: URL?) {
        self.init(base: base?.absoluteString)
    }

    /// The command line's form: `--upstream` and `FETCHLOG_UPSTREAM` as written.
    package init(base: String?) {
        var trimmed = base
        while let t = trimmed, t.hasSuffix("/") { trimmed = String(t.dropLast()) }
        self.base = (trimmed?.isEmpty ?? true) ? nil : trimmed
    }

    /// The real hosts (no upstream base).
    public static let real = Upstream(base: nil as String?)

    /// The URL to ask for `path` (path and query relative to the source's `realBase`).
    /// A `#fragment` is never sent (it names a manifest resource the path alone cannot: see
    /// `ManifestSource.resource(ofLabel:)`).
    package func url(source: Source, path: String, realBase: String) -> String {
        if source == .assets { return assetURL(path) }
        let path = path.firstIndex(of: "#").map { String(path[..<$0]) } ?? path
        if let base { return base + "/" + source.rawValue + path }
        // A label climbing out of the base's path (a next link to another path of the
        // base's origin, `URLReference.labelOutside`): resolved back, as RFC 3986 reads it.
        if path.hasPrefix("/../") || path == "/.." {
            return URLReference.resolve(String(path.dropFirst()), against: realBase.hasSuffix("/") ? realBase : realBase + "/")
        }
        return realBase + path
    }

    /// An asset's URL: `https://HOST/PATH` itself, or `BASE/assets/HOST/PATH` under an upstream.
    package func assetURL(_ real: String) -> String {
        guard let base else { return real }
        var rest = Substring(real)
        for scheme in ["https://", "http://"] where rest.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        return base + "/assets/" + rest
    }

    /// The path of a full URL relative to the source's bases (or to this upstream's
    /// `BASE/<source>`), nil when it belongs to none of them.
    package func relativePath(of url: String, source plugin: any SourcePlugin) -> String? {
        var bases = [plugin.realBase] + plugin.otherBases
        if let base { bases.insert(base + "/" + plugin.source.rawValue, at: 0) }
        for candidate in bases.sorted(by: { $0.count > $1.count }) where url.hasPrefix(candidate) {
            let rest = String(url.dropFirst(candidate.count))
            if rest.isEmpty { return "/" }
            if rest.hasPrefix("/") || rest.hasPrefix("?") { return rest }
        }
        return nil
    }
}
