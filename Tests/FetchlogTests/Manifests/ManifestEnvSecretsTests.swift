import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// Issue 33, part 3: `env:NAME` in every field a secret may be written in — each auth
/// field, `client.headers`, `endpoint.params` — read through one resolver (`SecretValue`),
/// against the catalog upstream, which records each request's headers (and a token
/// request's form). Before, `http_basic`'s `username` was sent as the text `env:NAME`.
@Suite struct ManifestEnvSecretsTests {
    /// The catalog's `single` list (it answers without credentials, so what was sent is
    /// read from the request log), with `client` and `endpoint` members added.
    static func single(client: String = "", endpoint: String = "") -> String {
        #"{"name":"catalog","client":{"base_url":"https://catalog.example"\#(client)},"#
            + #""resources":[{"name":"single","primary_key":"id","endpoint":{"path":"single","paginator":"single_page"\#(endpoint)}}]}"#
    }

    /// The catalog's `guarded` list behind `oauth2_client_credentials` with these fields.
    static func guarded(_ fields: String) -> String {
        #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"#
            + #""resources":[{"name":"guarded","primary_key":"id","endpoint":{"path":"guarded","data_selector":"data","paginator":"single_page","#
            + #""auth":{"type":"oauth2_client_credentials",\#(fields)}}}]}"#
    }

    static let oauthFields = #""access_token_url":"env:TOKEN_URL","client_id":"env:CLIENT_ID","client_secret":"env:CLIENT_SECRET","#
        + #""access_token_request_data":{"lifetime":60,"audience":"env:AUDIENCE"}"#
    static let oauthEnvironment = ["TOKEN_URL": "https://catalog.example/oauth/token", "CLIENT_ID": CatalogAuthRoutes.clientID,
                                   "CLIENT_SECRET": CatalogAuthRoutes.clientSecret, "AUDIENCE": "catalog-aud1ence"]

    /// What one fetch of `resource` did: the catalog requests the server saw, the events
    /// recorded, the outcome.
    struct Sent {
        var requests: [RequestRecord]
        var events: [Event]
        var outcomes: [FetchReport.Outcome]
        var base: String
    }

    func fetch(_ manifest: String, _ environment: [String: String], resource: String = "single") async throws -> Sent {
        let rig = try await ManifestAuthTests().start(try ManifestAuthTests.manifest(manifest), environment: environment)
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: resource)
        let requests = await rig.upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }
        let events = try ManifestAuthTests().events(rig)
        await ManifestTests().stop(rig)
        return Sent(requests: requests, events: events, outcomes: reports.map(\.outcome), base: rig.upstream.base)
    }

    // MARK: Each field read and masked

    @Test func aBearerTokenIsRead() async throws {
        let sent = try await fetch(Self.single(client: #","auth":{"type":"bearer","token":"env:API_TOKEN"}"#), ["API_TOKEN": "b3arer-s3cret"])
        #expect(sent.requests.map { "\($0.path) \($0.status)" } == ["/catalog/single 200"])
        #expect(sent.requests.map { $0.headers?["authorization"] } == ["Bearer b3arer-s3cret"])
        #expect(sent.events.map { $0.request?.headers ?? [] } == [[Header("Authorization", "***")]])
    }

    /// The key's header name is not one `Redaction` masks by itself (`pass`, not
    /// `password`): the `***` comes from the key being read from the environment.
    @Test func anAPIKeyInAHeaderIsReadAndMasked() async throws {
        let sent = try await fetch(Self.single(endpoint: #","auth":{"type":"api_key","name":"X-Tenant-Pass","api_key":"env:API_KEY"}"#),
                                   ["API_KEY": "k3y-s3cret"])
        #expect(sent.requests.map { "\($0.path) \($0.status)" } == ["/catalog/single 200"])
        #expect(sent.requests.map { $0.headers?["x-tenant-pass"] } == ["k3y-s3cret"])
        #expect(sent.events.map { $0.request?.headers ?? [] } == [[Header("X-Tenant-Pass", "***")]])
    }

    /// `sig_v` is no default masked parameter: masked because it carries the key.
    @Test func anAPIKeyInTheQueryIsReadAndMasked() async throws {
        let sent = try await fetch(Self.single(client: #","auth":{"type":"api_key","name":"sig_v","api_key":"env:API_KEY","location":"query"}"#),
                                   ["API_KEY": "k3y-s3cret"])
        #expect(sent.requests.map { "\($0.path) \($0.status)" } == ["/catalog/single?sig_v=k3y-s3cret 200"])
        #expect(sent.events.map { $0.request?.url } == [sent.base + "/catalog/single?sig_v=***"])
        #expect(sent.events.map { $0.request?.headers ?? [] } == [[]])
    }

    /// The bug: `username` was taken as written, so the header was `env:BASIC_USER:pa55-s3cret`
    /// in Base64. Now it is `alice:pa55-s3cret` in Base64.
    @Test func anHTTPBasicUsernameIsReadFromTheEnvironment() async throws {
        let sent = try await fetch(Self.single(client: #","auth":{"type":"http_basic","username":"env:BASIC_USER","password":"env:BASIC_PASSWORD"}"#),
                                   ["BASIC_USER": "alice", "BASIC_PASSWORD": "pa55-s3cret"])
        #expect(sent.requests.map { "\($0.path) \($0.status)" } == ["/catalog/single 200"])
        #expect(sent.requests.map { $0.headers?["authorization"] } == ["Basic YWxpY2U6cGE1NS1zM2NyZXQ="]) // alice:pa55-s3cret
        #expect(sent.events.map { $0.request?.headers ?? [] } == [[Header("Authorization", "***")]])
    }

    /// A literal username stays allowed (it is no secret by itself); the password is read.
    @Test func anHTTPBasicPasswordIsReadBesideALiteralUsername() async throws {
        let sent = try await fetch(Self.single(endpoint: #","auth":{"type":"http_basic","username":"alice","password":"env:BASIC_PASSWORD"}"#),
                                   ["BASIC_PASSWORD": "pa55-s3cret"])
        #expect(sent.requests.map { $0.headers?["authorization"] } == ["Basic YWxpY2U6cGE1NS1zM2NyZXQ="])
        #expect(sent.events.map { $0.request?.headers ?? [] } == [[Header("Authorization", "***")]])
    }

    /// The token request's form carries the values read (client id and secret, a request
    /// data value), sent to the address read; only the resource's request is an event.
    @Test func oauth2FieldsAreReadIntoTheTokenRequest() async throws {
        let sent = try await fetch(Self.guarded(Self.oauthFields), Self.oauthEnvironment, resource: "guarded")
        #expect(sent.requests.map { "\($0.method) \($0.path) \($0.status)" } == ["POST /catalog/oauth/token 200", "GET /catalog/guarded 200"])
        #expect(sent.requests.map(\.form) == ["client_id=catalog-client&client_secret=cl1ent-s3cret&grant_type=client_credentials&lifetime=60&audience=catalog-aud1ence", nil])
        #expect(sent.requests.last?.headers?["authorization"] == "Bearer " + CatalogAuthRoutes.accessToken)
        #expect(sent.events.map(\.label) == ["/guarded"])
        #expect(sent.events.map { $0.request?.headers ?? [] } == [[Header("Authorization", "***")]])
    }

    /// `X-Tenant` and `tenant` are no names masked by themselves: `env:` makes them secrets.
    @Test func aHeaderAndAParamAreReadAndMasked() async throws {
        let sent = try await fetch(Self.single(client: #","headers":{"X-Tenant":"env:TENANT","X-Client":"fetchlog-tests"}"#,
                                               endpoint: #","params":{"tenant":"env:TENANT_ID"}"#),
                                   ["TENANT": "acme-s3cret", "TENANT_ID": "42-s3cret"])
        #expect(sent.requests.map { "\($0.path) \($0.status)" } == ["/catalog/single?tenant=42-s3cret 200"])
        #expect(sent.requests.map { $0.headers?["x-tenant"] } == ["acme-s3cret"])
        #expect(sent.events.map { $0.request?.url } == [sent.base + "/catalog/single?tenant=***"])
        #expect(sent.events.map { $0.request?.headers ?? [] } == [[Header("X-Tenant", "***"), Header("X-Client", "fetchlog-tests")]])
    }

    // MARK: An unset variable: named, nothing sent

    /// Each field with its variable unset (the others set): the report names the variable and
    /// the key path, the server saw no request (not even the token request), no event.
    @Test func anUnsetVariableInEachFieldIsNamedAndNothingIsSent() async throws {
        let basic = #","auth":{"type":"http_basic","username":"env:BASIC_USER","password":"env:BASIC_PASSWORD"}"#
        let basicSet = ["BASIC_USER": "alice", "BASIC_PASSWORD": "pa55-s3cret"]
        let cases: [(manifest: String, environment: [String: String], resource: String, path: String, variable: String)] = [
            (Self.single(client: #","auth":{"type":"bearer","token":"env:API_TOKEN"}"#), [:], "single", "client.auth.token", "API_TOKEN"),
            (Self.single(endpoint: #","auth":{"type":"api_key","name":"X-Tenant-Pass","api_key":"env:API_KEY"}"#), [:], "single",
             "resources[0].endpoint.auth.api_key", "API_KEY"),
            (Self.single(client: #","auth":{"type":"api_key","name":"sig_v","api_key":"env:API_KEY","location":"query"}"#), [:], "single",
             "client.auth.api_key", "API_KEY"),
            (Self.single(client: basic), basicSet.filter { $0.key != "BASIC_USER" }, "single", "client.auth.username", "BASIC_USER"),
            (Self.single(client: basic), basicSet.filter { $0.key != "BASIC_PASSWORD" }, "single", "client.auth.password", "BASIC_PASSWORD"),
            (Self.guarded(Self.oauthFields), Self.oauthEnvironment.filter { $0.key != "CLIENT_ID" }, "guarded",
             "resources[0].endpoint.auth.client_id", "CLIENT_ID"),
            (Self.guarded(Self.oauthFields), Self.oauthEnvironment.filter { $0.key != "CLIENT_SECRET" }, "guarded",
             "resources[0].endpoint.auth.client_secret", "CLIENT_SECRET"),
            (Self.guarded(Self.oauthFields), Self.oauthEnvironment.filter { $0.key != "AUDIENCE" }, "guarded",
             "resources[0].endpoint.auth.access_token_request_data.audience", "AUDIENCE"),
            (Self.guarded(Self.oauthFields), Self.oauthEnvironment.filter { $0.key != "TOKEN_URL" }, "guarded",
             "resources[0].endpoint.auth.access_token_url", "TOKEN_URL"),
            (Self.single(client: #","headers":{"X-Tenant":"env:TENANT"}"#), [:], "single", "client.headers.X-Tenant", "TENANT"),
            (Self.single(endpoint: #","params":{"tenant":"env:TENANT_ID"}"#), [:], "single", "resources[0].endpoint.params.tenant", "TENANT_ID"),
        ]
        for (manifest, environment, resource, path, variable) in cases {
            let sent = try await fetch(manifest, environment, resource: resource)
            #expect(sent.outcomes == [.failed(.transport, "\(path) reads the environment variable \(variable), which is not set: "
                        + "set it and fetch again; nothing was sent or recorded")], "\(path)")
            #expect(sent.requests.isEmpty, "\(path)")
            #expect(sent.events.isEmpty, "\(path)")
            // `source add` tells it when the manifest is given (the bug: a username's was not).
            #expect(ManifestSource(try ManifestAuthTests.manifest(manifest)).unsetSecrets(environment: environment)
                == ["\(path) reads the environment variable \(variable), which is not set: set it and fetch again"], "\(path)")
        }
    }

    // MARK: Literals

    static let literal = "write \"env:NAME\" and set NAME in the environment: a literal secret would be stored in the log with the manifest"
    static let literalByName = "write \"env:NAME\" and set NAME in the environment, since a literal secret would be stored in the log with the manifest"

    /// A literal where a secret goes is refused at the key path, as before; the refusal never
    /// repeats the value.
    @Test func literalSecretsInEachFieldAreStillRefusedNamingTheKeyPath() {
        let cases: [(String, String)] = [
            (Self.single(client: #","auth":{"type":"bearer","token":"t0ken-s3cret"}"#), "client.auth.token: " + Self.literal),
            (Self.single(endpoint: #","auth":{"type":"api_key","name":"X-Key","api_key":"k3y-s3cret"}"#),
             "resources[0].endpoint.auth.api_key: " + Self.literal),
            (Self.single(client: #","auth":{"type":"api_key","name":"k","api_key":"k3y-s3cret","location":"query"}"#), "client.auth.api_key: " + Self.literal),
            (Self.single(client: #","auth":{"type":"http_basic","username":"env:BASIC_USER","password":"pa55-s3cret"}"#),
             "client.auth.password: " + Self.literal),
            (Self.guarded(#""access_token_url":"https://catalog.example/oauth/token","client_id":"env:CLIENT_ID","client_secret":"cl1ent-s3cret""#),
             "resources[0].endpoint.auth.client_secret: " + Self.literal),
            (Self.guarded(#""access_token_url":"https://catalog.example/oauth/token","client_id":"catalog-client","client_secret":"env:S""#),
             "resources[0].endpoint.auth.client_id: " + Self.literal),
            (Self.guarded(#""access_token_url":"https://catalog.example/oauth/token","client_id":"env:I","client_secret":"env:S","access_token_request_data":{"password":"pa55-s3cret"}"#),
             "resources[0].endpoint.auth.access_token_request_data.password: the parameter password holds a secret: " + Self.literalByName),
            (Self.single(client: #","headers":{"X-Auth-Token":"t0ken-s3cret"}"#), "client.headers.X-Auth-Token: the header X-Auth-Token holds a secret: " + Self.literalByName),
            (Self.single(endpoint: #","headers":{"Authorization":"Bearer t0ken-s3cret"}"#),
             "resources[0].endpoint.headers.Authorization: the header Authorization holds a secret: " + Self.literalByName),
            (Self.single(endpoint: #","params":{"access_token":"t0ken-s3cret"}"#),
             "resources[0].endpoint.params.access_token: the parameter access_token holds a secret: " + Self.literalByName),
            // `env:` in a field that is sent as written names no secret: refused, not sent as its text.
            (Self.single(client: #","auth":{"type":"api_key","name":"env:KEY_NAME","api_key":"env:API_KEY"}"#),
             "client.auth.name: \"env:KEY_NAME\" is the name the key is sent under, which is sent as written: "
                + "write the header's or parameter's name here, and \"api_key\": \"env:NAME\" for the key"),
            (Self.single(client: #","auth":{"type":"http_basic","username":"env:MY USER","password":"env:P"}"#),
             "client.auth.username: \"env:MY USER\" does not name an environment variable: write env:NAME, NAME letters, digits and _ (not starting with a digit)"),
            (Self.guarded(#""access_token_url":"env:","client_id":"env:I","client_secret":"env:S""#),
             "resources[0].endpoint.auth.access_token_url: \"env:\" does not name an environment variable: write env:NAME, NAME letters, digits and _ (not starting with a digit)"),
        ]
        for (text, expected) in cases {
            var refusal: String?
            do {
                _ = try ManifestAuthTests.manifest(text)
            } catch let error as ManifestError {
                refusal = error.description
            } catch {
                refusal = "\(error)"
            }
            #expect(refusal == expected, "\(text)")
            #expect(refusal?.contains("s3cret") == false)
        }
    }

    /// What may be written in clear stays so: a username, a token endpoint's address.
    @Test func aLiteralUsernameAndTokenURLStayLiteral() throws {
        let basic = try ManifestAuthTests.manifest(Self.single(client: #","auth":{"type":"http_basic","username":"alice","password":"env:P"}"#))
        #expect(basic.auth == .httpBasic(username: .literal("alice"), password: .environment("P")))
        let read = try ManifestAuthTests.manifest(Self.single(client: #","auth":{"type":"http_basic","username":"env:U","password":"env:P"}"#))
        #expect(read.auth == .httpBasic(username: .environment("U"), password: .environment("P")))
        let oauth = try ManifestAuthTests.manifest(#"{"name":"c","client":{"base_url":"https://x.example","auth":{"type":"oauth2_client_credentials","#
            + #""access_token_url":"https://x.example/token","client_id":"env:I","client_secret":"env:S"}},"resources":["a"]}"#)
        #expect(oauth.auth == .oauth2ClientCredentials(OAuth2ClientCredentials(
            accessTokenURL: .literal("https://x.example/token"), clientID: .environment("I"), clientSecret: .environment("S"), requestData: [], defaultExpiration: 3600)))
    }
}
