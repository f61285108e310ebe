/// A value in a manifest that may be a secret: `env:NAME` is read from the environment at
/// fetch time and never written anywhere; anything else is the value itself.
public enum SecretValue: Sendable, Equatable {
    case literal(String)
    case environment(String)

    init(_ text: String) { self = text.hasPrefix("env:") ? .environment(String(text.dropFirst(4))) : .literal(text) }

    var isSecret: Bool { if case .environment = self { true } else { false } }

    func resolve(_ environment: [String: String], at path: String) throws(CredentialsError) -> String {
        switch self {
        case .literal(let value): return value
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw CredentialsError("\(path) reads the environment variable \(name), which is not set: set it and fetch again")
            }
            return value
        }
    }
}

/// `client.auth`, as dlt spells it. Every secret must be `env:NAME`: a literal one would be
/// stored in the log with the manifest.
public enum RestAuth: Sendable, Equatable {
    case bearer(token: SecretValue)
    case apiKey(name: String, key: SecretValue, inQuery: Bool)
    case httpBasic(username: String, password: SecretValue)

    init(_ reader: ManifestReader) throws(ManifestError) {
        let type = try reader.string("type")
        func secret(_ key: String) throws(ManifestError) -> SecretValue {
            let value = SecretValue(try reader.string(key))
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
            guard ["header", "query"].contains(location) else {
                throw ManifestError(path: reader.path + ".location", message: "\"\(location)\" is not one of header, query")
            }
            self = .apiKey(name: try reader.optionalString("name") ?? "Authorization", key: try secret("api_key"), inQuery: location == "query")
        case "http_basic":
            try reader.allow(["type", "username", "password"])
            self = .httpBasic(username: try reader.string("username"), password: try secret("password"))
        default:
            throw ManifestError(path: reader.path + ".type", message: "\"\(type)\" is not one of bearer, api_key, http_basic")
        }
    }
}

