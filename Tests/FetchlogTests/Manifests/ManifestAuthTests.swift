import FetchlogCore
import FetchlogSources
import Foundation
import SampleUpstream
import Testing

/// Issue 24, item 4: an endpoint's `headers` and `auth` over the client's, dlt's auth
/// shorthands, `api_key` in a cookie, `oauth2_client_credentials` — against the catalog's
/// routes that check them (`CatalogAuthRoutes`), every request counted.
@Suite struct ManifestAuthTests {
    static func manifest(_ text: String) throws -> RestManifest {
        try RestManifest(json: try JSONValue.parse(bytes: Array(text.utf8)))
    }

    /// A rig like `ManifestTests.start`, with the environment the secrets come from and a
    /// clock the test moves.
    func start(_ manifest: RestManifest, environment: [String: String], clock: FixedClock = FixedClock(Timestamp(milliseconds: 1_800_000_000_000)))
        async throws -> ManifestTests.Rig {
        let upstream = try await CatalogUpstream.start()
        let directory = TemporaryDirectory("manifest-auth")
        let log = try EventLog.open(at: directory.path)
        let sources = SourceRegistry(SeedSources.plugins + [ManifestSource(manifest)], views: SeedSources.views)
        var configuration = FetchHarness.patientConfiguration(base: upstream.base)
        configuration.environment = environment
        configuration.clock = clock
        let fetcher = Fetcher(sources: sources, configuration: configuration)
        let store = try Store(log: log, sources: sources, fetcher: fetcher)
        return ManifestTests.Rig(upstream: upstream, log: log, fetcher: fetcher, store: store, directory: directory)
    }

    /// Every request the catalog answered: method, path, status.
    func requests(_ rig: ManifestTests.Rig) async -> [String] {
        await rig.upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }.map { "\($0.method) \($0.path) \($0.status)" }
    }

    func events(_ rig: ManifestTests.Rig) throws -> [Event] {
        let last = try rig.log.lastSeq()
        return try (0 ..< last).compactMap { try rig.log.event(at: $0 + 1) }
    }

    // MARK: Reading

    @Test func shorthandsAndBearerWithoutTypeReadAsDltReadsThem() throws {
        func auth(_ json: String) throws -> RestAuth? {
            try Self.manifest(#"{"name":"my-api","client":{"base_url":"https://x.example","auth":\#(json)},"resources":["a"]}"#).auth
        }
        func dlt(_ field: String) -> SecretValue {
            .firstOf(["SOURCES__REST_API__MY_API__CREDENTIALS__\(field)", "SOURCES__REST_API__CREDENTIALS__\(field)",
                      "SOURCES__CREDENTIALS__\(field)", "CREDENTIALS__\(field)"])
        }
        #expect(try auth(#""bearer""#) == .bearer(token: dlt("TOKEN")))
        #expect(try auth(#"{"token":"env:T"}"#) == .bearer(token: .environment("T")))
        #expect(try auth(#""api_key""#) == .apiKey(name: "Authorization", key: dlt("API_KEY"), location: .header))
        #expect(try auth(#"{"type":"api_key","location":"cookie"}"#) == .apiKey(name: "Authorization", key: dlt("API_KEY"), location: .cookie))
        #expect(try auth(#"{"type":"api_key","name":"key","api_key":"env:K","location":"param"}"#) == .apiKey(name: "key", key: .environment("K"), location: .query))
        #expect(try auth(#"{"type":"http_basic","username":"me"}"#) == .httpBasic(username: .literal("me"), password: dlt("PASSWORD")))
        #expect(try auth(#""oauth2_client_credentials""#) == .oauth2ClientCredentials(OAuth2ClientCredentials(
            accessTokenURL: dlt("ACCESS_TOKEN_URL"), clientID: dlt("CLIENT_ID"), clientSecret: dlt("CLIENT_SECRET"), requestData: [], defaultExpiration: 3600)))
    }

    static let errors: [(manifest: String, error: String)] = [
        (#"{"name":"c","client":{"base_url":"https://x.example","auth":"oauth2"},"resources":["a"]}"#,
         "client.auth: \"oauth2\" is not one of bearer, api_key, http_basic, oauth2_client_credentials"),
        (#"{"name":"c","client":{"base_url":"https://x.example","auth":{"token":"t0ken"}},"resources":["a"]}"#,
         "client.auth.token: write \"env:NAME\" and set NAME in the environment: a literal secret would be stored in the log with the manifest"),
        (#"{"name":"c","client":{"base_url":"https://x.example"},"resources":[{"name":"a","endpoint":{"auth":{"type":"oauth2_client_credentials","access_token_url":"https://x.example/token","client_id":"env:ID","client_secret":"s3cret"}}}]}"#,
         "resources[0].endpoint.auth.client_secret: write \"env:NAME\" and set NAME in the environment: a literal secret would be stored in the log with the manifest"),
        (#"{"name":"c","client":{"base_url":"https://x.example"},"resources":[{"name":"a","endpoint":{"auth":{"type":"oauth2_client_credentials","access_token_url":"/token","client_id":"env:ID","client_secret":"env:S"}}}]}"#,
         "resources[0].endpoint.auth.access_token_url: \"/token\" is not an http(s) URL: write the token endpoint's whole address"),
        (#"{"name":"c","client":{"base_url":"https://x.example"},"resources":[{"name":"a","endpoint":{"auth":{"type":"oauth2_client_credentials","access_token_url":"https://x.example/token","client_id":"env:ID","client_secret":"env:S","access_token_request_data":{"client_assertion":"abc","token":"t"}}}}]}"#,
         "resources[0].endpoint.auth.access_token_request_data.token: the parameter token holds a secret: write \"env:NAME\" and set NAME in the environment, since a literal secret would be stored in the log with the manifest"),
        (#"{"name":"c","client":{"base_url":"https://x.example"},"resource_defaults":{"endpoint":{"headers":{"X-Api-Key":"k3y"}}},"resources":["a"]}"#,
         "resource_defaults.endpoint.headers.X-Api-Key: the header X-Api-Key holds a secret: write \"env:NAME\" and set NAME in the environment, since a literal secret would be stored in the log with the manifest (in resources[0], from resource_defaults)"),
        (#"{"name":"c","client":{"base_url":"https://x.example"},"resources":[{"name":"a","endpoint":{"auth":{"type":"api_key","api_key":"env:K","location":"body"}}}]}"#,
         "resources[0].endpoint.auth.location: \"body\" is not one of header, query, param, cookie"),
        // A header placeholder is filled per request (IncrementalTests): one with nothing to fill it is refused.
        (#"{"name":"c","client":{"base_url":"https://x.example"},"resources":[{"name":"a","endpoint":{"headers":{"X-Since":"{incremental.start_value}"}}},"b"]}"#,
         "resources[0].endpoint.headers.X-Since: {incremental.start_value} needs an incremental (endpoint.incremental)"),
    ]

    @Test func literalSecretsAndUnknownTypesAreRefusedNamingTheKeyPath() throws {
        for (text, expected) in Self.errors {
            do {
                _ = try Self.manifest(text)
                Issue.record("accepted: \(text)")
            } catch let error as ManifestError {
                #expect(error.description == expected)
            }
        }
    }

    // MARK: Endpoint headers and api_key in a cookie

    static let headersManifest = #"""
    {"name":"catalog","client":{"base_url":"https://catalog.example","headers":{"X-Api-Version":"1","X-Client":"fetchlog-tests"},
      "auth":{"type":"bearer","token":"env:CATALOG_TOKEN"}},
     "resources":[
      {"name":"versioned","primary_key":"id","endpoint":{"path":"versioned","paginator":"single_page","headers":{"X-Api-Version":"2"}}},
      {"name":"single","primary_key":"id","endpoint":{"path":"single","paginator":"single_page"}},
      {"name":"cookie","primary_key":"id","endpoint":{"path":"cookie","paginator":"single_page",
        "auth":{"type":"api_key","name":"session","api_key":"env:CATALOG_SESSION","location":"cookie"}}}]}
    """#

    /// The endpoint's `X-Api-Version` replaces the client's (the server answers 400 to
    /// version 1); the endpoint's cookie auth replaces the client's bearer token.
    @Test func endpointHeadersAndAuthOverrideTheClientsAndACookieCarriesTheKey() async throws {
        let rig = try await start(try Self.manifest(Self.headersManifest),
                                  environment: ["CATALOG_TOKEN": "b3arer", "CATALOG_SESSION": CatalogAuthRoutes.cookie])
        for name in ["versioned", "single", "cookie"] { _ = try await rig.store.fetchManifestResource(source: "catalog", resource: name) }
        #expect(try ManifestTests().ids(rig, "versioned") == [1, 2, 3])
        #expect(try ManifestTests().ids(rig, "single") == [1, 2, 3])
        #expect(try ManifestTests().ids(rig, "cookie") == [4, 5])
        let log = await rig.upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }
        #expect(log.map { "\($0.method) \($0.path) \($0.status)" } == ["GET /catalog/versioned 200", "GET /catalog/single 200", "GET /catalog/cookie 200"])
        #expect(log.map { $0.headers?["x-api-version"] } == ["2", "1", "1"])
        #expect(log.map { $0.headers?["x-client"] } == ["fetchlog-tests", "fetchlog-tests", "fetchlog-tests"])
        #expect(log.map { $0.headers?["authorization"] } == ["Bearer b3arer", "Bearer b3arer", nil])
        #expect(log.map { $0.headers?["cookie"] } == [nil, nil, "session=" + CatalogAuthRoutes.cookie])
        // Recorded: the endpoint's header in the client's place; the cookie and the token masked.
        #expect(try events(rig).map { $0.request?.headers ?? [] } == [
            [Header("X-Api-Version", "2"), Header("X-Client", "fetchlog-tests"), Header("Authorization", "***")],
            [Header("X-Api-Version", "1"), Header("X-Client", "fetchlog-tests"), Header("Authorization", "***")],
            [Header("X-Api-Version", "1"), Header("X-Client", "fetchlog-tests"), Header("Cookie", "***")],
        ])
        await ManifestTests().stop(rig)
    }

    // MARK: oauth2_client_credentials

    static func oauthManifest(lifetime: Int = 60) -> String {
        #"""
        {"name":"catalog","client":{"base_url":"https://catalog.example"},
         "resources":[{"name":"guarded","primary_key":"id","endpoint":{"path":"guarded","data_selector":"data","paginator":"single_page",
          "auth":{"type":"oauth2_client_credentials","access_token_url":"https://catalog.example/oauth/token",
                  "client_id":"env:CATALOG_CLIENT_ID","client_secret":"env:CATALOG_CLIENT_SECRET",
                  "access_token_request_data":{"lifetime":\#(lifetime)}}}}]}
        """#
    }

    static let client = ["CATALOG_CLIENT_ID": CatalogAuthRoutes.clientID, "CATALOG_CLIENT_SECRET": CatalogAuthRoutes.clientSecret]

    /// Two fetches within the token's 60 s ask the token endpoint once; a third after the
    /// clock passes its expiry asks again. The token and the client secret are in no event
    /// and nowhere in the store's file.
    @Test func aTokenIsAskedOnceForItsLifetimeAndAgainAfterIt() async throws {
        let clock = FixedClock(Timestamp(milliseconds: 1_800_000_000_000))
        let rig = try await start(try Self.manifest(Self.oauthManifest()), environment: Self.client, clock: clock)
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "guarded")
        clock.advance(milliseconds: 59_000)
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "guarded")
        #expect(await requests(rig) == ["POST /catalog/oauth/token 200", "GET /catalog/guarded 200", "GET /catalog/guarded 304"])
        clock.advance(milliseconds: 1000)
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "guarded")
        #expect(await requests(rig) == ["POST /catalog/oauth/token 200", "GET /catalog/guarded 200", "GET /catalog/guarded 304",
                                        "POST /catalog/oauth/token 200", "GET /catalog/guarded 304"])
        let sent = await rig.upstream.server.requestLog.filter { $0.path == "/catalog/guarded" }.map { $0.headers?["authorization"] }
        #expect(sent == Array(repeating: "Bearer " + CatalogAuthRoutes.accessToken, count: 3))
        #expect(try ManifestTests().ids(rig, "guarded") == [7, 8, 9])
        // Only the resource's requests are events, the token masked.
        let recorded = try events(rig)
        #expect(recorded.map(\.label) == ["/guarded", "/guarded", "/guarded"])
        #expect(recorded.map { ($0.request?.headers ?? []).filter { $0.name == "Authorization" } } == Array(repeating: [Header("Authorization", "***")], count: 3))
        await ManifestTests().stop(rig)
        let data = try Data(contentsOf: URL(fileURLWithPath: rig.directory.path + "/data.mdb"))
        for secret in [CatalogAuthRoutes.accessToken, CatalogAuthRoutes.clientSecret] {
            #expect(data.range(of: Data(secret.utf8)) == nil, "\(secret) is in data.mdb")
        }
    }

    /// A 401 from the API with a held token (revoked before its time) drops it: the next
    /// fetch asks the token endpoint again instead of failing until the expiry.
    @Test func aTokenTheAPIRefusesIsAskedAgain() async throws {
        let rig = try await start(try Self.manifest(Self.oauthManifest(lifetime: 3600)), environment: Self.client)
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "guarded")
        await rig.upstream.server.setFaults([Fault(match: "/catalog/guarded", kind: .failNext(1, status: 401))])
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "guarded")
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "guarded")
        #expect(await requests(rig) == ["POST /catalog/oauth/token 200", "GET /catalog/guarded 200", "GET /catalog/guarded 401",
                                        "POST /catalog/oauth/token 200", "GET /catalog/guarded 304"])
        await ManifestTests().stop(rig)
    }

    /// A wrong client secret: the token endpoint's 401 and its OAuth error are named, the
    /// resource is not asked, nothing is recorded.
    @Test func aTokenEndpointThatRefusesIsNamedAndNothingIsRecorded() async throws {
        let rig = try await start(try Self.manifest(Self.oauthManifest()),
                                  environment: ["CATALOG_CLIENT_ID": CatalogAuthRoutes.clientID, "CATALOG_CLIENT_SECRET": "wr0ng"])
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: "guarded")
        #expect(reports.map(\.outcome) == [.failed(.httpStatus, "resources[0].endpoint.auth: the token endpoint \(rig.upstream.base)/catalog/oauth/token answered 401 "
                + "(invalid_client: unknown client or wrong secret), so there is no token: check the client_id and client_secret "
                + "(and access_token_request_data) it was given; the resource was not asked and nothing was recorded")])
        #expect(await requests(rig) == ["POST /catalog/oauth/token 401"])
        #expect(try rig.log.lastSeq() == 0)
        await ManifestTests().stop(rig)
    }

    /// A token endpoint that is down (503) is named with its status and not blamed on the
    /// client's secret.
    @Test func aTokenEndpointThatIsDownIsNamed() async throws {
        let rig = try await start(try Self.manifest(Self.oauthManifest()), environment: Self.client)
        await rig.upstream.server.setFaults([Fault(match: "/catalog/oauth/token", kind: .status(503))])
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: "guarded")
        #expect(reports.map(\.outcome) == [.failed(.httpStatus, "resources[0].endpoint.auth: the token endpoint \(rig.upstream.base)/catalog/oauth/token answered 503 "
                + "(injected fault), so there is no token: fetch again later (a token request is not retried); the resource was not asked and nothing was recorded")])
        #expect(await requests(rig) == ["POST /catalog/oauth/token 503"])
        #expect(try rig.log.lastSeq() == 0)
        await ManifestTests().stop(rig)
    }

    /// From the command line: `-v` names the token request on stderr (endpoint and status,
    /// never the form or the answer); the log holds the resource's event only; no output and
    /// no byte of the store holds the token or the client secret.
    @Test func theCommandLineNamesTheTokenRequestAndKeepsNoSecret() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("manifest-oauth-cli")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let store = dir.sub("store"), file = dir.sub("oauth.json")
        try Self.oauthManifest().write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await runFetchlog(["--store", store, "source", "add", file]).status == 0)
        let fetch = try await runFetchlog(["--store", store, "--upstream", upstream.base, "--retries", "0", "-v", "fetch", "catalog", "guarded"],
                                          environment: Self.client)
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(fetch.stderr.contains("token request") && fetch.stderr.contains("url=\(upstream.base)/catalog/oauth/token") && fetch.stderr.contains("status=200"),
                "\(fetch.stderr)")
        #expect(await upstream.server.requestLog.map { "\($0.method) \($0.path) \($0.status)" }
            == ["POST /catalog/oauth/token 200", "GET /catalog/guarded 200"])
        let logExport = try await runFetchlog(["--store", store, "log", "export"])
        let log = try EventLog.open(at: store)
        #expect(try log.lastSeq() == 2) // source.defined, then the one fetched page
        #expect(try log.event(at: 2)?.request?.headers == [Header("Authorization", "***")])
        log.close()
        let data = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
        for secret in [CatalogAuthRoutes.accessToken, CatalogAuthRoutes.clientSecret] {
            for text in [fetch.stdout, fetch.stderr, logExport.stdout] { #expect(!text.contains(secret)) }
            #expect(data.range(of: Data(secret.utf8)) == nil, "\(secret) is in data.mdb")
        }
        await upstream.stop()
    }

    /// dlt's `"auth": "api_key"` with none of its variables set: `source add` defines the
    /// source and says at once which variables the key is read from (dlt refuses the config
    /// then; Fetchlog reads secrets at fetch time, so the definition stands).
    @Test func sourceAddNamesAShorthandsUnsetSecret() async throws {
        let dir = TemporaryDirectory("manifest-shorthand-add")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let file = dir.sub("shorthand.json")
        try #"{"name":"invalid_config","client":{"base_url":"https://api.example.com","auth":"api_key"},"resources":["posts"]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let add = try await runFetchlog(["--store", dir.sub("store"), "source", "add", file])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout == "defined source invalid_config (1 resource: posts) at seq 1\n"
            + "note: client.auth.api_key is not written in the manifest, so it is read as dlt reads it, from SOURCES__REST_API__INVALID_CONFIG__CREDENTIALS__API_KEY "
            + "(or SOURCES__REST_API__CREDENTIALS__API_KEY, SOURCES__CREDENTIALS__API_KEY, CREDENTIALS__API_KEY), and none of them is set: set one, "
            + "or write \"api_key\": \"env:NAME\" in the manifest and set NAME, and fetch again; until then its fetches send nothing\n")
        let set = try await runFetchlog(["--store", dir.sub("store"), "source", "add", file], environment: ["CREDENTIALS__API_KEY": "k"])
        #expect(set.stdout == "redefined source invalid_config (1 resource: posts) at seq 2\n", "\(set.stdout)")
    }

    /// `"auth": "bearer"` reads its token as dlt does, from `CREDENTIALS__TOKEN` (the least
    /// specific of dlt's names); none set, the message names them all and nothing is sent.
    @Test func aShorthandsSecretComesFromDltsVariablesAndAMissingOneIsNamed() async throws {
        let text = #"{"name":"catalog","client":{"base_url":"https://catalog.example","auth":"bearer"},"resources":[{"name":"guarded","primary_key":"id","endpoint":{"path":"guarded","data_selector":"data","paginator":"single_page"}}]}"#
        let missing = try await start(try Self.manifest(text), environment: [:])
        let reports = try await missing.store.fetchManifestResource(source: "catalog", resource: "guarded")
        #expect(reports.map(\.outcome) == [.failed(.transport, "client.auth.token is not written in the manifest, so it is read as dlt reads it, "
                + "from SOURCES__REST_API__CATALOG__CREDENTIALS__TOKEN (or SOURCES__REST_API__CREDENTIALS__TOKEN, SOURCES__CREDENTIALS__TOKEN, CREDENTIALS__TOKEN), "
                + "and none of them is set: set one, or write \"token\": \"env:NAME\" in the manifest and set NAME, and fetch again; nothing was sent or recorded")])
        #expect(await requests(missing).isEmpty)
        await ManifestTests().stop(missing)

        let rig = try await start(try Self.manifest(text), environment: ["CREDENTIALS__TOKEN": CatalogAuthRoutes.accessToken])
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "guarded")
        #expect(await requests(rig) == ["GET /catalog/guarded 200"])
        #expect(try ManifestTests().ids(rig, "guarded") == [7, 8, 9])
        await ManifestTests().stop(rig)
    }
}
