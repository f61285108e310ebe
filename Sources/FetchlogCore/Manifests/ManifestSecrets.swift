/// What a manifest may not hold in clear. A manifest is stored in the log (`source.defined`)
/// and merges into other stores with it, so a literal secret in it would be in every copy
/// of the log — where the same value sent at fetch time is recorded as `***`. Secrets are
/// `env:NAME`, read at fetch time; which names are secrets is `Redaction`'s rule, the one
/// that masks recorded requests.
enum ManifestSecrets {
    /// A `client.headers` value: `env:NAME`, or a literal unless the header's name says it
    /// is a credential (`Authorization`, `X-Api-Key`, `X-Auth-Token`, `Cookie`).
    static func header(_ name: String, _ text: String, path: String) throws(ManifestError) -> SecretValue {
        try value(text, path: path, secretByName: Redaction.isSecretHeader(name), what: "the header \(name)")
    }

    /// An `endpoint.params` value given as text, a number or a boolean: `env:NAME`, or a
    /// literal unless the parameter's name is one whose value is masked (`api_key`, `token`…).
    static func parameter(_ name: String, _ text: String, path: String) throws(ManifestError) -> SecretValue {
        // A value that is one placeholder (`{resources.issues.key}`) is a parent item's
        // field, data rather than a secret the manifest holds.
        let placeholder = text.hasPrefix("{") && text.hasSuffix("}") && RestResource.placeholders(in: text).count == 1
        return try value(text, path: path, secretByName: Redaction.isSecretParameter(name) && !placeholder, what: "the parameter \(name)")
    }

    /// `env:NAME` checked (NAME a variable name), or a literal the name allows.
    static func value(_ text: String, path: String, secretByName: Bool, what: String) throws(ManifestError) -> SecretValue {
        let value = SecretValue(text)
        switch value {
        case .environment(let variable):
            try checkVariable(variable, path: path)
        case .firstOf: break // not written in a manifest: an auth's missing field
        case .literal:
            // The value is not repeated: it is the secret.
            guard !secretByName else {
                throw ManifestError(path: path, message: "\(what) holds a secret: write \"env:NAME\" and set NAME in the environment, "
                    + "since a literal secret would be stored in the log with the manifest")
            }
        }
        return value
    }

    /// `NAME` of `env:NAME`: a variable a shell can set.
    static func checkVariable(_ name: String, path: String) throws(ManifestError) {
        guard name.range(of: #"^[A-Za-z_][A-Za-z0-9_]*$"#, options: .regularExpression) != nil else {
            throw ManifestError(path: path, message: "\"env:\(name)\" does not name an environment variable: write env:NAME, "
                + "NAME letters, digits and _ (not starting with a digit)")
        }
    }

    /// `client.base_url` without userinfo: `https://user:password@host` would keep the
    /// password in the log (and the user name alone is often a token).
    static func checkBase(_ base: String, path: String) throws(ManifestError) {
        guard URLParts(base).userinfo == nil else {
            throw ManifestError(path: path, message: "holds a user name or password (before @), which would be stored in the log with the manifest: "
                + "remove it and write client.auth {\"type\": \"http_basic\", \"username\": …, \"password\": \"env:NAME\"} "
                + "(or an api_key or bearer auth) with the secret in the environment")
        }
    }
}
