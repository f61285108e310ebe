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

    package init(host: String = "127.0.0.1", port: Int = 0, token: String? = nil) {
        self.host = host
        self.port = port
        self.token = token
    }

    /// True for the addresses only this machine can reach.
    package static func isLoopback(_ host: String) -> Bool {
        let plain = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if plain == "localhost" || plain == "::1" { return true }
        let parts = plain.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// A fresh token (32 random bytes, hex), for `--generate-token`.
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
