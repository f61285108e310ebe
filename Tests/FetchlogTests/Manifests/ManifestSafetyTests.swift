@testable import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// Issue 28, items 9, 10, 15 and 16: what a manifest may hold and where it may send. A
/// manifest is data — stored in the log, merged in from other stores' logs — so it holds no
/// literal secret, its base meets the address policy of URLs named by bodies, a path it
/// defines can be fetched, and an unset `env:` variable sends and records nothing.
@Suite struct ManifestSafetyTests {
    static func parse(_ text: String) throws -> RestManifest {
        try RestManifest(json: try JSONValue.parse(bytes: Array(text.utf8)))
    }

    static func refusal(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch let error as ManifestError {
            return error.description
        } catch {
            return "\(error)"
        }
    }

    static func client(_ members: String) -> String {
        #"{"name":"catalog","client":{"base_url":"https://catalog.example"\#(members)},"resources":["a"]}"#
    }

    static func params(_ params: String, defaults: Bool = false) -> String {
        defaults
            ? #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resource_defaults":{"endpoint":{"params":\#(params)}},"resources":["a"]}"#
            : #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":[{"name":"a","endpoint":{"path":"a","params":\#(params)}}]}"#
    }

    static let literal = "write \"env:NAME\" and set NAME in the environment, since a literal secret would be stored in the log with the manifest"

    // MARK: Item 9: literal secrets

    /// Before: every one of these was accepted, and `source add` wrote the secret into the log.
    @Test func literalSecretsInHeadersParamsAndTheBaseAreRefusedNamingTheKeyPath() {
        let cases: [(String, String)] = [
            (Self.client(#","headers":{"Accept":"application/json","Authorization":"Bearer s3cret"}"#),
             "client.headers.Authorization: the header Authorization holds a secret: " + Self.literal),
            (Self.client(#","headers":{"X-Api-Key":"s3cret"}"#), "client.headers.X-Api-Key: the header X-Api-Key holds a secret: " + Self.literal),
            (Self.client(#","headers":{"X-Auth-Token":"s3cret"}"#), "client.headers.X-Auth-Token: the header X-Auth-Token holds a secret: " + Self.literal),
            (Self.client(#","headers":{"cookie":"session=s3cret"}"#), "client.headers.cookie: the header cookie holds a secret: " + Self.literal),
            (Self.client(#","headers":{"Client-Secret":"s3cret"}"#), "client.headers.Client-Secret: the header Client-Secret holds a secret: " + Self.literal),
            (Self.params(#"{"per_page":"50","api_key":"s3cret"}"#),
             "resources[0].endpoint.params.api_key: the parameter api_key holds a secret: " + Self.literal),
            (Self.params(#"{"Token":12345}"#), "resources[0].endpoint.params.Token: the parameter Token holds a secret: " + Self.literal),
            (Self.params(#"{"access_token":"s3cret"}"#, defaults: true),
             "resource_defaults.endpoint.params.access_token: the parameter access_token holds a secret: " + Self.literal + " (in resources[0], from resource_defaults)"),
            (Self.client(#","headers":{"X-Token":"env:"}"#),
             "client.headers.X-Token: \"env:\" does not name an environment variable: write env:NAME, NAME letters, digits and _ (not starting with a digit)"),
            (Self.params(#"{"key":"env:MY KEY"}"#),
             "resources[0].endpoint.params.key: \"env:MY KEY\" does not name an environment variable: write env:NAME, NAME letters, digits and _ (not starting with a digit)"),
            (#"{"name":"catalog","client":{"base_url":"https://alice:s3cret@catalog.example/v1"},"resources":["a"]}"#,
             "client.base_url: holds a user name or password (before @), which would be stored in the log with the manifest: remove it and write "
                + #"client.auth {"type": "http_basic", "username": …, "password": "env:NAME"} (or an api_key or bearer auth) with the secret in the environment"#),
            (#"{"name":"catalog","client":{"base_url":"https://t0ken@catalog.example"},"resources":["a"]}"#,
             "client.base_url: holds a user name or password (before @), which would be stored in the log with the manifest: remove it and write "
                + #"client.auth {"type": "http_basic", "username": …, "password": "env:NAME"} (or an api_key or bearer auth) with the secret in the environment"#),
        ]
        for (text, expected) in cases {
            let refusal = Self.refusal(text)
            #expect(refusal == expected, "\(text)")
            // The refusal never repeats the secret.
            #expect(refusal?.contains("s3cret") == false && refusal?.contains("t0ken") == false)
        }
    }

    /// What dlt's own config tests put in headers and params stays literal.
    @Test func ordinaryHeadersAndParamsStayLiteralAndEnvParamsStayOutOfTheLabel() throws {
        let manifest = try Self.parse(#"""
        {"name":"catalog","client":{"base_url":"https://api.example.com","headers":{"X-Test-Header":"test42","Accept":"application/json","User-Agent":"me"}},
         "resources":["issues",
                      {"name":"posts","endpoint":{"path":"posts","params":{"limit":100,"per_page":"50","org":"dlt-hub","sort":"updated","draft":false,
                                                                           "api_key":"env:POSTS_KEY"}}},
                      {"name":"comments","endpoint":{"path":"issues/{resources.issues.id}/comments","params":{"key":"{resources.issues.key}"}}}]}
        """#)
        #expect(manifest.headers.map(\.0) == ["X-Test-Header", "Accept", "User-Agent"])
        #expect(manifest.headers.map(\.1) == [.literal("test42"), .literal("application/json"), .literal("me")])
        let posts = try #require(manifest.resource("posts"))
        #expect(posts.label() == "/posts?limit=100&per_page=50&org=dlt-hub&sort=updated&draft=false")
        #expect(posts.secretParams.map(\.0) == ["api_key"])
        #expect(posts.secretParams.map(\.1) == [.environment("POSTS_KEY")])
        #expect(try #require(manifest.resource("comments")).label() == "/issues/{resources.issues.id}/comments?key=%7Bresources.issues.key%7D")

        let source = ManifestSource(manifest)
        let credentials = try source.credentials(for: source.kind(of: posts), environment: ["POSTS_KEY": "k3y"])
        #expect(credentials.query.map(\.0) == ["api_key"] && credentials.query.map(\.1) == ["k3y"])
        #expect(credentials.secretParameters == ["api_key"])
        #expect(credentials.headers == [Header("X-Test-Header", "test42"), Header("Accept", "application/json"), Header("User-Agent", "me")])
        #expect(credentials.secretHeaders.isEmpty)
        // Another resource has no such param.
        #expect(try source.credentials(for: source.kind(of: try #require(manifest.resource("issues"))), environment: [:]).query.isEmpty)
        do {
            _ = try source.credentials(for: source.kind(of: posts), environment: [:])
            Issue.record("credentials made without POSTS_KEY")
        } catch {
            #expect(error.description == "resources[1].endpoint.params.api_key reads the environment variable POSTS_KEY, which is not set: set it and fetch again")
        }
    }

    @Test func recordedHeadersAreMaskedByTheSameNameRule() {
        let recorded = Redaction().headers([Header("X-Api-Key", "a"), Header("x-auth-token", "b"), Header("Authorization", "c"),
                                            Header("Accept", "application/json"), Header("If-None-Match", "\"e\""), Header("X-Test-Header", "test42")])
        #expect(recorded == [Header("X-Api-Key", "***"), Header("x-auth-token", "***"), Header("Authorization", "***"),
                             Header("Accept", "application/json"), Header("If-None-Match", "\"e\""), Header("X-Test-Header", "test42")])
    }

    // MARK: Item 15: a path the envelope cannot label

    /// The envelope holds a label in 65535 bytes; 1024 are kept for paging, so a path (with
    /// its params) may take 64511. Before: any length was accepted, and every fetch failed
    /// with "label is too long for the envelope".
    @Test func aPathTooLongForTheEnvelopeIsRefusedAtDefinition() {
        func manifest(path: String, params: String = "{}") -> String {
            #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":[{"name":"a","endpoint":{"path":"\#(path)","params":\#(params)}}]}"#
        }
        // "/" and 64510 letters: exactly the room there is.
        #expect(Self.refusal(manifest(path: String(repeating: "p", count: 64510))) == nil)
        #expect(Self.refusal(manifest(path: String(repeating: "p", count: 64511)))
            == "resources[0].endpoint.path: the path is 64512 bytes; a request's label (its path and query) is at most 65535 bytes in the log, "
            + "and 64511 leaves room for paging, so this resource could never be fetched: shorten it")
        #expect(Self.refusal(manifest(path: String(repeating: "p", count: 10_000_000)))
            == "resources[0].endpoint.path: the path is 10000001 bytes; a request's label (its path and query) is at most 65535 bytes in the log, "
            + "and 64511 leaves room for paging, so this resource could never be fetched: shorten it")
        // Short path, long params: "/a?q=" and 64507 letters is 64512.
        #expect(Self.refusal(manifest(path: "a", params: #"{"q":"\#(String(repeating: "v", count: 64507))"}"#))
            == "resources[0].endpoint.params: the path with its params is 64512 bytes; a request's label (its path and query) is at most 65535 bytes in the log, "
            + "and 64511 leaves room for paging, so this resource could never be fetched: shorten it")
    }

    @Test func sourceAddRefusesATenMegabytePathAndWritesNothing() async throws {
        let dir = TemporaryDirectory("manifest-long-path")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let store = dir.sub("store")
        let file = dir.sub("long.json")
        let path = String(repeating: "p", count: 10_000_000)
        try #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":[{"name":"a","endpoint":{"path":"\#(path)"}}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let add = try await runFetchlog(["--store", store, "source", "add", file])
        #expect(add.status == 1)
        #expect(add.stderr.contains("long.json: resources[0].endpoint.path: the path is 10000001 bytes; a request's label (its path and query) is at most 65535 bytes"),
                "\(add.stderr.prefix(500))")
        let list = try await runFetchlog(["--store", store, "source", "list", "--format", "json"])
        #expect(list.stdout == "[]\n")
    }

    // MARK: Item 10: a manifest's base on a non-public address

    /// The address policy classifies every spelling of an address the resolver accepts: the
    /// decimal-integer, octal and hex forms of IPv4 and bracketed IPv6, without a packet sent.
    @Test func everySpellingOfANonPublicAddressIsClassified() async throws {
        func kind(_ url: String) async -> String? {
            let host = URLParts(url).host
            guard case .success(let addresses) = await AddressCheck.resolve(host), let first = addresses.first else { return "unresolved \(host)" }
            return AddressCheck.privateKind(of: first.bytes)
        }
        #expect(await kind("http://169.254.169.254/latest/meta-data") == "a link-local address")
        #expect(await kind("http://2852039166/latest/meta-data") == "a link-local address") // 169.254.169.254 as one integer
        #expect(await kind("http://0xa9fea9fe/") == "a link-local address")
        #expect(await kind("http://0251.0376.0251.0376/") == "a link-local address")
        #expect(await kind("http://0x7f.0.0.1:8080/") == "a loopback address")
        #expect(await kind("http://0177.0.0.1/") == "a loopback address")
        #expect(await kind("http://017700000001/") == "a loopback address")
        #expect(await kind("http://2130706433/") == "a loopback address")
        #expect(await kind("http://[fe80::1]/") == "a link-local address")
        #expect(await kind("http://[::1]:8080/") == "a loopback address")
        #expect(await kind("http://[::ffff:10.0.0.1]/") == "a private address")
        #expect(await kind("http://[::ffff:a9fe:a9fe]/") == "a link-local address")
        #expect(await kind("http://[fd12:3456::1]/") == "a unique-local (private) address")
        #expect(await kind("http://167772161/") == "a private address") // 10.0.0.1
        #expect(await kind("http://134744072/") == nil) // 8.8.8.8
    }

    /// Before: the manifest's loopback base was fetched without a word. Only loopback is
    /// reached: the other addresses are classified above.
    @Test func aManifestBaseOnLoopbackIsRefusedWithoutAllowPrivateHosts() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("manifest-private-base")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let store = dir.sub("store")
        let file = dir.sub("local.json")
        let base = upstream.base + "/catalog"
        try #"""
        {"name":"catalog","client":{"base_url":"\#(base)"},
         "resources":[{"name":"pages","primary_key":"id","endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}}]}
        """#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await runFetchlog(["--store", store, "source", "add", file]).status == 0)

        let refused = try await runFetchlog(["--store", store, "--retries", "0", "fetch", "catalog", "pages"])
        #expect(refused.status == 1)
        let message = "refused: \(base)/pages?page=1 leads to 127.0.0.1, a loopback address (127.0.0.1), and manifests' base URLs "
            + "(data: a manifest may come from another store's log) may reach public addresses only; nothing was sent. "
            + "Pass --allow-private-hosts (FetchConfiguration.allowPrivateHosts) to allow it, or fetch through --upstream"
        #expect(refused.stderr.contains("nothing usable came back: transport: " + message), "\(refused.stderr)")
        #expect(refused.stdout.hasSuffix("0 requests, 1 refused; 1 event appended (seq 2); 0 B of bodies\n"), "\(refused.stdout)")
        #expect(await upstream.asked.isEmpty)

        let allowed = try await runFetchlog(["--store", store, "--retries", "0", "--allow-private-hosts", "fetch", "catalog", "pages"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(await upstream.asked == ["/catalog/pages?page=1", "/catalog/pages?page=2", "/catalog/pages?page=3"])
        let export = try JSONValue.parse(bytes: Array(try await runFetchlog(["--store", store, "export", "items/catalog/pages"]).stdout.utf8))
        #expect(export["count"] == .number(12))
        await upstream.stop()
    }

    // MARK: Items 9 and 16: env: secrets in headers and params, and an unset one

    static let privateManifest = #"""
    {"name":"catalog","client":{"base_url":"https://catalog.example","headers":{"X-Token":"env:CATALOG_TOKEN","X-Client":"fetchlog-tests"}},
     "resources":[{"name":"private","primary_key":"id","endpoint":{"path":"private","params":{"key":"env:CATALOG_KEY"},"paginator":"single_page"}}]}
    """#

    /// Before: `key=env:CATALOG_KEY` was sent as it stands (`env%3ACATALOG_KEY`) and the
    /// upstream answered 401; an unset variable recorded a failed attempt and printed
    /// "1 request" though nothing was sent.
    @Test func envSecretsInHeadersAndParamsAreSentAndMaskedAndAnUnsetOneRecordsNothing() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("manifest-env-params")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let store = dir.sub("store")
        let file = dir.sub("private.json")
        try Self.privateManifest.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await runFetchlog(["--store", store, "source", "add", file]).status == 0)

        // CATALOG_KEY unset: which variable, no request, no event, no "1 request".
        let missing = try await runFetchlog(["--store", store, "--upstream", upstream.base, "--retries", "0", "fetch", "catalog", "private"],
                                            environment: ["CATALOG_TOKEN": "t0ken-s3cret"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "fetchlog: nothing usable came back: transport: resources[0].endpoint.params.key reads the environment variable CATALOG_KEY, "
            + "which is not set: set it and fetch again; nothing was sent or recorded\n", "\(missing.stderr)")
        #expect(missing.stdout == "0 requests; 0 events appended; 0 B of bodies\n", "\(missing.stdout)")
        #expect(await upstream.asked.isEmpty)
        let before = try EventLog.open(at: store)
        #expect(try before.lastSeq() == 1) // the source.defined event only
        before.close()

        let secrets = ["CATALOG_TOKEN": "t0ken-s3cret", "CATALOG_KEY": "k3y-s3cret"]
        let fetch = try await runFetchlog(["--store", store, "--upstream", upstream.base, "--retries", "0", "-v", "fetch", "catalog", "private"],
                                          environment: secrets)
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(await upstream.asked == ["/catalog/private?key=k3y-s3cret"])
        let items = try await runFetchlog(["--store", store, "export", "items/catalog/private"])
        #expect(items.stdout.contains(#""count":2"#), "\(items.stdout)")
        let log = try EventLog.open(at: store)
        let event = try #require(try log.event(at: 2))
        log.close()
        #expect(event.label == "/private")
        #expect(event.request?.url == upstream.base + "/catalog/private?key=***")
        // The manifest as recorded (canonical JSON) lists its headers by name.
        #expect(event.request?.headers == [Header("X-Client", "fetchlog-tests"), Header("X-Token", "***")])
        let logExport = try await runFetchlog(["--store", store, "log", "export"])
        let data = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
        for secret in secrets.values {
            for text in [fetch.stdout, fetch.stderr, items.stdout, logExport.stdout, missing.stdout, missing.stderr] { #expect(!text.contains(secret)) }
            #expect(data.range(of: Data(secret.utf8)) == nil, "\(secret) is in data.mdb")
        }
        await upstream.stop()
    }

    /// A redirect to another origin drops every header named as a secret, not only
    /// Authorization and Cookie: before, the manifest's `X-Token` went to the second server.
    @Test func aRedirectElsewhereDropsTheManifestsSecretHeaders() async throws {
        let first = try await CatalogUpstream.start()
        let second = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("manifest-redirect-secrets")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let store = dir.sub("store"), file = dir.sub("private.json")
        try Self.privateManifest.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await runFetchlog(["--store", store, "source", "add", file]).status == 0)
        await first.server.setFaults([Fault(match: "/catalog/private", kind: .redirect(302, location: second.base + "/catalog/private"))])
        let fetch = try await runFetchlog(["--store", store, "--upstream", first.base, "--retries", "0", "--allow-private-hosts", "fetch", "catalog", "private"],
                                          environment: ["CATALOG_TOKEN": "t0ken-s3cret", "CATALOG_KEY": "k3y-s3cret"])
        #expect(fetch.status == 1) // the second server wants the token it was not given
        let asked = await first.server.requestLog, followed = await second.server.requestLog
        #expect(asked.map(\.status) == [302])
        #expect(asked.first?.headers?["x-token"] == "t0ken-s3cret")
        #expect(followed.map(\.status) == [401])
        #expect(followed.first?.headers?["x-token"] == nil)
        #expect(followed.first?.headers?["x-client"] == "fetchlog-tests")
        await first.stop()
        await second.stop()
    }
}
