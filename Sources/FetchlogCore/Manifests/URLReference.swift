/// RFC 3986 URI references, as a next-page link is one: split (Appendix B), resolved
/// against the URL it came with (§5.2, as dlt's `urljoin` does), and compared by origin.
/// Written out rather than through Foundation's URL, which refuses some characters real
/// APIs put in links unescaped (`{`, `|`, a space) and whose resolution differs by platform.
package struct URLReference: Equatable {
    package var scheme: String?
    package var authority: String?
    package var path: String
    package var query: String?
    package var fragment: String?

    /// The five parts of `text` (RFC 3986 Appendix B): never fails.
    package init(_ text: String) {
        var rest = Substring(text)
        (query, fragment) = rest.cutQueryAndFragment()
        // A scheme: letters (then letters, digits, `+-.`) before the first `:`, which comes
        // before any `/`.
        if let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains("/"), let first = rest.first, first.isLetter,
           rest[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
            scheme = String(rest[..<colon])
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            authority = String(rest[..<end])
            rest = rest[end...]
        }
        path = String(rest)
    }

    private init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
        (self.scheme, self.authority, self.path, self.query, self.fragment) = (scheme, authority, path, query, fragment)
    }

    /// The reference as text (RFC 3986 §5.3).
    package var text: String {
        var out = ""
        if let scheme { out += scheme + ":" }
        if let authority { out += "//" + authority }
        out += path
        if let query { out += "?" + query }
        if let fragment { out += "#" + fragment }
        return out
    }

    /// `reference` resolved against the absolute URL `base` (RFC 3986 §5.2.2, strict):
    /// an absolute URL, `//host/…`, `/path`, `path`, `../path`, `?query` and `#fragment`.
    package static func resolve(_ reference: String, against base: String) -> String {
        let r = URLReference(reference), b = URLReference(base)
        let t: URLReference
        if r.scheme != nil {
            t = URLReference(scheme: r.scheme, authority: r.authority, path: removingDotSegments(r.path), query: r.query, fragment: r.fragment)
        } else if r.authority != nil {
            t = URLReference(scheme: b.scheme, authority: r.authority, path: removingDotSegments(r.path), query: r.query, fragment: r.fragment)
        } else if r.path.isEmpty {
            t = URLReference(scheme: b.scheme, authority: b.authority, path: b.path, query: r.query ?? b.query, fragment: r.fragment)
        } else if r.path.hasPrefix("/") {
            t = URLReference(scheme: b.scheme, authority: b.authority, path: removingDotSegments(r.path), query: r.query, fragment: r.fragment)
        } else {
            // §5.2.3: the base's path up to its last `/`, then the reference's.
            let merged = b.authority != nil && b.path.isEmpty ? "/" + r.path
                : String(b.path[..<(b.path.lastIndex(of: "/").map { b.path.index(after: $0) } ?? b.path.startIndex)]) + r.path
            t = URLReference(scheme: b.scheme, authority: b.authority, path: removingDotSegments(merged), query: r.query, fragment: r.fragment)
        }
        return t.text
    }

    /// §5.2.4: `.` and `..` segments taken out (`/a/b/../c` → `/a/c`).
    package static func removingDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") { input = input.dropFirst(3) }
            else if input.hasPrefix("./") { input = input.dropFirst(2) }
            else if input.hasPrefix("/./") { input = input.dropFirst(2) }
            else if input == "/." { input = "/" }
            else if input.hasPrefix("/../") { input = input.dropFirst(3); if !output.isEmpty { output.removeLast() } }
            else if input == "/.." { input = "/"; if !output.isEmpty { output.removeLast() } }
            else if input == "." || input == ".." { input = "" }
            else {
                // The first segment, with its leading `/`, up to the next `/`.
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }

    /// The origin of an absolute URL (RFC 6454: scheme, host, port), lowercased, the
    /// scheme's default port written out; nil for a reference without scheme and host.
    package static func origin(of url: String) -> String? {
        let parsed = URLReference(url)
        guard let scheme = parsed.scheme?.lowercased(), var host = parsed.authority?.lowercased() else { return nil }
        if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
        let hasPort = host.lastIndex(of: ":").map { !host[$0...].contains("]") } ?? false
        if !hasPort { host += scheme == "https" ? ":443" : scheme == "http" ? ":80" : "" }
        return scheme + "://" + host
    }

    /// The label of `url` relative to `base` when both have one origin but `url` is not
    /// under `base`'s path: `/` and the relative reference from `base + "/"`, climbing with
    /// `..` (`/../../repositories/7/issues?page=2` from `https://api.github.com/repos/o/r`).
    /// `Upstream.url` resolves such a label back. Nil for another origin.
    package static func labelOutside(_ url: String, base: String) -> String? {
        guard let origin = origin(of: url), origin == Self.origin(of: base) else { return nil }
        let target = URLReference(url), root = URLReference(base)
        var baseSegments = root.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if baseSegments.last == "" { baseSegments = baseSegments.dropLast() }
        let targetSegments = Array(target.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        var common = 0
        while common < baseSegments.count, common < targetSegments.count - 1,
              baseSegments[baseSegments.startIndex + common] == targetSegments[common] { common += 1 }
        let climb = Array(repeating: "..", count: baseSegments.count - common)
        let rest = targetSegments[common...].map(String.init)
        return "/" + (climb + rest).joined(separator: "/") + (target.query.map { "?" + $0 } ?? "")
    }
}
