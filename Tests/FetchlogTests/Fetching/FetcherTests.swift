import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
import FetchlogShell
@testable import FetchlogSources

/// Real HTTP on loopback against the bundled sample upstream, a real LMDB log.
@Suite(.serialized) struct FetcherTests {
    @Test func tvmazePagingStopsAtTheFirst404AsEndOfList() async throws {
        let h = try await FetchHarness.start()
        let reports = try await h.store.fetchTVMazeShows(pages: .all)
        let events = try h.events()
        #expect(events.map(\.kind) == [.fetched, .fetched, .fetched, .fetched, .endOfList],
                "failures: \(events.compactMap { $0.failure.map { "\($0.failureClass.name): \($0.message)" } })")
        #expect(events.map { $0.response?.status } == [200, 200, 200, 200, 404])
        #expect(events.map(\.label) == (0 ... 4).map { "/shows?page=\($0)" })
        #expect(events[0].request?.url == h.base + "/tvmaze/shows?page=0")
        #expect(bytesEqual(events[0].body ?? [], try Fixture.bytes("tvmaze/shows-page-0-2024.json")))
        #expect(bytesEqual(events[1].body ?? [], try Fixture.bytes("tvmaze/shows-page-1-2025-04-18.json")))
        let page2 = try await h.served("/tvmaze/shows?page=2")
        #expect(bytesEqual(events[2].body ?? [], page2))
        #expect(reports.last?.outcome == .endOfList)
        #expect(await h.upstream.requestLog.count == 6, "5 fetches and the test's own read of page 2")
        await h.stop()
    }

    /// A refused connection fails its attempt at once. (AsyncHTTPClient's pool would keep
    /// retrying it until the connect timeout; with a 60 s timeout the bug shows as 60 s
    /// attempts.) Each attempt's recorded duration says how long it took.
    @Test func aRefusedConnectionFailsEachAttemptAtOnce() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        await upstream.stop() // the port now refuses connections
        let dir = TemporaryDirectory("fetch-refused")
        let log = try EventLog.open(at: dir.path)
        var configuration = FetchHarness.fetchConfiguration(base: base, retries: 2)
        configuration.connectTimeout = .seconds(60)
        let fetcher = Fetcher(sources: .seed, configuration: configuration)
        let report = try await Store(log: log, sources: .seed, fetcher: fetcher).fetch(.brastlewarkCensus)
        await fetcher.shutdown()
        #expect(report.outcome == .failed(.transport, "connection refused"))
        let events = try log.events(from: 1)
        #expect(events.map(\.kind) == [.fetchFailed, .fetchFailed, .fetchFailed])
        #expect(events.allSatisfy { ($0.durationMicros ?? .max) < 10_000_000 }, "\(events.map(\.durationMicros))")
    }

    @Test func showDetailImagesAndEpisodesAndSearch() async throws {
        let h = try await FetchHarness.start()
        for resource in [Resource.tvmazeShow(1), .tvmazeImages(1), .tvmazeEpisodes(1), .tvmazeSearch("girls")] {
            #expect(try await h.store.fetch(resource).outcome == .fetched)
        }
        let events = try h.events()
        #expect(events.map(\.label) == ["/shows/1", "/shows/1/images", "/shows/1/episodes", "/search/shows?q=girls"])
        #expect(bytesEqual(events[0].body ?? [], try Fixture.bytes("tvmaze/show-1.json")))
        let images = try await h.served("/tvmaze/shows/1/images")
        #expect(bytesEqual(events[1].body ?? [], images))
        #expect(bytesEqual(events[2].body ?? [], try Fixture.bytes("tvmaze/show-1-episodes.json")))
        #expect(bytesEqual(events[3].body ?? [], try Fixture.bytes("tvmaze/search-shows-q-girls.json")))
        await h.stop()
    }

    /// The census byte for byte; the second fetch is conditional and stores no body.
    @Test func revalidationSendsIfNoneMatchAndRecordsNotModified() async throws {
        let h = try await FetchHarness.start()
        #expect(try await h.store.fetch(.brastlewarkCensus).outcome == .fetched)
        #expect(try await h.store.fetch(.brastlewarkCensus).outcome == .notModified)
        let events = try h.events()
        #expect(events.count == 2)
        let census = try Fixture.bytes("brastlewark/census.json")
        #expect(census.count == 421_309)
        #expect(bytesEqual(events[0].body ?? [], census))
        let etag = try #require(events[0].response?.header("ETag"))
        #expect(events[1].kind == .notModified)
        #expect(events[1].body == nil)
        #expect(events[1].request?.headers.contains(Header("If-None-Match", etag)) == true)
        let requests = await h.upstream.requestLog
        #expect(requests.map(\.status) == [200, 304])
        #expect(requests[1].ifNoneMatch == etag)
        #expect(requests[0].ifNoneMatch == nil)
        await h.stop()
    }

    @Test func viaplayRootAndASectionPageFromItsHref() async throws {
        let h = try await FetchHarness.start()
        #expect(try await h.store.fetch(.viaplayRoot).outcome == .fetched)
        let root = try #require(try h.events().first?.body)
        #expect(bytesEqual(root, try Fixture.bytes("viaplay/ios-se-root-2022.json")))
        let json = try JSONValue.parse(bytes: root)
        let href = try #require(json["_links"]?["viaplay:sections"]?.arrayValue?.first?["href"]?.stringValue)
        #expect(href.contains("{?"))
        let page = try #require(Resource.viaplayPage(href))
        #expect(!page.path.contains("{"))
        #expect(try await h.store.fetch(page).outcome == .fetched)
        let section = try #require(try h.log.event(at: 2))
        #expect(bytesEqual(section.body ?? [], try Fixture.bytes("viaplay/androidv2-se-serier-section-2016.json")))
        await h.stop()
    }

    @Test func thmanyahHomeFollowsTotalPagesAndArticPagesAndArtists() async throws {
        let h = try await FetchHarness.start()
        let home = try await h.store.fetchThmanyahHome(pages: .all)
        #expect(home.count == 10)
        #expect(home.allSatisfy { $0.outcome == .fetched })
        #expect(bytesEqual(try h.log.event(at: 1)?.body ?? [], try Fixture.bytes("thmanyah/home-sections-page-1.json")))
        let artworks = try await h.store.fetchArticArtworks(pages: .range(1 ... 3), limit: 5)
        #expect(artworks.map(\.outcome) == [.fetched, .fetched, .fetched])
        #expect(try await h.store.fetch(.articAgent(2)).outcome == .fetched)
        #expect(try await h.store.fetch(.thmanyahSearch("فنجان")).outcome == .fetched)
        let events = try h.events()
        #expect(events.count == 15)
        let artworks2 = try await h.served("/artic/api/v1/artworks?page=2&limit=5")
        let agent = try await h.served("/artic/api/v1/agents/2")
        #expect(bytesEqual(events[11].body ?? [], artworks2))
        #expect(bytesEqual(events[13].body ?? [], agent))
        #expect(events[14].request?.url == h.base + "/thmanyah/m1/735111-711675-default/search?q=%D9%81%D9%86%D8%AC%D8%A7%D9%86")
        await h.stop()
    }

    @Test func failNextTwoTakesThreeAttempts() async throws {
        let h = try await FetchHarness.start(faults: [Fault(match: "/brastlewark", kind: .failNext(2))])
        let report = try await h.store.fetch(.brastlewarkCensus)
        #expect(report.outcome == .fetched)
        let events = try h.events()
        #expect(events.map(\.kind) == [.fetchFailed, .fetchFailed, .fetched])
        #expect(events.map(\.attempt) == [1, 2, 3])
        #expect(events[0].failure == Event.Failure(.httpStatus, "HTTP 503 Service Unavailable"))
        #expect(await h.upstream.requestLog.map(\.status) == [503, 503, 200])
        await h.stop()
    }

    @Test func failNextFiveGivesUpAfterFourAttemptsAndKeepsHeldData() async throws {
        let h = try await FetchHarness.start()
        #expect(try await h.store.fetch(.brastlewarkCensus).outcome == .fetched)
        await h.upstream.setFaults([Fault(match: "/brastlewark", kind: .failNext(5))])
        let report = try await h.store.fetch(.brastlewarkCensus)
        #expect(report.outcome == .failed(.httpStatus, "HTTP 503 Service Unavailable"))
        let events = try h.events()
        #expect(events.map(\.kind) == [.fetched, .fetchFailed, .fetchFailed, .fetchFailed, .fetchFailed])
        #expect(events.dropFirst().map(\.attempt) == [1, 2, 3, 4])
        let heldSeq = try #require(h.store.snapshot.state.document(.brastlewarkCensus)?.seq)
        #expect(bytesEqual(try h.log.event(at: heldSeq)?.body ?? [], try Fixture.bytes("brastlewark/census.json")))
        #expect(try h.log.verify().isHealthy)
        await h.stop()
    }

    @Test func retryAfterIsHonoured() async throws {
        let h = try await FetchHarness.start(faults: [Fault(match: "/tvmaze/shows/1", kind: .status(429, retryAfter: 1))], retries: 1)
        let started = ContinuousClock.now
        let report = try await h.store.fetch(.tvmazeShow(1))
        let elapsed = ContinuousClock.now - started
        #expect(report.attempts.count == 2)
        #expect(report.attempts.map(\.status) == [429, 429])
        #expect(report.attempts[0].retryAfter.map { $0 >= .seconds(1) } == true)
        let requests = await h.upstream.requestLog
        #expect(requests.count == 2)
        #expect(requests[1].date.timeIntervalSince(requests[0].date) >= 1.0)
        #expect(elapsed >= .seconds(1))
        await h.stop()
    }

    @Test func notFoundIsNotRetried() async throws {
        let h = try await FetchHarness.start()
        let report = try await h.store.fetch(.articAgent(99_999))
        #expect(report.outcome == .failed(.httpStatus, "HTTP 404 Not Found"))
        #expect(report.attempts.count == 1)
        await h.stop()
    }

    @Test(arguments: [
        (FaultKind.truncated, FailureClass.truncated),
        (FaultKind.malformedJSON, FailureClass.decode),
        (FaultKind.resetMidBody, FailureClass.transport),
        (FaultKind.noAnswer, FailureClass.timeout),
        (FaultKind.wrongContentType, FailureClass.decode),
    ])
    func faultsAreRecordedWithTheirFailureClass(fault: FaultKind, expected: FailureClass) async throws {
        // A short read timeout only where a timeout is the point; elsewhere a loaded machine
        // must not turn a slow close into a timeout.
        let h = try await FetchHarness.start(faults: [Fault(match: "/brastlewark", kind: fault)], retries: 0,
                                             readTimeout: fault == .noAnswer ? .milliseconds(500) : .seconds(10))
        let report = try await h.store.fetch(.brastlewarkCensus)
        let events = try h.events()
        #expect(events.count == 1)
        #expect(events[0].kind == .fetchFailed)
        #expect(events[0].failure?.failureClass == expected, "\(String(describing: events[0].failure))")
        if case .failed(let failureClass, _) = report.outcome { #expect(failureClass == expected) } else { Issue.record("not failed") }
        switch fault {
        case .malformedJSON:
            #expect(events[0].failure?.message.hasPrefix("$: invalid JSON at byte") == true)
            #expect(events[0].body?.count == 252_785)
        case .wrongContentType:
            #expect(events[0].failure?.message.hasPrefix("Content-Type text/html") == true)
            #expect(bytesEqual(events[0].body ?? [], try Fixture.bytes("brastlewark/census.json")))
        case .truncated, .resetMidBody:
            #expect((events[0].body?.count ?? 0) < 421_309)
        default: break
        }
        await h.stop()
    }

    /// Nothing is wired to the fixtures: another server that follows the rule works.
    @Test func anotherServerFollowingTheAddressingRuleWorks() async throws {
        let other = try await OtherUpstream.start()
        let dir = TemporaryDirectory("other")
        let log = try EventLog.open(at: dir.path)
        let fetcher = Fetcher(sources: .seed, configuration: FetchHarness.fetchConfiguration(base: other.base))
        let store = try Store(log: log, sources: .seed, fetcher: fetcher)
        #expect(try await store.fetch(.brastlewarkCensus).outcome == .fetched)
        let shows = try await store.fetchTVMazeShows(pages: .all)
        #expect(shows.map(\.outcome) == [.fetched, .endOfList])
        let events = try log.events(from: 1)
        #expect(events[0].body == Array(OtherUpstream.census.utf8))
        #expect(events[0].response?.header("etag") == "\"other-census\"")
        #expect(events[1].body == Array(OtherUpstream.shows.utf8))
        #expect(events[1].request?.url == other.base + "/tvmaze/shows?page=0")
        await fetcher.shutdown()
        await other.stop()
    }
}

@Suite struct AddressingAndRetryTests {
    @Test func theUpstreamRuleRewritesEverySource() {
        let up = Upstream(base: "http://127.0.0.1:9000/")
        let seed = SourceRegistry.seed
        #expect(up.url(source: .tvmaze, path: "/shows?page=0", realBase: seed.realBase(of: .tvmazeShowsPage(0))) == "http://127.0.0.1:9000/tvmaze/shows?page=0")
        #expect(Upstream.real.url(source: .brastlewark, path: "/data.json", realBase: seed.realBase(of: .brastlewarkCensus))
                == "https://raw.githubusercontent.com/rrafols/mobile_test/master/data.json")
        let search = Resource.thmanyahSearch("a b")
        #expect(Upstream.real.url(source: .thmanyah, path: search.path, realBase: seed.realBase(of: search))
                == "https://mock.apidog.com/m1/735111-711675-default/search?q=a%20b")
        #expect(up.url(source: .thmanyah, path: search.path, realBase: seed.realBase(of: search))
                == "http://127.0.0.1:9000/thmanyah/m1/735111-711675-default/search?q=a%20b")
        #expect(Resource.viaplayPage("https://content.viaplay.se/ios-se/serier{?dtg,productsPerPage}")?.path == "/ios-se/serier")
        #expect(Resource.viaplayPage("http://127.0.0.1:9000/viaplay/ios-se/film", upstream: up)?.path == "/ios-se/film")
        #expect(Resource.viaplayPage("https://example.org/x") == nil)
        #expect(FetchConfiguration.upstream(explicit: nil, environment: ["FETCHLOG_UPSTREAM": "http://h:1"]) == Upstream(base: "http://h:1"))
    }

    @Test func backoffIsFullJitterUnderADoublingCeiling() {
        var policy = RetryPolicy()
        policy.baseDelay = .milliseconds(100)
        policy.maxDelay = .milliseconds(300)
        var random = TestPattern.Generator(seed: 1)
        for retry in 1 ... 4 {
            let ceiling: Duration = [.milliseconds(100), .milliseconds(200), .milliseconds(300), .milliseconds(300)][retry - 1]
            for _ in 0 ..< 50 {
                let d = policy.delay(beforeRetry: retry, retryAfter: nil, random: &random)
                #expect(d >= .zero && d <= ceiling)
            }
        }
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(2), random: &random) == .seconds(2))
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(90), random: &random) == .seconds(30))
        #expect([500, 503, 408, 429].allSatisfy { RetryPolicy.isRetryable(status: UInt16($0)) })
        #expect(![400, 401, 403, 404, 410].contains { RetryPolicy.isRetryable(status: UInt16($0)) })
    }

    @Test func pageSelectionsParse() {
        #expect(PageSelection("0-3") == .range(0 ... 3))
        #expect(PageSelection("2") == .range(2 ... 2))
        #expect(PageSelection("all") == .all)
        #expect(PageSelection("3-1") == nil)
        #expect(PageSelection("x") == nil)
    }
}
