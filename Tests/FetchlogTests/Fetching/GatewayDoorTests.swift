@testable import FetchlogCore
import FetchlogSources
import Foundation
import SampleUpstream
import Testing

/// Issue 33, item 2: every request that leaves the machine goes through the one gateway,
/// under one policy — a door at a time: a fetch, the writes (`add`, `set`, `delete` and the
/// push that sends them), an OAuth 2.0 token request, an asset. Each is refused when a
/// manifest's base is a non-public address (here loopback, with no `--upstream`), and sent
/// with `allowPrivateHosts`; an answer that drips ends at the deadline; an answer over the
/// configured body limit is a failure with its reason, never a success. Before the gateway,
/// the push and the token request had their own `client.execute`: the push reached a
/// loopback base, held on to a dripping answer past the deadline and recorded an answer cut
/// at a fixed 16 MiB as `confirmed`.
@Suite struct GatewayDoorTests {
    /// The catalog's notes and their writes, the manifest's base the sample upstream itself
    /// (a loopback address, as data: no `--upstream`).
    static func manifest(base: String) -> String {
        #"{"name":"catalog","client":{"base_url":"\#(base)/catalog"},"resources":["# + OfflineWritesTests.notes + "]}"
    }

    /// A store over the catalog at `base` (no upstream), with the policy's settings.
    static func open(_ dir: TemporaryDirectory, base: String, allowPrivateHosts: Bool, deadline: Duration = .seconds(60),
                     maxBodyBytes: Int = 256 << 20, environment: [String: String] = [:]) async throws -> Store {
        var configuration = Store.Configuration()
        configuration.fetching.upstream = .real
        configuration.fetching.retry.retries = 0
        configuration.fetching.allowPrivateHosts = allowPrivateHosts
        configuration.fetching.deadline = deadline
        configuration.fetching.maxBodyBytes = maxBodyBytes
        configuration.fetching.environment = environment
        return try await Store.open(at: URL(filePath: dir.sub("store")), sources: SourceRegistry([]), configuration: configuration)
    }

    /// The refusal of a request to `url` on the sample upstream (loopback), as the gateway says it.
    static func refusal(_ url: String) -> String {
        "refused: \(url) leads to 127.0.0.1, a loopback address (127.0.0.1), and manifests' base URLs (data: a manifest may come "
            + "from another store's log) may reach public addresses only; nothing was sent. Pass FetchConfiguration.allowPrivateHosts "
            + "to allow it, or fetch through FetchConfiguration.upstream"
    }

    /// A store that has the notes (fetched with private hosts allowed), closed again.
    static func storeHoldingTheNotes(_ name: String) async throws -> (CatalogUpstream, TemporaryDirectory) {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory(name)
        let store = try await open(dir, base: upstream.base, allowPrivateHosts: true)
        try await store.define(try RestManifest(json: try JSONValue.parse(manifest(base: upstream.base))))
        let reports = try await store.fetchManifestResource(source: "catalog", resource: "notes")
        #expect(reports.map(\.outcome) == [.fetched])
        await store.close()
        return (upstream, dir)
    }

    /// Fetch, add, set, delete and push: refused without `allowPrivateHosts` (nothing reaches
    /// the server, the changes wait paused with the reason), sent once with it.
    @Test func fetchesAndWritesToANonPublicBaseAreRefusedUnlessAllowed() async throws {
        let (upstream, dir) = try await Self.storeHoldingTheNotes("gateway-private")
        let notesURL = "\(upstream.base)/catalog/notes"
        let before = await upstream.server.requestLog.count

        let strict = try await Self.open(dir, base: upstream.base, allowPrivateHosts: false)
        let fetched = try await strict.fetchManifestResource(source: "catalog", resource: "notes")
        #expect(fetched.map(\.outcome) == [.failed(.transport, Self.refusal(notesURL))])
        let add = try await strict.write(.create, source: "catalog", resource: "notes", fields: [("title", .string("buy bread"))]).seq
        let set = try await strict.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("priority", .number(4))]).seq
        let delete = try await strict.write(.delete, source: "catalog", resource: "notes", key: "2", fields: []).seq
        let refused = try await strict.push()
        #expect(refused.paused == [add, set, delete])
        #expect(refused.confirmed.isEmpty)
        #expect(refused.lines == [
            "\(add) POST /notes: paused — \(Self.refusal(notesURL))",
            "\(set) PATCH /notes/1: paused — \(Self.refusal(notesURL + "/1"))",
            "\(delete) DELETE /notes/2: paused — \(Self.refusal(notesURL + "/2"))",
        ])
        #expect(await upstream.server.requestLog.count == before)
        #expect(await upstream.server.appliedWrites.isEmpty)
        #expect(strict.pendingMutations.map(\.seq) == [add, set, delete])
        await strict.close()

        let allowed = try await Self.open(dir, base: upstream.base, allowPrivateHosts: true)
        let sent = try await allowed.push()
        #expect(sent.confirmed == [add, set, delete])
        #expect(await upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.status)" } == [
            "POST /catalog/notes 201", "PATCH /catalog/notes/1 200", "DELETE /catalog/notes/2 204",
        ])
        #expect(allowed.pendingMutations.isEmpty)
        await allowed.close()
        await upstream.stop()
    }

    /// A write whose answer drips ends at the deadline: a failure (the server applied it; the
    /// answer never came whole), the change still pending, sent again by the next push.
    @Test func aWriteWhoseAnswerDripsEndsAtTheDeadline() async throws {
        let (upstream, dir) = try await Self.storeHoldingTheNotes("gateway-drip")
        await upstream.server.setFaults([Fault(match: "/catalog/notes", kind: .slowDrip(milliseconds: 200))])
        let store = try await Self.open(dir, base: upstream.base, allowPrivateHosts: true, deadline: .seconds(2))
        let add = try await store.write(.create, source: "catalog", resource: "notes", fields: [("title", .string("buy bread"))]).seq
        let report = try await store.push()
        #expect(report.failed == [add])
        #expect(report.confirmed.isEmpty)
        let line = try #require(report.lines.first)
        #expect(line.hasPrefix("\(add) POST /notes: failed — HTTP 201, the attempt ran past its deadline of 2 s (headers and body) after "), "\(line)")
        #expect(await upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.status)" } == ["POST /catalog/notes 201"])
        #expect(store.pendingMutations.map(\.seq) == [add])
        await store.close()
        await upstream.stop()
    }

    /// An answer over the configured body limit is a failure with its reason — never
    /// `confirmed` with no item (which made the item vanish from the view).
    @Test func aWriteAnswerOverTheBodyLimitIsAFailure() async throws {
        let (upstream, dir) = try await Self.storeHoldingTheNotes("gateway-limit")
        let store = try await Self.open(dir, base: upstream.base, allowPrivateHosts: true, maxBodyBytes: 16)
        let add = try await store.write(.create, source: "catalog", resource: "notes", fields: [("title", .string("buy bread"))]).seq
        let report = try await store.push()
        #expect(report.failed == [add])
        #expect(report.lines == ["\(add) POST /notes: failed — HTTP 201, body larger than the 16-byte limit; cut off "
            + "(raise FetchConfiguration.maxBodyBytes if the upstream's answers are that large)"])
        #expect(store.pendingMutations.map(\.seq) == [add])
        // Still shown, pending, with the fields the user gave.
        let item = try #require(ItemsView(state: store.snapshot.state, source: "catalog", resource: "notes")?.item(key: "local:\(add)"))
        #expect(item["title"] == .string("buy bread"))
        #expect(item["pending"]?.canonicalText() == #"{"mutations":[\#(add)],"state":"failed"}"#)
        await store.close()
        await upstream.stop()
    }

    // MARK: The token request

    static func oauthManifest(base: String) -> String {
        #"""
        {"name":"catalog","client":{"base_url":"\#(base)/catalog"},
         "resources":[{"name":"guarded","primary_key":"id","endpoint":{"path":"guarded","data_selector":"data","paginator":"single_page",
          "auth":{"type":"oauth2_client_credentials","access_token_url":"\#(base)/catalog/oauth/token",
                  "client_id":"env:CATALOG_CLIENT_ID","client_secret":"env:CATALOG_CLIENT_SECRET"}}}]}
        """#
    }

    static func openGuarded(_ dir: TemporaryDirectory, upstream: CatalogUpstream, allowPrivateHosts: Bool, deadline: Duration = .seconds(60),
                            maxBodyBytes: Int = 256 << 20) async throws -> Store {
        let store = try await open(dir, base: upstream.base, allowPrivateHosts: allowPrivateHosts, deadline: deadline, maxBodyBytes: maxBodyBytes,
                                   environment: ManifestAuthTests.client)
        try await store.define(try RestManifest(json: try JSONValue.parse(oauthManifest(base: upstream.base))))
        return store
    }

    /// The token endpoint a manifest names is under the address policy, the deadline and
    /// the body limit, as the resource is.
    @Test func theTokenRequestIsUnderThePolicy() async throws {
        let upstream = try await CatalogUpstream.start()
        let tokenURL = "\(upstream.base)/catalog/oauth/token"
        let prefix = "resources[0].endpoint.auth: the token endpoint \(tokenURL)"
        func outcome(_ name: String, allow: Bool, deadline: Duration = .seconds(60), maxBodyBytes: Int = 256 << 20) async throws -> FetchReport.Outcome? {
            let dir = TemporaryDirectory(name)
            let store = try await Self.openGuarded(dir, upstream: upstream, allowPrivateHosts: allow, deadline: deadline, maxBodyBytes: maxBodyBytes)
            let reports = try await store.fetchManifestResource(source: "catalog", resource: "guarded")
            await store.close()
            return reports.first?.outcome
        }
        #expect(try await outcome("gateway-token-strict", allow: false) == .failed(.transport,
            "\(prefix): \(Self.refusal(tokenURL)); the resource was not asked and nothing was recorded"))
        #expect(await upstream.server.requestLog.isEmpty)

        #expect(try await outcome("gateway-token-allowed", allow: true) == .fetched)
        #expect(await upstream.server.requestLog.map { "\($0.method) \($0.path) \($0.status)" } == [
            "POST /catalog/oauth/token 200", "GET /catalog/guarded 200",
        ])

        let limited = try await outcome("gateway-token-limit", allow: true, maxBodyBytes: 8)
        #expect(limited == .failed(.truncated, "\(prefix) could not be asked: body larger than the 8-byte limit; cut off "
            + "(raise FetchConfiguration.maxBodyBytes if the upstream's answers are that large); "
            + "the resource was not asked and nothing was recorded"))

        await upstream.server.setFaults([Fault(match: "/catalog/oauth/token", kind: .slowDrip(milliseconds: 200))])
        let dripped = try await outcome("gateway-token-drip", allow: true, deadline: .seconds(2))
        guard case .failed(.timeout, let message)? = dripped else {
            Issue.record("expected a timeout, got \(String(describing: dripped))")
            return
        }
        #expect(message.hasPrefix("\(prefix) could not be asked: the attempt ran past its deadline of 2 s (headers and body) after "), "\(message)")
        // The resource itself was never asked after the token failures.
        #expect(await upstream.server.requestLog.filter { $0.path == "/catalog/guarded" }.count == 1)
        await upstream.stop()
    }

    // MARK: Assets, and a fetch over the limit

    /// An asset (an image a body names) is under the deadline and the body limit as data is:
    /// over the limit, a `truncated` failure naming it; a dripping one, a `timeout` at the
    /// deadline. And a data fetch over the limit is the same failure, never a `fetched`.
    @Test func assetsAndFetchesAreUnderTheDeadlineAndTheBodyLimit() async throws {
        let h = try await FetchHarness.start(retries: 0)
        let asset = "https://" + FetchSafetyTests.asset
        let limit = "body larger than the 100-byte limit; cut off (raise FetchConfiguration.maxBodyBytes if the upstream's answers are that large)"
        func store(maxBodyBytes: Int = 256 << 20, deadline: Duration = .seconds(60)) throws -> (Store, Fetcher) {
            var configuration = FetchHarness.fetchConfiguration(base: h.base, retries: 0)
            configuration.maxBodyBytes = maxBodyBytes
            configuration.deadline = deadline
            let fetcher = Fetcher(sources: .seed, configuration: configuration)
            return (try Store(log: h.log, sources: .seed, fetcher: fetcher), fetcher)
        }
        let (small, smallFetcher) = try store(maxBodyBytes: 100)
        #expect(try await small.fetch(.asset(asset)).outcome == .failed(.truncated, limit))
        #expect(try await small.fetch(.tvmazeShowsPage(0)).outcome == .failed(.truncated, limit))
        await smallFetcher.shutdown()

        await h.upstream.setFaults([Fault(match: "/assets", kind: .slowDrip(milliseconds: 200))])
        let (slow, slowFetcher) = try store(deadline: .seconds(2))
        let dripped = try await slow.fetch(.asset(asset)).outcome
        guard case .failed(.timeout, let message) = dripped else {
            Issue.record("expected a timeout, got \(dripped)")
            return
        }
        #expect(message.hasPrefix("the attempt ran past its deadline of 2 s (headers and body) after "), "\(message)")
        await slowFetcher.shutdown()
        #expect(try h.events().map(\.kind) == [.fetchFailed, .fetchFailed, .fetchFailed])
        await h.stop()
    }
}
