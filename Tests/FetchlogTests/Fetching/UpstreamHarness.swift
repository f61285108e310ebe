import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import SampleUpstream
import ServiceLifecycle
@testable import FetchlogCore
@testable import FetchlogSources

/// A started sample upstream, a fresh store and a fetcher aimed at the upstream.
struct FetchHarness {
    let upstream: SampleUpstream
    let base: String
    let log: EventLog
    let fetcher: Fetcher
    /// The store over `log` with `fetcher`: fetches go through it (it supplies validators).
    let store: Store
    let directory: TemporaryDirectory

    static func start(faults: [Fault] = [], retries: Int = 3, readTimeout: Duration = .seconds(120),
                      retryAfterCap: Duration = .seconds(30)) async throws -> FetchHarness {
        var configuration = SampleUpstreamConfiguration()
        configuration.faults = faults
        let upstream = try SampleUpstream(configuration: configuration)
        let url = try await upstream.start()
        let directory = TemporaryDirectory("fetch")
        let log = try EventLog.open(at: directory.path)
        let fetcher = Fetcher(sources: .seed, configuration: fetchConfiguration(base: url.absoluteString, retries: retries,
                                                                           readTimeout: readTimeout, retryAfterCap: retryAfterCap))
        let store = try Store(log: log, sources: .seed, fetcher: fetcher, clock: fetcher.configuration.clock)
        return FetchHarness(upstream: upstream, base: url.absoluteString, log: log, fetcher: fetcher, store: store, directory: directory)
    }

    /// For tests that count requests exactly: no retries (a retry would be one more
    /// request), and timeouts long enough that the full suite's load on two cores never
    /// trips them (it was seen to stretch a loopback answer past the usual 2 s connect).
    static func patientConfiguration(base: String) -> FetchConfiguration {
        var configuration = fetchConfiguration(base: base, retries: 0, readTimeout: .seconds(60))
        configuration.connectTimeout = .seconds(30)
        return configuration
    }

    static func fetchConfiguration(base: String, retries: Int = 3, readTimeout: Duration = .seconds(120),
                                   retryAfterCap: Duration = .seconds(30)) -> FetchConfiguration {
        var configuration = FetchConfiguration()
        configuration.upstream = Upstream(base: base)
        configuration.retry.retries = retries
        configuration.retry.baseDelay = .milliseconds(10)
        configuration.retry.retryAfterCap = retryAfterCap
        configuration.readTimeout = readTimeout
        // Generous: the full suite on two cores was seen to stall loopback answers for over
        // 10 s, and a first page once failed in CI at 15 s (connect) and 30 s (read) and was
        // retried, which added an event a test counts. Tests of the timeouts themselves set
        // short ones explicitly.
        configuration.connectTimeout = .seconds(120)
        // A whole attempt and a body's pace as wide: the default 60 s deadline was seen to
        // end a loopback fetch under the suite's load (a test of 136 s), whose retry added
        // an event. Tests of the deadline and the minimum rate set their own.
        configuration.deadline = .seconds(600)
        configuration.minimumRate = .off
        configuration.clock = FixedClock(fixedTime)
        return configuration
    }

    func stop() async {
        await fetcher.shutdown()
        await upstream.stop()
    }

    /// All events of the log, in order.
    func events() throws -> [Event] { try log.events(from: 1) }

    /// The bytes the upstream serves at `path`, fetched directly (not through Fetchlog).
    func served(_ path: String) async throws -> [UInt8] {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let response = try await client.execute(HTTPClientRequest(url: base + path), timeout: .seconds(5))
            let body = try await response.body.collect(upTo: 64 << 20)
            try await client.shutdown()
            return Array(body.readableBytesView)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}

enum Fixture {
    static let directory = Repo.root + "/Tools/SampleUpstream/Sources/SampleUpstream/Fixtures/"
    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + name)))
    }
}

/// A different server, written here, that follows the addressing rule with its own data.
struct OtherUpstream {
    let server: LoopbackServer
    var base: String { server.base }

    static let census = #"{"Brastlewark":[{"id":0,"name":"Zed Quill","thumbnail":"http://example.org/z.jpg","age":12,"weight":30.5,"height":90.25,"hair_color":"Red","professions":["Baker"],"friends":["Ada Byte"]},{"id":1,"name":"Ada Byte","thumbnail":"http://example.org/a.jpg","age":40,"weight":41.0,"height":101.5,"hair_color":"Gray","professions":[" Tinker"],"friends":[]}]}"#
    static let shows = #"[{"id":7,"name":"Only Show","premiered":"2001-02-03","genres":["Drama"],"summary":"<p>One.</p>","status":"Ended","rating":{"average":7},"image":null}]"#

    static func start() async throws -> OtherUpstream {
        let router = Router()
        router.get("/brastlewark/data.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json", .eTag: "\"other-census\""],
                     body: .init(byteBuffer: ByteBuffer(string: census)))
        }
        router.get("/tvmaze/shows") { request, _ in
            let page = request.uri.queryParameters.get("page", as: Int.self) ?? 0
            if page > 0 { return Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "{}"))) }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: shows)))
        }
        let server = try await LoopbackServer.start(router, label: "other-upstream")
        return OtherUpstream(server: server)
    }

    func stop() async { await server.stop() }
}
