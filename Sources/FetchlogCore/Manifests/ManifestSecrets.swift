/// What a manifest may not hold in clear. A manifest is stored in the log (`source.defined`)
/// and merges into other stores with it, so a literal secret in it would be in every copy
/// of the log — where the same value sent at fetch time is recorded as `***`. Secrets are
/// `env:NAME`, read at fetch time (`SecretValue`); which names are secrets is `Redaction`'s
/// rule, the one that masks recorded requests.
enum ManifestSecrets {
    /// A `client.headers` or `endpoint.headers` value: `env:NAME`, or a literal unless the
    /// header's name says it is a credential (`Authorization`, `X-Api-Key`, `X-Auth-Token`, `Cookie`).
    static func header(_ name: String, _ text: String, path: String) throws(ManifestError) -> SecretValue {
        try SecretValue.read(text, at: path, clear: Redaction.isSecretHeader(name) ? .refusedByName(what: "the header \(name)") : .allowed)
    }

    /// An `endpoint.params` or `access_token_request_data` value given as text, a number or a
    /// boolean: `env:NAME`, or a literal unless the parameter's name is one whose value is
    /// masked (`api_key`, `token`…).
    static func parameter(_ name: String, _ text: String, path: String) throws(ManifestError) -> SecretValue {
        // A value that is one placeholder (`{resources.issues.key}`) is a parent item's
        // field, data rather than a secret the manifest holds.
        let placeholder = text.hasPrefix("{") && text.hasSuffix("}") && RestResource.placeholders(in: text).count == 1
        let byName = Redaction.isSecretParameter(name) && !placeholder
        return try SecretValue.read(text, at: path, clear: byName ? .refusedByName(what: "the parameter \(name)") : .allowed)
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
