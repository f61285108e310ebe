import Foundation

/// An OAuth 2.0 client-credentials token request, its secrets read: the form POSTed to
/// `url` (`client_id`, `client_secret`, `grant_type` and the manifest's extra data), the
/// lifetime assumed when the answer gives none, and the key path that asked for it (for
/// messages).
package struct OAuth2TokenRequest: Sendable, Equatable {
    package var url: String
    package var form: [(String, String)]
    package var defaultExpiration: Int
    package var origin: String

    package init(url: String, form: [(String, String)], defaultExpiration: Int, origin: String) {
        self.url = url
        self.form = form
        self.defaultExpiration = defaultExpiration
        self.origin = origin
    }

    /// The form as sent (`application/x-www-form-urlencoded`, as Python's `urlencode`).
    var body: String {
        form.map { Self.formEscape($0.0) + "=" + Self.formEscape($0.1) }.joined(separator: "&")
    }

    /// What one held token is for: the endpoint and every field of the form, the secret
    /// included (the key lives in memory only, like the token).
    var key: String { url + "\n" + body }

    static func formEscape(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~ ")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(of: " ", with: "+")
    }

    package static func == (a: Self, b: Self) -> Bool {
        a.url == b.url && a.form.elementsEqual(b.form, by: ==) && a.defaultExpiration == b.defaultExpiration && a.origin == b.origin
    }
}

/// The access tokens a fetcher holds, in memory only, each until its `expires_in` passes on
/// the configuration's clock (so tests move time instead of waiting). Concurrent fetches
/// needing the same token share one request to the token endpoint.
///
/// A token is never an event: the token request carries the client secret and its answer
/// is the token, and neither belongs in a log that merges into other stores. A failure of
/// the token endpoint ends the fetch before the resource is asked, its report naming the
/// endpoint, its status and the OAuth error it gave (`invalid_client: …`) — nothing is
/// recorded, as for an `env:` variable that is not set.
actor OAuth2Tokens {
    struct Token: Sendable {
        let value: String
        let expires: Timestamp
    }

    private var held: [String: Token] = [:]
    private var asking: [String: Task<Token, any Error>] = [:]

    /// The held token for `request` while `now` is before its expiry, else a new one from `ask`.
    func token(for request: OAuth2TokenRequest, now: Timestamp, ask: @escaping @Sendable () async throws -> Token) async throws -> Token {
        let key = request.key
        if let token = held[key], now < token.expires { return token }
        if let task = asking[key] { return try await task.value }
        let task = Task { try await ask() }
        asking[key] = task
        defer { asking[key] = nil }
        let token = try await task.value
        held[key] = token
        return token
    }

    /// Drops the token (the API answered 401 with it: revoked, or expired early).
    func forget(_ request: OAuth2TokenRequest) { held[request.key] = nil }
}

/// Why no token came back: the message names the endpoint and what it said.
struct TokenFailure: Error, Sendable {
    let message: String
    var failureClass: FailureClass = .transport
}

extension Fetcher {
    /// `credentials` (its `tokenRequest` kept, for `tokenRefused`) with the bearer token its `tokenRequest` asks for added (held, or asked
    /// of the token endpoint now). Under `--upstream`, a token endpoint under the source's
    /// base is asked there as the resources are; one elsewhere is asked as written.
    func authorized(_ credentials: Credentials, plugin: (any SourcePlugin)?, source: Source) async throws(CredentialsError) -> Credentials {
        guard let request = credentials.tokenRequest else { return credentials }
        var address = request.url
        if let plugin, !plugin.realBase.isEmpty, address.hasPrefix(plugin.realBase + "/") {
            address = configuration.upstream.url(source: source, path: String(address.dropFirst(plugin.realBase.count)), realBase: plugin.realBase)
        }
        let url = address
        let shown = configuration.redaction.url(url)
        let token: OAuth2Tokens.Token
        do {
            let clock = configuration.clock
            token = try await oauth2Tokens.token(for: request, now: clock.now()) { [self] in
                try await askToken(request, url: url, shown: shown, checkAddress: plugin?.basesAreData == true && !gateway.isUpstream(url))
            }
        } catch let failure as TokenFailure {
            throw CredentialsError("\(request.origin): \(failure.message); the resource was not asked and nothing was recorded", sentNothing: false,
                                   failureClass: failure.failureClass)
        } catch {
            throw CredentialsError("\(request.origin): asking \(shown) for a token failed: \(error); the resource was not asked and nothing was recorded", sentNothing: false)
        }
        var authorized = credentials
        authorized.headers.removeAll { $0.name.lowercased() == "authorization" }
        authorized.headers.append(Header("Authorization", "Bearer " + token.value))
        authorized.secretHeaders.insert("authorization")
        return authorized
    }

    /// Forgets the token a 401 answered (the next fetch asks for a new one).
    func tokenRefused(_ credentials: Credentials) async {
        if let request = credentials.tokenRequest { await oauth2Tokens.forget(request) }
    }

    /// One POST to the token endpoint: no redirect followed, no retry (a failure is reported
    /// at once, naming the endpoint), the answer's `access_token` and `expires_in`.
    private func askToken(_ request: OAuth2TokenRequest, url: String, shown: String, checkAddress: Bool) async throws -> OAuth2Tokens.Token {
        // Through the gateway, as every request: the address policy (for an endpoint a
        // manifest names), the deadline and minimum rate, the body limit. No redirect is
        // followed: the form carries the client secret, which goes only where it was written.
        let answer = await gateway.send(HTTPGateway.Request(
            url: url, method: "POST", body: Array(request.body.utf8),
            headers: [Header("Content-Type", "application/x-www-form-urlencoded")],
            addressRule: checkAddress ? .manifestBase : nil, redirects: .none))
        let status: UInt16, body: [UInt8]
        switch answer {
        case .response(let code, _, let bytes):
            (status, body) = (code, bytes)
        case .refused(let failureClass, let message, _, _):
            throw TokenFailure(message: "the token endpoint \(shown): \(message)", failureClass: failureClass)
        case .failure(let failureClass, let message, _, _, _):
            throw TokenFailure(message: "the token endpoint \(shown) could not be asked: \(message)", failureClass: failureClass)
        }
        // Shown with -v (one line per token), never recorded: the endpoint and its status, not the form or the answer.
        configuration.logger.info("token request", metadata: ["url": "\(shown)", "status": "\(status)", "for": "\(request.origin)"])
        let json = try? JSONValue.parse(bytes: body)
        guard (200 ..< 300).contains(status) else {
            // RFC 6749's error fields say what is wrong (`invalid_client`); they hold no secret.
            let said = [json?["error"]?.stringValue, json?["error_description"]?.stringValue].compactMap { $0 }.joined(separator: ": ")
            throw TokenFailure(message: "the token endpoint \(shown) answered \(status)" + (said.isEmpty ? "" : " (\(said.prefix(200)))")
                + ", so there is no token: " + ([400, 401, 403].contains(status)
                    ? "check the client_id and client_secret (and access_token_request_data) it was given"
                    : "fetch again later (a token request is not retried)"), failureClass: .httpStatus)
        }
        guard let json, let value = json["access_token"]?.stringValue, !value.isEmpty else {
            throw TokenFailure(message: "the token endpoint \(shown) answered \(status) without an access_token in a JSON object", failureClass: .decode)
        }
        let lifetime = json["expires_in"]?.intValue ?? json["expires_in"]?.stringValue.flatMap { Int($0) } ?? request.defaultExpiration
        return OAuth2Tokens.Token(value: value, expires: Timestamp(milliseconds: configuration.clock.now().milliseconds + Int64(lifetime) * 1000))
    }
}
