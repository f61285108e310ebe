import Foundation

/// A value in a manifest that may be a secret: `env:NAME` is read from the environment at
/// fetch time and never written anywhere; anything else is the value itself.
package enum SecretValue: Sendable, Equatable {
    case literal(String)
    case environment(String)
    /// A value an auth shorthand leaves out (`"auth": "bearer"`): read, as dlt reads it, from
    /// the first of these variables that is set (dlt's names for the source's credentials,
    /// most specific first).
    case firstOf([String])

    init(_ text: String) { self = text.hasPrefix("env:") ? .environment(String(text.dropFirst(4))) : .literal(text) }

    var isSecret: Bool { if case .literal = self { false } else { true } }

    func resolve(_ environment: [String: String], at path: String) throws(CredentialsError) -> String {
        switch self {
        case .literal(let value): return value
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw CredentialsError("\(path) reads the environment variable \(name), which is not set: set it and fetch again")
            }
            return value
        case .firstOf(let names):
            for name in names { if let value = environment[name], !value.isEmpty { return value } }
            let key = path.split(separator: ".").last.map(String.init) ?? path
            throw CredentialsError("\(path) is not written in the manifest, so it is read as dlt reads it, from \(names[0]) "
                + "(or \(names.dropFirst().joined(separator: ", "))), and none of them is set: set one, "
                + "or write \"\(key)\": \"env:NAME\" in the manifest and set NAME, and fetch again")
        }
    }
}

/// `client.auth` or an endpoint's `auth`, as dlt spells it: an object with a `type`
/// (`bearer` when absent, as dlt allows), or a shorthand naming the type alone
/// (`"auth": "bearer"`). Every secret must be `env:NAME` (a literal one would be stored in
/// the log with the manifest); what a shorthand or an object leaves out is read at fetch
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
        /// A value the manifest may hold in clear (`name`, `username`, a URL), or dlt's variables.
        func plain(_ key: String) throws(ManifestError) -> SecretValue {
            if let text = try reader.optionalString(key) { return .literal(text) }
            return Self.dltVariables(key, section: section)
        }
        /// A secret: `env:NAME`, or dlt's variables when absent.
        func secret(_ key: String) throws(ManifestError) -> SecretValue {
            guard let text = try reader.optionalString(key) else { return Self.dltVariables(key, section: section) }
            let value = SecretValue(text)
            guard case .environment(let variable) = value else {
                throw ManifestError(path: reader.path + "." + key, message: "write \"env:NAME\" and set NAME in the environment: a literal secret would be stored in the log with the manifest")
            }
            try ManifestSecrets.checkVariable(variable, path: reader.path + "." + key)
            return value
        }
        switch type {
        case "bearer":
            try reader.allow(["type", "token"])
            self = .bearer(token: try secret("token"))
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
            self = .apiKey(name: try reader.optionalString("name") ?? "Authorization", key: try secret("api_key"), location: parsed)
        case "http_basic":
            try reader.allow(["type", "username", "password"])
            self = .httpBasic(username: try plain("username"), password: try secret("password"))
        case "oauth2_client_credentials":
            try reader.allow(["type", "access_token_url", "client_id", "client_secret", "access_token_request_data", "default_token_expiration"],
                             unsupported: ["access_token", "session"])
            let url = try plain("access_token_url")
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
                accessTokenURL: url, clientID: try secret("client_id"), clientSecret: try secret("client_secret"),
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
