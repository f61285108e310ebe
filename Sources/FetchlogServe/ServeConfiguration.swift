import FetchlogCore
import Foundation

/// Where `fetchlog serve` listens and whom it answers. Loopback answers anyone on this
/// machine; any other address exposes the store's every body, so it needs a token.
package struct ServeConfiguration: Sendable {
    package var host: String
    package var port: Int
    /// Every request must carry it (`Authorization: Bearer T`, or `?token=T` where a
    /// browser cannot set a header: the page and its event stream). Nil: no check.
    package var token: String?
    /// The most bytes one answer of `GET /api/sql` or `GET /api/views/NAME` may hold (its
    /// rows as JSON); a larger one is refused with 413 saying how to page (`serve --max-answer`).
    package var maxAnswerBytes: Int = ServeConfiguration.defaultMaxAnswerBytes
    /// 64 MiB: an answer larger than this is paged, not sent whole.
    package static let defaultMaxAnswerBytes = 64 << 20
    /// Made at start: what actions (`POST /api/fetch`) need when no `token` was given.
    /// Reads on loopback need nothing, but a write must not be one click of any page the
    /// user visits: only the page at `/` gets it (embedded), and no other origin can read
    /// that page (no CORS headers are ever sent).
    private let generatedActionToken: String

    package init(host: String = "127.0.0.1", port: Int = 0, token: String? = nil) {
        self.host = host
        self.port = port
        self.token = token
        generatedActionToken = Self.generateToken()
    }

    /// What every action must carry: the server's token, or the one made at start.
    package var actionToken: String { token ?? generatedActionToken }

    /// The placeholder the page writes where it wants the action token (`Page.html`).
    package static let actionTokenPlaceholder = "{{ACTION_TOKEN}}"

    /// The page at `/` with the action token in place of its placeholder.
    package func page(_ html: String) -> String {
        html.replacingOccurrences(of: Self.actionTokenPlaceholder, with: actionToken)
    }

    /// The names `acceptsHost` answers, for its refusal: "127.0.0.1, localhost and [::1]".
    var hostNames: String {
        var names: [String] = []
        for name in [host, "localhost", "127.0.0.1", "[::1]"] {
            let shown = name.contains(":") && !name.hasPrefix("[") ? "[\(name)]" : name
            if !names.contains(shown) { names.append(shown) }
        }
        return names.dropLast().joined(separator: ", ") + " and " + names.last!
    }

    /// True when a request's `Host` (parsed: `HostHeader`) names this server: with a
    /// loopback bind, only the bound address or a loopback name (localhost, 127.0.0.1, ::1),
    /// any port. A page on another site whose name was made to resolve to 127.0.0.1 (DNS
    /// rebinding) sends its own name, and is refused. Any other bind is guarded by its token
    /// instead (its names are not known).
    package func acceptsHost(_ host: HostHeader?) -> Bool {
        guard Self.isLoopback(self.host) else { return true }
        guard let host else { return false }
        let bound = self.host.hasPrefix("[") && self.host.hasSuffix("]") ? String(self.host.dropFirst().dropLast()) : self.host
        return host.name == bound.lowercased() || ["localhost", "127.0.0.1", "::1"].contains(host.name)
    }

    /// True for the addresses only this machine can reach.
    package static func isLoopback(_ host: String) -> Bool {
        let plain = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if plain == "localhost" || plain == "::1" { return true }
        let parts = plain.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// A fresh token (32 random bytes, hex), for `--generate-token` and the action token.
    package static func generateToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The refusal of an exposed bind without a token, or nil when the pair is allowed.
    package static func refusal(host: String, token: String?) -> String? {
        guard !isLoopback(host), token == nil else { return nil }
        return "binding \(host) lets other machines read the whole store: give --token T (or --generate-token, which prints one) so every request must carry it, or bind 127.0.0.1"
    }
}
