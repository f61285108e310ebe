import Foundation

extension ManifestSource {
    /// A manifest's bases come from the log (`source.defined`), not from code.
    package var basesAreData: Bool { true }

    /// The resource's credentials: the client's `headers` with the endpoint's over them (a
    /// header of the same name, in any case, takes the endpoint's value, as dlt merges them),
    /// the endpoint's `auth` instead of the client's when it has one, and the resource's
    /// `env:NAME` params, read now and sent as query parameters recorded as `***`.
    package func credentials(for kind: DocumentKind, environment: [String: String]) throws(CredentialsError) -> Credentials {
        guard let index = manifest.resources.firstIndex(where: { self.kind(of: $0) == kind }) else { return try credentials(environment: environment) }
        let resource = manifest.resources[index]
        var headers = manifest.headers.map { (name: $0.0, value: $0.1, path: "client.headers.\($0.0)") }
        for (name, value) in resource.credentials.headers {
            let entry = (name: name, value: value, path: "resources[\(index)].endpoint.headers.\(name)")
            if let at = headers.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) { headers[at] = entry } else { headers.append(entry) }
        }
        let auth: (RestAuth, String)? = resource.credentials.auth.map { ($0, "resources[\(index)].endpoint.auth") } ?? manifest.auth.map { ($0, "client.auth") }
        var credentials = try Self.credentials(headers: headers, auth: auth, environment: environment)
        for (name, value) in resource.secretParams {
            credentials.query.append((name, try value.resolve(environment, at: "resources[\(index)].endpoint.params.\(name)")))
            credentials.secretParameters.insert(name.lowercased())
        }
        return credentials
    }

    /// `client.headers` and `client.auth`, with `env:` secrets read now; every secret's
    /// header or parameter is recorded as `***`.
    package func credentials(environment: [String: String]) throws(CredentialsError) -> Credentials {
        try Self.credentials(headers: manifest.headers.map { ($0.0, $0.1, "client.headers.\($0.0)") },
                             auth: manifest.auth.map { ($0, "client.auth") }, environment: environment)
    }

    /// What a fetch of each resource would say about its secrets in `environment`, one line
    /// per distinct message: a variable that is not set (`source add` tells it at once, so a
    /// shorthand's secret is named when the manifest is given, not at the first fetch).
    package func unsetSecrets(environment: [String: String]) -> [String] {
        var messages: [String] = []
        for resource in manifest.resources {
            do throws(CredentialsError) {
                _ = try credentials(for: kind(of: resource), environment: environment)
            } catch {
                if !messages.contains(error.message) { messages.append(error.message) }
            }
        }
        return messages
    }

    /// Headers and an auth, with `env:` secrets read now; every secret's header or
    /// parameter is recorded as `***`. An `oauth2_client_credentials` auth is a token request
    /// the fetcher makes (`OAuth2Tokens`). Every field is read by `SecretValue.resolve`, the
    /// one resolver, at its key path: an unset variable is named there and nothing is sent.
    static func credentials(headers: [(name: String, value: SecretValue, path: String)], auth: (RestAuth, String)?,
                            environment: [String: String]) throws(CredentialsError) -> Credentials {
        var credentials = Credentials()
        for (name, value, path) in headers {
            credentials.headers.append(Header(name, try value.resolve(environment, at: path)))
            if value.isSecret { credentials.secretHeaders.insert(name.lowercased()) }
        }
        guard let (auth, path) = auth else { return credentials }
        /// The auth's field `key`: its key path is `path.key`.
        func read(_ value: SecretValue, _ key: String) throws(CredentialsError) -> String { try value.resolve(environment, at: path + "." + key) }
        switch auth {
        case .bearer(let token):
            credentials.headers.append(Header("Authorization", "Bearer " + (try read(token, "token"))))
            credentials.secretHeaders.insert("authorization")
        case .apiKey(let name, let key, let location):
            let value = try read(key, "api_key")
            switch location {
            case .query:
                credentials.query.append((name, value))
                credentials.secretParameters.insert(name.lowercased())
            case .header:
                credentials.headers.append(Header(name, value))
                credentials.secretHeaders.insert(name.lowercased())
            case .cookie:
                // One Cookie header: a cookie the manifest's headers already set stays beside it.
                let cookie = name + "=" + value
                if let at = credentials.headers.firstIndex(where: { $0.name.lowercased() == "cookie" }) {
                    credentials.headers[at] = Header(credentials.headers[at].name, credentials.headers[at].value + "; " + cookie)
                } else {
                    credentials.headers.append(Header("Cookie", cookie))
                }
                credentials.secretHeaders.insert("cookie")
            }
        case .httpBasic(let user, let password):
            // The credentials name every header they fill as secret, though `Authorization` is
            // masked by its name as well: what is recorded does not hang on one rule alone.
            let pair = (try read(user, "username")) + ":" + (try read(password, "password"))
            credentials.headers.append(Header("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
            credentials.secretHeaders.insert("authorization")
        case .oauth2ClientCredentials(let client):
            var form = [("client_id", try read(client.clientID, "client_id")),
                        ("client_secret", try read(client.clientSecret, "client_secret")),
                        ("grant_type", "client_credentials")]
            // `access_token_request_data` over the defaults, as dlt's dict merge puts it.
            for (key, value) in client.requestData {
                let text = try read(value, "access_token_request_data." + key)
                if let at = form.firstIndex(where: { $0.0 == key }) { form[at].1 = text } else { form.append((key, text)) }
            }
            credentials.tokenRequest = OAuth2TokenRequest(url: try read(client.accessTokenURL, "access_token_url"),
                                                          form: form, defaultExpiration: client.defaultExpiration, origin: path)
        }
        return credentials
    }
}

/// An endpoint's own `headers` and `auth` (dlt's `endpoint.headers`, `endpoint.auth`),
/// which the client's give way to.
package struct EndpointCredentials: Sendable, Equatable {
    package var headers: [(String, SecretValue)] = []
    package var auth: RestAuth?

    init() {}

    /// Read from a resource's `endpoint` (with `resource_defaults` merged in); `source`
    /// names dlt's variables for what an auth leaves out.
    init(endpoint: JSONValue?, path: String, source: String) throws(ManifestError) {
        guard let endpoint, case .object = endpoint else { return }
        let reader = try ManifestReader(endpoint, path: path)
        headers = try Self.headers(reader.optional("headers"))
        auth = try reader.optional("auth").map { value throws(ManifestError) in try RestAuth(value, source: source) }
    }

    /// `headers`: names to text values; a credential's must be `env:NAME` (`ManifestSecrets`).
    static func headers(_ given: ManifestReader?) throws(ManifestError) -> [(String, SecretValue)] {
        guard let given else { return [] }
        guard case .object(let members) = given.json else { throw ManifestError(path: given.path, message: "expected an object") }
        var headers: [(String, SecretValue)] = []
        for (name, value) in members {
            guard case .string(let text) = value else { throw ManifestError(path: given.path + "." + name, message: "expected a string") }
            // A template (`{resources.posts.id}`) is the resource's, filled per request
            // (`RestResource.headerTemplates`); it holds no secret to resolve.
            if isTemplate(text) { continue }
            headers.append((name, try ManifestSecrets.header(name, text, path: given.path + "." + name)))
        }
        return headers
    }

    package static func == (a: Self, b: Self) -> Bool { a.headers.elementsEqual(b.headers, by: ==) && a.auth == b.auth }

    /// True when an endpoint header's value holds a placeholder dlt fills.
    static func isTemplate(_ text: String) -> Bool {
        RestResource.placeholders(in: text).contains { $0.hasPrefix("resources.") || $0.hasPrefix("incremental.") }
    }
}
