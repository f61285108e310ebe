import Foundation

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
    ///
    /// A parameter named like a secret is still data — sent as written, never refused —
    /// when its value is no secret: a parent's field (`{resources.issues.key}`), a value left
    /// to fill in (empty, or `FILL_ME_IN` as dlt-init-openapi writes a required parameter),
    /// or when it fills a placeholder of the path (`/custom-attributes/{key}`): a path is
    /// recorded in every event's label, so it is the resource's address, not a credential.
    /// `fillsPath`: the resource's path has `{name}`.
    static func parameter(_ name: String, _ text: String, path: String, fillsPath: Bool = false) throws(ManifestError) -> SecretValue {
        if fillsPath, text.hasPrefix("env:") {
            throw ManifestError(path: path, message: "fills {\(name)} in the endpoint's path, and a path is recorded in every event of the "
                + "resource (its label), so it is not read from the environment: write the value itself (a path is an address, not a secret)")
        }
        let placeholder = text.hasPrefix("{") && text.hasSuffix("}") && RestResource.placeholders(in: text).count == 1
        let byName = Redaction.isSecretParameter(name) && !placeholder && !fillsPath && !isUnfilled(text)
        return try SecretValue.read(text, at: path, clear: byName ? .refusedByName(what: "the parameter \(name)") : .allowed)
    }

    /// A value nobody has filled in yet: no secret, whatever the parameter's name.
    static func isUnfilled(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed.uppercased() == "FILL_ME_IN"
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
