import Foundation

/// `client.auth` or an endpoint's `auth`, as dlt spells it: an object with a `type`
/// (`bearer` when absent, as dlt allows), or a shorthand naming the type alone
/// (`"auth": "bearer"`). Every field but `type`, `name`, `location` and
/// `default_token_expiration` may be `env:NAME`, read at fetch time; every secret must be (a
/// literal one would be stored in the log with the manifest) — a `username` or an
/// `access_token_url` may be written in clear. What a shorthand or an object leaves out is read at fetch
/// time from dlt's own environment variables for the source's credentials
/// (`SOURCES__REST_API__<SOURCE>__CREDENTIALS__TOKEN`, then without the source, then
/// `SOURCES__CREDENTIALS__…`, then `CREDENTIALS__…`).
package enum RestAuth: Sendable, Equatable {
    case bearer(token: SecretValue)
    case apiKey(name: String, key: SecretValue, location: APIKeyLocation)
    case httpBasic(username: SecretValue, password: SecretValue)
    case oauth2ClientCredentials(OAuth2ClientCredentials)

    /// Where `api_key` puts its key (dlt's `param` is `query`).
    package enum APIKeyLocation: String, Sendable, Equatable {
        case header, query, cookie
    }

    package static let types = ["bearer", "api_key", "http_basic", "oauth2_client_credentials"]

    /// `source`: the manifest's name, for dlt's variable names.
    init(_ reader: ManifestReader, source: String) throws(ManifestError) {
        var reader = reader
        if case .string(let type) = reader.json {
            guard Self.types.contains(type) else {
                throw ManifestError(path: reader.path, message: "\"\(type)\" is not one of \(Self.types.joined(separator: ", "))")
            }
            reader = try ManifestReader(.object([("type", .string(type))]), path: reader.path)
        }
        guard case .object = reader.json else {
            throw ManifestError(path: reader.path, message: "expected an object ({\"type\": \"bearer\", \"token\": \"env:NAME\"}) or one of \(Self.types.joined(separator: ", "))")
        }
        // dlt reads an auth object without a type as bearer.
        let type = try reader.optionalString("type") ?? "bearer"
        let section = source.uppercased().replacingOccurrences(of: "-", with: "_")
        /// A field that may hold a secret, read as every such field is (`SecretValue.read`:
        /// `env:NAME`, or a literal where `clear` allows one); left out, dlt's variables for it.
        func field(_ key: String, clear: SecretValue.Clear) throws(ManifestError) -> SecretValue {
            guard let text = try reader.optionalString(key) else { return Self.dltVariables(key, section: section) }
            return try SecretValue.read(text, at: reader.path + "." + key, clear: clear)
        }
        switch type {
        case "bearer":
            try reader.allow(["type", "token"])
            self = .bearer(token: try field("token", clear: .refused))
        case "api_key":
            try reader.allow(["type", "name", "api_key", "location"])
            let location = try reader.optionalString("location") ?? "header"
            let parsed: APIKeyLocation
            switch location {
            case "header": parsed = .header
            case "query", "param": parsed = .query
            case "cookie": parsed = .cookie
            default: throw ManifestError(path: reader.path + ".location", message: "\"\(location)\" is not one of header, query, param, cookie")
            }
            let name = try reader.optionalString("name") ?? "Authorization"
            // The name is sent as written, as a header's, parameter's or cookie's name: an
            // `env:` here would go out as its text, so it is refused rather than read.
            guard !name.hasPrefix("env:") else {
                throw ManifestError(path: reader.path + ".name", message: "\"\(name)\" is the name the key is sent under, which is sent as written: "
                    + "write the header's or parameter's name here, and \"api_key\": \"env:NAME\" for the key")
            }
            guard !name.isEmpty else {
                throw ManifestError(path: reader.path + ".name", message: "is empty: write the name of the header, parameter or cookie the key is sent in")
            }
            self = .apiKey(name: name, key: try field("api_key", clear: .refused), location: parsed)
        case "http_basic":
            try reader.allow(["type", "username", "password"])
            // A user name alone is no secret: it may be written in clear, and `env:` in it is read.
            self = .httpBasic(username: try field("username", clear: .allowed), password: try field("password", clear: .refused))
        case "oauth2_client_credentials":
            try reader.allow(["type", "access_token_url", "client_id", "client_secret", "access_token_request_data", "default_token_expiration"],
                             unsupported: ["access_token", "session"])
            let url = try field("access_token_url", clear: .allowed)
            if case .literal(let text) = url {
                guard text.hasPrefix("http://") || text.hasPrefix("https://") else {
                    throw ManifestError(path: reader.path + ".access_token_url", message: "\"\(text)\" is not an http(s) URL: write the token endpoint's whole address")
                }
                try ManifestSecrets.checkBase(text, path: reader.path + ".access_token_url")
            }
            var data: [(String, SecretValue)] = []
            if let given = try reader.optional("access_token_request_data") {
                guard case .object(let members) = given.json else { throw ManifestError(path: given.path, message: "expected an object") }
                for (key, value) in members {
                    let text: String
                    switch value {
                    case .string(let s): text = s
                    case .number(let n): text = n
                    case .bool(let b): text = b ? "True" : "False" // Python's str(), as requests sends it
                    default: throw ManifestError(path: given.path + "." + key, message: "expected a string, a number or a boolean")
                    }
                    data.append((key, try ManifestSecrets.parameter(key, text, path: given.path + "." + key)))
                }
            }
            let expiration = try reader.optionalInt("default_token_expiration") ?? 3600
            guard expiration >= 1 else {
                throw ManifestError(path: reader.path + ".default_token_expiration", message: "must be at least 1 (seconds)")
            }
            self = .oauth2ClientCredentials(OAuth2ClientCredentials(
                accessTokenURL: url, clientID: try field("client_id", clear: .refused), clientSecret: try field("client_secret", clear: .refused),
                requestData: data, defaultExpiration: expiration))
        default:
            throw ManifestError(path: reader.path + ".type", message: "\"\(type)\" is not one of \(Self.types.joined(separator: ", "))")
        }
    }

    /// dlt's environment variables for one credential field, most specific first.
    static func dltVariables(_ key: String, section: String) -> SecretValue {
        let field = key.uppercased()
        return .firstOf(["SOURCES__REST_API__\(section)__CREDENTIALS__\(field)", "SOURCES__REST_API__CREDENTIALS__\(field)",
                         "SOURCES__CREDENTIALS__\(field)", "CREDENTIALS__\(field)"])
    }
}

/// `oauth2_client_credentials`: a token asked of `access_token_url` with a form POST
/// (`grant_type=client_credentials`, the client's id and secret, `access_token_request_data`
/// over them), sent as `Authorization: Bearer …` and kept in memory for its `expires_in`
/// seconds (`default_token_expiration` when the answer has none) — see `OAuth2Tokens`.
package struct OAuth2ClientCredentials: Sendable, Equatable {
    package var accessTokenURL: SecretValue
    package var clientID: SecretValue
    package var clientSecret: SecretValue
    package var requestData: [(String, SecretValue)]
    package var defaultExpiration: Int

    package init(accessTokenURL: SecretValue, clientID: SecretValue, clientSecret: SecretValue, requestData: [(String, SecretValue)], defaultExpiration: Int) {
        self.accessTokenURL = accessTokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.requestData = requestData
        self.defaultExpiration = defaultExpiration
    }

    package static func == (a: Self, b: Self) -> Bool {
        a.accessTokenURL == b.accessTokenURL && a.clientID == b.clientID && a.clientSecret == b.clientSecret
            && a.requestData.elementsEqual(b.requestData, by: ==) && a.defaultExpiration == b.defaultExpiration
    }
}
