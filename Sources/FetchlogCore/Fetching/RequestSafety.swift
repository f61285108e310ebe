import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What may be written to the log about a request: URLs and headers with their secrets
/// replaced by `***`. The request itself still carries them; only what is recorded (events,
/// reports, log lines) goes through here.
public struct Redaction: Sendable, Equatable {
    /// Query parameter names whose values are secrets, compared case-insensitively.
    public var queryParameters: Set<String>

    /// What every recorded secret becomes.
    package static let mask = "***"
    /// Request headers whose values are credentials.
    package static let secretHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]
    /// Parts of a header name that say its value is a credential (`X-Api-Key`,
    /// `X-Auth-Token`, `Client-Secret`).
    package static let secretHeaderParts = ["token", "secret", "key", "auth", "password", "signature", "credential"]
    /// Query parameters masked unless told otherwise: the names APIs give keys and tokens.
    public static let defaultQueryParameters: Set<String> = [
        "api_key", "apikey", "token", "access_token", "key", "password", "secret", "signature",
    ]

    /// True when a request header's name says its value is a secret: one rule for what is
    /// masked when recorded and what a manifest may not hold as a literal (`client.headers`).
    package static func isSecretHeader(_ name: String) -> Bool {
        let lower = name.lowercased()
        return secretHeaders.contains(lower) || secretHeaderParts.contains { lower.contains($0) }
    }

    /// True when a query parameter's name says its value is a secret (the default masked
    /// names): what a manifest's `endpoint.params` may not hold as a literal.
    package static func isSecretParameter(_ name: String) -> Bool {
        defaultQueryParameters.contains(name.lowercased())
    }

    /// Masks `queryParameters` (any case) in recorded URLs, and every credential header.
    public init(queryParameters: Set<String> = Redaction.defaultQueryParameters) {
        self.queryParameters = Set(queryParameters.map { $0.lowercased() })
    }

    /// `url` with its userinfo (user and password both: a user name alone is often a token)
    /// replaced by `***` and the values of secret query parameters by `***`. Everything else
    /// stays byte for byte as sent, so a recorded URL still reads like the request.
    package func url(_ url: String) -> String {
        var parts = URLParts(url)
        if parts.userinfo != nil { parts.userinfo = Self.mask }
        if let query = parts.query {
            parts.query = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
                let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                let decoded = (name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name).lowercased()
                return queryParameters.contains(decoded) ? name + "=" + Self.mask : String(pair)
            }.joined(separator: "&")
        }
        return parts.string
    }

    /// Headers as recorded: credentials' values replaced by `***` (the name stays, so the log
    /// still shows that credentials were sent).
    package func headers(_ headers: [Header]) -> [Header] {
        headers.map { Self.isSecretHeader($0.name) ? Header($0.name, Self.mask) : $0 }
    }
}

/// A URL split at its delimiters by hand rather than through URLComponents, which would
/// re-encode parts: what is sent and what is recorded must differ only where redacted.
extension Substring {
    /// Cuts `#fragment`, then `?query`, off the end of a URL or a reference (RFC 3986
    /// Appendix B): what stays is the rest before them. One split for `URLParts` and
    /// `URLReference`.
    mutating func cutQueryAndFragment() -> (query: String?, fragment: String?) {
        var fragment: String?, query: String?
        if let hash = firstIndex(of: "#") {
            fragment = String(self[index(after: hash)...])
            self = self[..<hash]
        }
        if let mark = firstIndex(of: "?") {
            query = String(self[index(after: mark)...])
            self = self[..<mark]
        }
        return (query, fragment)
    }
}

struct URLParts {
    var scheme: String?
    var userinfo: String?
    /// Host and port as written (`127.0.0.1:8080`, `[::1]:80`).
    var hostPort: String
    var path: String
    var query: String?
    var fragment: String?

    init(_ url: String) {
        var rest = Substring(url)
        if let range = rest.range(of: "://") {
            scheme = String(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        if scheme != nil, let at = authority.lastIndex(of: "@") {
            userinfo = String(authority[..<at])
            authority = authority[authority.index(after: at)...]
        }
        hostPort = String(authority)
        (query, fragment) = rest.cutQueryAndFragment()
        path = String(rest)
    }

    var string: String {
        var out = scheme.map { $0 + "://" } ?? ""
        if let userinfo { out += userinfo + "@" }
        out += hostPort + path
        if let query { out += "?" + query }
        if let fragment { out += "#" + fragment }
        return out
    }

    /// The host without brackets or port, lowercased.
    var host: String {
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            return String(hostPort[hostPort.index(after: hostPort.startIndex) ..< close]).lowercased()
        }
        return String(hostPort.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").lowercased()
    }

    /// The port written, else the scheme's default.
    var port: Int? {
        let afterHost: Substring
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            afterHost = hostPort[hostPort.index(after: close)...]
        } else if let colon = hostPort.firstIndex(of: ":") {
            afterHost = hostPort[colon...]
        } else {
            afterHost = ""
        }
        if afterHost.hasPrefix(":"), let port = Int(afterHost.dropFirst()) { return port }
        switch scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    /// Scheme, host and port: redirects within one origin keep validators and credentials.
    var origin: String { "\(scheme?.lowercased() ?? "")://\(host):\(port.map(String.init) ?? "")" }

    /// The URL to send (no userinfo) and the Basic credentials the userinfo stood for.
    /// HTTP clients differ on userinfo (AsyncHTTPClient ignores it); sending it as a header
    /// is what a browser or curl does, and lets a redirect to another origin drop it.
    func splitCredentials() -> (url: String, authorization: String?) {
        guard let userinfo else { return (string, nil) }
        var bare = self
        bare.userinfo = nil
        let pair = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map {
            String($0).removingPercentEncoding ?? String($0)
        }
        let credentials = pair[0] + ":" + (pair.count > 1 ? pair[1] : "")
        return (bare.string, "Basic " + Data(credentials.utf8).base64EncodedString())
    }
}

/// What named a URL whose address is checked, for the refusal to say which rule applied.
enum AddressRule: Sendable, Equatable {
    /// A body named it (an image).
    case asset
    /// A manifest's `base_url`: the manifest is in the log, and may have merged in from
    /// another store's.
    case manifestBase
    /// A `Location` off the upstream.
    case redirect

    var urls: String {
        switch self {
        case .asset: "asset URLs (which bodies name)"
        case .manifestBase: "manifests' base URLs (data: a manifest may come from another store's log)"
        case .redirect: "redirects off the upstream"
        }
    }

    var remedy: String {
        switch self {
        case .asset, .redirect: "serve such files through \(FrontEndTerm.upstream)"
        case .manifestBase: "fetch through \(FrontEndTerm.upstream)"
        }
    }
}

/// Which addresses a URL taken from a body may reach (issue 13, item 4).
enum AddressCheck {
    /// Schemes Fetchlog requests. AsyncHTTPClient also speaks `http+unix`, `https+unix` and
    /// `unix` (a local socket), which a body must never reach.
    static let schemes: Set<String> = ["http", "https"]

    /// Why an address is not a public one, or nil when it is.
    static func privateKind(of address: [UInt8]) -> String? {
        if address.count == 4 { return privateKind(v4: address) }
        guard address.count == 16 else { return "not an IP address" }
        if address.allSatisfy({ $0 == 0 }) { return "the unspecified address" }
        if address[0 ..< 15].allSatisfy({ $0 == 0 }) && address[15] == 1 { return "a loopback address" }
        // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d)
        // addresses reach the IPv4 address inside them.
        if address[0 ..< 10].allSatisfy({ $0 == 0 }) && ((address[10] == 0xFF && address[11] == 0xFF) || (address[10] == 0 && address[11] == 0)) {
            return privateKind(v4: Array(address[12 ..< 16]))
        }
        if address[0 ..< 12] == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return privateKind(v4: Array(address[12 ..< 16])) }
        if address[0] == 0xFE && address[1] & 0xC0 == 0x80 { return "a link-local address" }
        if address[0] == 0xFE && address[1] & 0xC0 == 0xC0 { return "a site-local (private) address" }
        if address[0] & 0xFE == 0xFC { return "a unique-local (private) address" }
        if address[0] == 0xFF { return "a multicast address" }
        return nil
    }

    private static func privateKind(v4 a: [UInt8]) -> String? {
        switch (a[0], a[1]) {
        case (0, _): return "the unspecified address"
        case (127, _): return "a loopback address"
        case (10, _), (172, 16 ... 31), (192, 168): return "a private address"
        case (100, 64 ... 127): return "a shared (carrier-grade NAT) address"
        case (169, 254): return "a link-local address"
        case (224 ... 239, _): return "a multicast address"
        case (240 ... 255, _): return "a reserved or broadcast address"
        default: return nil
        }
    }

    /// The addresses `host` resolves to (an IP literal resolves to itself, in any of the
    /// forms inet_aton accepts: `127.1` and `2130706433` are 127.0.0.1). Runs off the
    /// cooperative pool: getaddrinfo blocks.
    static func resolve(_ host: String) async -> Result<[(text: String, bytes: [UInt8])], ResolveError> {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var hints = addrinfo()
                hints.ai_family = AF_UNSPEC
                #if canImport(Glibc)
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                #else
                hints.ai_socktype = SOCK_STREAM
                #endif
                var list: UnsafeMutablePointer<addrinfo>?
                let status = getaddrinfo(host, nil, &hints, &list)
                guard status == 0 else {
                    continuation.resume(returning: .failure(ResolveError(host: host, reason: String(cString: gai_strerror(status)))))
                    return
                }
                defer { freeaddrinfo(list) }
                var found: [(String, [UInt8])] = []
                var node = list
                while let entry = node?.pointee {
                    node = entry.ai_next
                    guard let address = entry.ai_addr else { continue }
                    var bytes: [UInt8]
                    switch Int32(address.pointee.sa_family) {
                    case AF_INET:
                        bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                            withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                        }
                    case AF_INET6:
                        bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                            withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                        }
                    default: continue
                    }
                    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                    bytes.withUnsafeBytes { raw in
                        _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, raw.baseAddress, &text, socklen_t(text.count))
                    }
                    found.append((String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), bytes))
                }
                continuation.resume(returning: .success(found))
            }
        }
    }

    struct ResolveError: Error {
        let host: String
        let reason: String
    }
}
