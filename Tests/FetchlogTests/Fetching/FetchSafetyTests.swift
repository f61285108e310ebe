import Foundation
import Hummingbird
import Logging
import NIOCore
import SampleUpstream
import ServiceLifecycle
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Issue 13, items 2, 4 and 5: slow-drip upstreams, where requests may go, secrets in the log.
/// Real HTTP on loopback against the sample upstream (and a second one, or a unix socket).
@Suite(.serialized) struct FetchSafetyTests {
    static let censusPath = "/brastlewark/data.json"
    static let asset = "static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg"

    static func configuration(base: String?, retries: Int = 0) -> FetchConfiguration {
        var configuration = FetchHarness.fetchConfiguration(base: base ?? "", retries: retries)
        configuration.upstream = Upstream(base: base)
        return configuration
    }

    // MARK: Item 2: deadline and minimum rate

    /// Before: the body's bytes kept the read timeout from firing and AsyncHTTPClient's
    /// deadline covers only the headers, so this fetch never ended.
    @Test func slowDripEndsAtTheDeadlineWithOneTimeoutEvent() async throws {
        let h = try await FetchHarness.start(faults: [Fault(match: "/brastlewark", kind: .slowDrip(milliseconds: 20))])
        defer { Task { await h.stop() } }
        var configuration = Self.configuration(base: h.base)
        // 20 s: the headers come first, and under the full suite on two cores they were seen
        // to take over 3 s to arrive, and (session 9, with the damaged-store and 200 MB
        // stream suites beside it) over 8 s; the body, at 50 bytes/s, would take over 2 hours.
        configuration.deadline = .seconds(20)
        configuration.minimumRate = .off
        let fetcher = Fetcher(sources: .seed, configuration: configuration)
        let started = ContinuousClock.now
        let report = try await Store(log: h.log, sources: .seed, fetcher: fetcher).fetch(.brastlewarkCensus)
        let elapsed = ContinuousClock.now - started
        await fetcher.shutdown()
        let census = try Fixture.bytes("brastlewark/census.json")
        let events = try h.events()
        #expect(events.count == 1)
        #expect(report.attempts.count == 1)
        let event = try #require(events.first)
        let partial = try #require(event.body)
        // Not before the deadline; how soon after it is held by `cliDeadlineEndsASlowDripFetch`,
        // where the fetch runs in a process of its own. Here, with every other suite beside it
        // on two cores, no upper bound is asserted (the deadline's timer was seen to fire over
        // 1.5 s late): what this test holds is that the deadline ends the attempt at all — the
        // body alone would take over 2 hours, so a missing deadline hangs the test rather
        // than passing it — and the message below says the deadline is what ended it.
        let attempt = Duration.microseconds(Int64(try #require(event.durationMicros)))
        #expect(attempt >= .seconds(20), "the attempt took \(attempt), less than the 20 s deadline")
        #expect(elapsed >= attempt, "the fetch took \(elapsed), less than its attempt")
        #expect(event.kind == .fetchFailed)
        #expect(event.failure?.failureClass == .timeout)
        #expect(event.failure?.message == "the attempt ran past its deadline of 20 s (headers and body) after \(partial.count) of \(census.count) body bytes; "
            + "raise FetchConfiguration.deadline if the upstream is only slow")
        // At most 50 bytes/s for 20 s (fewer, even none, when the machine is so loaded that
        // the reader is not scheduled before the deadline): a partial body, byte for byte
        // what was sent.
        #expect(partial.count <= 1050)
        #expect(partial == Array(census.prefix(partial.count)))
        #expect(event.response?.status == 200)
    }

    @Test func slowDripBelowTheMinimumRateEndsAfterOneWindow() async throws {
        let h = try await FetchHarness.start(faults: [Fault(match: "/brastlewark", kind: .slowDrip(milliseconds: 20))])
        defer { Task { await h.stop() } }
        var configuration = Self.configuration(base: h.base)
        configuration.deadline = .seconds(60)
        configuration.minimumRate = MinimumRate(bytesPerSecond: 1024, window: .seconds(2))
        let fetcher = Fetcher(sources: .seed, configuration: configuration)
        let started = ContinuousClock.now
        _ = try await Store(log: h.log, sources: .seed, fetcher: fetcher).fetch(.brastlewarkCensus)
        let elapsed = ContinuousClock.now - started
        await fetcher.shutdown()
        let events = try h.events()
        // The first check is a full window after the headers (then every 100 ms); the whole
        // call also appends the event (see above).
        let attempt = Duration.microseconds(Int64(try #require(events.first?.durationMicros)))
        // Not before one window after the headers; no upper bound in the loaded test process
        // (see the deadline test above). The message says the rate, not the 60 s deadline,
        // ended it.
        #expect(attempt >= .seconds(2), "the attempt took \(attempt), less than one 2 s window")
        #expect(elapsed >= attempt, "the fetch took \(elapsed), less than its attempt")
        #expect(events.count == 1)
        let message = try #require(events.first?.failure?.message)
        #expect(events.first?.failure?.failureClass == .timeout)
        #expect(message.hasPrefix("the body arrived at "))
        #expect(message.contains(" bytes/s over the last 2"))
        #expect(message.contains("below the minimum rate of 1024 bytes/s, after \(events.first?.body?.count ?? -1) of "))
        #expect(message.hasSuffix("lower FetchConfiguration.minimumRate (0 turns the check off) if the upstream is only slow"))
        #expect(!message.contains("deadline"))
    }

    /// The options as a user gives them, before the subcommand; the process exits.
    @Test func cliDeadlineEndsASlowDripFetch() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration(faults: [Fault(match: "/brastlewark", kind: .slowDrip(milliseconds: 20))]))
        let base = try await upstream.start().absoluteString
        defer { Task { await upstream.stop() } }
        let dir = TemporaryDirectory("cli-drip")
        let started = ContinuousClock.now
        let result = try await runFetchlog(["--store", dir.path, "--upstream", base, "--deadline", "2", "--min-rate", "0", "--retries", "0",
                                            "fetch", "brastlewark", "census"])
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("fetchlog: nothing usable came back: timeout: the attempt ran past its deadline of 2 s (headers and body) after "))
        // The deadline is the behaviour here, in a process of its own, with a wide margin:
        // 2 s + 50 % for the attempt as recorded, and room for a debug build's start and the
        // event's fsync on a loaded machine for the whole command.
        #expect(elapsed < .seconds(15), "the command took \(elapsed)")
        let log = try EventLog.open(at: dir.path)
        let events = try log.events(from: 1)
        #expect(events.map(\.kind) == [.fetchFailed])
        let attempt = Duration.microseconds(Int64(try #require(events.first?.durationMicros)))
        #expect(attempt >= .seconds(2) && attempt <= .seconds(3), "the attempt took \(attempt)")
        let invalid = try await runFetchlog(["--store", dir.path, "fetch", "brastlewark", "census", "--min-rate=-1"])
        #expect(invalid.status == 64)
        #expect(invalid.stderr.contains("--min-rate takes bytes per second from 0 to 1073741824"))
    }

    // MARK: Item 4: redirects, schemes, addresses

    /// Before: AsyncHTTPClient followed the 302 itself and forwarded If-None-Match (and the
    /// credentials) to the second server, which answered 304; the event named only the first URL.
    @Test func redirectToASecondServerDropsValidatorsAndCredentialsAndRecordsTheHop() async throws {
        let first = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let firstBase = try await first.start().absoluteString
        let second = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let secondBase = try await second.start().absoluteString
        defer { Task { await first.stop(); await second.stop() } }
        let port = try #require(URL(string: firstBase)?.port)
        let dir = TemporaryDirectory("redirect")
        let log = try EventLog.open(at: dir.path)
        var configuration = Self.configuration(base: "http://alice:S3cret@127.0.0.1:\(port)")
        configuration.allowPrivateHosts = true // the second server is on loopback too
        let fetcher = Fetcher(sources: .seed, configuration: configuration)
        defer { Task { await fetcher.shutdown() } }
        // Through the store, which supplies the held body's validators.
        let store = try Store(log: log, sources: .seed, fetcher: fetcher)

        #expect(try await store.fetch(.brastlewarkCensus).outcome == .fetched)
        let etag = try #require(try log.event(at: 1)?.response?.header("ETag"))
        let modified = try #require(try log.event(at: 1)?.response?.header("Last-Modified"))
        await first.setFaults([Fault(match: "/brastlewark", kind: .redirect(302, location: secondBase + Self.censusPath))])
        let report = try await store.fetch(.brastlewarkCensus)
        #expect(report.outcome == .fetched)

        let basic = "Basic " + Data("alice:S3cret".utf8).base64EncodedString()
        let asked = await first.requestLog
        #expect(asked.map(\.status) == [200, 302])
        #expect(asked.last?.ifNoneMatch == etag)
        #expect(asked.last?.headers?["authorization"] == basic)
        let followed = await second.requestLog
        #expect(followed.count == 1)
        #expect(followed.first?.path == Self.censusPath)
        #expect(followed.first?.status == 200)
        #expect(followed.first?.ifNoneMatch == nil)
        #expect(followed.first?.headers?["if-none-match"] == nil)
        #expect(followed.first?.ifModifiedSince == nil)
        #expect(followed.first?.headers?["authorization"] == nil)

        let event = try #require(try log.event(at: 2))
        #expect(event.kind == .fetched)
        #expect(event.request?.url == "http://***@127.0.0.1:\(port)\(Self.censusPath)")
        #expect(event.request?.headers == [Header("Authorization", "***"), Header("If-None-Match", etag), Header("If-Modified-Since", modified)])
        #expect(event.response?.headers.filter { $0.name == Fetcher.redirectHeader } == [Header(Fetcher.redirectHeader, "302 \(secondBase)\(Self.censusPath)")])

        // Without --allow-private-hosts a redirect off the upstream to loopback is refused.
        var strict = configuration
        strict.allowPrivateHosts = false
        let strictFetcher = Fetcher(sources: .seed, configuration: strict)
        let refused = try await Store(log: log, sources: .seed, fetcher: strictFetcher).fetch(.brastlewarkCensus)
        await strictFetcher.shutdown()
        #expect(refused.attempts.count == 1)
        #expect(refused.outcome == .failed(.transport, "refused: the redirect to \(secondBase)\(Self.censusPath) leads to 127.0.0.1, a loopback address (127.0.0.1), "
            + "and redirects off the upstream may reach public addresses only; nothing was sent. "
            + "Pass FetchConfiguration.allowPrivateHosts to allow it, or serve such files through FetchConfiguration.upstream"))
        #expect(await second.requestLog.count == 1)
        let refusedEvent = try #require(try log.event(at: 3))
        #expect(refusedEvent.response?.status == 302)
        #expect(refusedEvent.response?.header(Fetcher.redirectHeader) == "302 \(secondBase)\(Self.censusPath)")
    }

    @Test func aRedirectLoopStopsAfterFiveHops() async throws {
        let h = try await FetchHarness.start(faults: [Fault(match: "/brastlewark", kind: .redirect(307, location: Self.censusPath))], retries: 0)
        defer { Task { await h.stop() } }
        let report = try await h.store.fetch(.brastlewarkCensus)
        #expect(report.outcome == .failed(.httpStatus, "HTTP 307: more than 5 redirects (the next to \(h.base)\(Self.censusPath)); the upstream is probably redirecting in a loop"))
        #expect(await h.upstream.requestLog.map(\.status) == [307, 307, 307, 307, 307, 307])
        let event = try #require(try h.events().first)
        #expect(event.response?.status == 307)
        #expect(event.response?.headers.filter { $0.name == Fetcher.redirectHeader }.count == 5)
        #expect(try h.events().count == 1)
    }

    /// Before: AsyncHTTPClient spoke `http+unix://` and the socket's bytes were stored as a
    /// fetched image.
    @Test func aUnixSocketAssetURLIsRefusedAndNothingIsStored() async throws {
        let h = try await FetchHarness.start(retries: 0)
        defer { Task { await h.stop() } }
        let image = try await h.served("/assets/" + Self.asset)
        await h.upstream.clearRequestLog()
        let socket = UnixImageServer.path()
        let server = try await UnixImageServer.start(path: socket, image: image)
        defer { Task { await server.stop() } }
        let encoded = socket.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socket
        let url = "http+unix://\(encoded)/x.jpg"
        for base in [nil, h.base] as [String?] {
            var configuration = Self.configuration(base: base)
            configuration.allowPrivateHosts = true // the scheme alone is refused
            let fetcher = Fetcher(sources: .seed, configuration: configuration)
            let report = try await Store(log: h.log, sources: .seed, fetcher: fetcher).fetch(.asset(url))
            await fetcher.shutdown()
            #expect(report.outcome == .failed(.transport, "refused: \(url) is not an http or https URL (scheme http+unix); Fetchlog fetches web addresses only, "
                + "never a unix socket or a file, so nothing was sent"))
        }
        #expect(server.requests() == 0)
        #expect(await h.upstream.requestLog.isEmpty)
        let events = try h.events()
        #expect(events.map(\.kind) == [.fetchFailed, .fetchFailed])
        #expect(events.allSatisfy { $0.body == nil && $0.response == nil })
    }

    @Test func aBodyURLToLoopbackIsRefusedUnlessPrivateHostsAreAllowed() async throws {
        let h = try await FetchHarness.start(retries: 0)
        defer { Task { await h.stop() } }
        let url = h.base + "/assets/" + Self.asset
        let strict = Fetcher(sources: .seed, configuration: Self.configuration(base: nil))
        let refused = try await Store(log: h.log, sources: .seed, fetcher: strict).fetch(.asset(url))
        await strict.shutdown()
        #expect(refused.outcome == .failed(.transport, "refused: \(url) leads to 127.0.0.1, a loopback address (127.0.0.1), "
            + "and asset URLs (which bodies name) may reach public addresses only; nothing was sent. "
            + "Pass FetchConfiguration.allowPrivateHosts to allow it, or serve such files through FetchConfiguration.upstream"))
        #expect(refused.attempts.count == 1)
        #expect(await h.upstream.requestLog.isEmpty)

        var configuration = Self.configuration(base: nil)
        configuration.allowPrivateHosts = true
        let allowed = Fetcher(sources: .seed, configuration: configuration)
        let fetched = try await Store(log: h.log, sources: .seed, fetcher: allowed).fetch(.asset(url))
        await allowed.shutdown()
        #expect(fetched.outcome == .fetched)
        #expect(await h.upstream.requestLog.map(\.path) == ["/assets/" + Self.asset])
        #expect(try h.events().map(\.kind) == [.fetchFailed, .fetched])
    }

    @Test func nonPublicAddressesAreNamed() async throws {
        func kind(_ host: String) async -> String? {
            guard case .success(let addresses) = await AddressCheck.resolve(host), let first = addresses.first else { return "unresolved" }
            return AddressCheck.privateKind(of: first.bytes)
        }
        #expect(await kind("127.1") == "a loopback address") // inet_aton's short form
        #expect(await kind("2130706433") == "a loopback address")
        #expect(await kind("169.254.169.254") == "a link-local address")
        #expect(await kind("10.1.2.3") == "a private address")
        #expect(await kind("172.31.0.1") == "a private address")
        #expect(await kind("172.32.0.1") == nil)
        #expect(await kind("192.168.0.1") == "a private address")
        #expect(await kind("100.64.0.1") == "a shared (carrier-grade NAT) address")
        #expect(await kind("0.0.0.0") == "the unspecified address")
        #expect(await kind("224.0.0.1") == "a multicast address")
        #expect(await kind("::1") == "a loopback address")
        #expect(await kind("::") == "the unspecified address")
        #expect(await kind("::ffff:127.0.0.1") == "a loopback address")
        #expect(await kind("::ffff:169.254.1.1") == "a link-local address")
        #expect(await kind("fe80::1") == "a link-local address")
        #expect(await kind("fd00::1") == "a unique-local (private) address")
        #expect(await kind("8.8.8.8") == nil)
        #expect(await kind("2001:4860:4860::8888") == nil)
    }

    // MARK: Item 5: secrets

    @Test func redactionMasksUserinfoAndSecretParameters() {
        let redaction = Redaction()
        #expect(redaction.url("http://alice:S3cret@127.0.0.1:8080/tvmaze/shows?page=1") == "http://***@127.0.0.1:8080/tvmaze/shows?page=1")
        #expect(redaction.url("https://TOKEN@h/x") == "https://***@h/x")
        #expect(redaction.url("https://h/x.jpg?api_key=a&page=2&Token=t&sig=s&signature=z%20z#frag")
            == "https://h/x.jpg?api_key=***&page=2&Token=***&sig=s&signature=***#frag")
        #expect(redaction.url("https://h/a@b?x=1") == "https://h/a@b?x=1") // an @ in the path is no userinfo
        var custom = Redaction()
        custom.queryParameters.insert("sig")
        #expect(custom.url("https://h/x?sig=s&q=1") == "https://h/x?sig=***&q=1")
        #expect(redaction.headers([Header("authorization", "Basic x"), Header("Cookie", "a=b"), Header("Proxy-Authorization", "y"), Header("If-None-Match", "\"e\"")])
            == [Header("authorization", "***"), Header("Cookie", "***"), Header("Proxy-Authorization", "***"), Header("If-None-Match", "\"e\"")])
    }

    /// Before: the password stood in every event's URL (`log tail`, `log export`, data.mdb),
    /// and was not even sent (AsyncHTTPClient ignores userinfo).
    @Test func upstreamPasswordIsSentButNeverStored() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start()
        defer { Task { await upstream.stop() } }
        let port = try #require(base.port)
        let dir = TemporaryDirectory("secret")
        let withSecret = "http://alice:S3cret@127.0.0.1:\(port)"
        let fetched = try await runFetchlog(["--store", dir.path, "--upstream", withSecret, "fetch", "brastlewark", "census"])
        #expect(fetched.status == 0)
        #expect(fetched.stdout.hasPrefix("  seq 1  GET http://***@127.0.0.1:\(port)/brastlewark/data.json  → 200 fetched"))
        let again = try await runFetchlog(["--store", dir.path, "--upstream", withSecret, "fetch", "tvmaze", "shows", "--verbose"])
        #expect(again.status == 0)
        let asked = await upstream.requestLog
        #expect(asked.count == 2)
        #expect(asked.allSatisfy { $0.headers?["authorization"] == "Basic " + Data("alice:S3cret".utf8).base64EncodedString() })

        let export = try await runFetchlog(["--store", dir.path, "log", "export"])
        #expect(export.status == 0)
        #expect(export.stdout.contains("\"url\":\"http://***@127.0.0.1:\(port)/brastlewark/data.json\""))
        #expect(export.stdout.contains("{\"name\":\"Authorization\",\"value\":\"***\"}"))
        let tail = try await runFetchlog(["--store", dir.path, "log", "tail"])
        for output in [fetched.stdout, fetched.stderr, again.stdout, again.stderr, export.stdout, tail.stdout] {
            #expect(!output.contains("S3cret"))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(files.contains("data.mdb"))
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.sub(file)))
            #expect(bytes.range(of: Data("S3cret".utf8)) == nil, "\(file) holds the password")
            #expect(bytes.range(of: Data("alice".utf8)) == nil, "\(file) holds the user name")
        }
    }
}

/// An HTTP server on a unix socket that answers every request with one image: what an
/// `http+unix://` URL in a body would reach.
final class UnixImageServer: @unchecked Sendable {
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    private let lock = NSLock()
    private var count = 0
    let path: String

    static func path() -> String { "/tmp/fetchlog-unix-\(UUID().uuidString.prefix(8)).sock" }

    private init(path: String, group: ServiceGroup, task: Task<Void, any Error>) {
        self.path = path
        self.group = group
        self.task = task
    }

    func requests() -> Int { lock.withLock { count } }
    private func note() { lock.withLock { count += 1 } }

    static func start(path: String, image: [UInt8]) async throws -> UnixImageServer {
        let box = Box()
        let router = Router()
        router.get("**") { _, _ in
            box.server?.note()
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: image)))
        }
        let (ready, sink) = AsyncStream<Bool>.makeStream()
        var logger = Logger(label: "unix-image-server")
        logger.logLevel = .error
        let app = Application(router: router, configuration: .init(address: .unixDomainSocket(path: path)),
                              onServerRunning: { _ in sink.yield(true); sink.finish() }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        // High priority, as the sample upstream's (its comment says why).
        let task = Task(priority: .high) {
            defer { sink.finish() }
            try await group.run()
        }
        var running = false
        for await r in ready { running = r }
        guard running else { throw SampleUpstreamError.couldNotStart("unix socket server at \(path)") }
        let server = UnixImageServer(path: path, group: group, task: task)
        box.server = server
        return server
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
        try? FileManager.default.removeItem(atPath: path)
    }

    private final class Box: @unchecked Sendable {
        var server: UnixImageServer?
    }
}
