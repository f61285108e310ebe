import Foundation
import Hummingbird
import NIOCore
import Synchronization
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Issue 37, item 4: `must-revalidate` and `no-cache` — once stale, no answer from the held
/// body while the upstream can be asked. Opening such a view waits for its revalidation
/// (offline-first otherwise answers at once and revalidates behind); when the upstream
/// cannot be asked, the held body answers, saying why. Real HTTP on loopback, real LMDB,
/// an injected clock.
@Suite struct MustRevalidateTests {
    static let manifest = #"{"name":"feed","client":{"base_url":"https://feed.example"},"resources":["#
        + #"{"name":"posts","endpoint":{"path":"posts","paginator":"single_page"},"primary_key":"id"}]}"#

    /// The clock runs behind the server's: the server's `Date` (real time) is later than
    /// the recorded times, so the response's apparent age (§4.2.3) is zero, as on a machine
    /// whose clock agrees with its upstream's.
    @Test func aStaleMustRevalidateBodyIsRevalidatedBeforeItAnswers() async throws {
        // Each answer is a new version: the view shows which one it was opened on.
        let version = Atomic<Int>(0)
        let router = Router()
        router.get("/feed/posts") { _, _ in
            let n = version.add(1, ordering: .sequentiallyConsistent).newValue
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "max-age=60, must-revalidate"],
                            body: .init(byteBuffer: ByteBuffer(string: #"[{"id":1,"version":\#(n)}]"#)))
        }
        let server = try await LoopbackServer.start(router, label: "must-revalidate-upstream")
        let directory = TemporaryDirectory("must-revalidate")
        let log = try EventLog.open(at: directory.path)
        let clock = FixedClock(Timestamp(milliseconds: 1_795_000_000_000))
        var configuration = FetchHarness.patientConfiguration(base: server.base)
        configuration.clock = clock
        let fetcher = Fetcher(sources: .seed, configuration: configuration)
        let store = try Store(log: log, sources: .seed, fetcher: fetcher, clock: clock)
        try await store.define(RestManifest(json: JSONValue.parse(Self.manifest)))
        let posts = Resource(source: Source("feed"), path: "/posts", document: DocumentKind("feed.posts"))
        let policy = OfflineFirst(store: store, clock: clock)
        func shown() throws -> JSONValue? {
            try ViewCatalog.export("items/feed/posts", state: store.snapshot.state)["items"]?.arrayValue?.first?["version"]
        }

        // Nothing held: opening fetches (and waits, as for any missing body).
        try await policy.open(posts)
        await policy.waitForBackgroundWork()
        #expect(try shown() == .number(1))
        // Fresh for its minute: answered from what is held, nothing asked.
        clock.set(Timestamp(milliseconds: 1_795_000_059_000))
        try await policy.open(posts)
        #expect(version.load(ordering: .sequentiallyConsistent) == 1)
        // Stale: the answer waits for the revalidation, so it is the upstream's new version.
        clock.set(Timestamp(milliseconds: 1_795_000_061_000))
        let opened = try await policy.open(posts)
        #expect(opened.freshness.level == .fresh)
        #expect(try shown() == .number(2))
        #expect(version.load(ordering: .sequentiallyConsistent) == 2)

        // The upstream gone: the held body answers, and the warning says why.
        await server.stop()
        clock.set(Timestamp(milliseconds: 1_795_000_200_000))
        let offline = try await policy.open(posts)
        #expect(offline.freshness.level == .stale)
        #expect(try shown() == .number(2))
        let warning = try #require(policy.warning(for: posts, named: "posts"))
        #expect(warning.hasPrefix("offline: "), "\(warning)")
        #expect(warning.hasSuffix("— posts last updated 2m ago"), "\(warning)")
        await fetcher.shutdown()
        log.close()
    }
}
