import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// The durable window by item index (issue 12, item 1): the first 1,000 TVmaze items,
/// counted across pages whatever the page size, are written to the log; a page whose first
/// item index is 1,000 or more — or cannot be known — is kept for the session only; a page
/// that starts below 1,000 and runs past it is durable whole. Real sized pages from the
/// sample upstream over loopback, a real LMDB log in a temp dir.
@Suite(.serialized) struct DurableWindowTests {
    /// For a page size, what the rule says: the first item index of every page the index
    /// serves plus the 404 page after it, and which of those pages go to the log.
    struct Expectation: Sendable, CustomStringConvertible {
        let pageSize: Int
        let pages: Int
        /// Pages 0...pages (the last answers 404), their first item indices.
        var firstIndices: [Int] { (0 ... pages).map { $0 * pageSize } }
        /// Pages starting below 1,000 are durable, straddling ones included.
        var durablePages: [Int] { (0 ... pages).filter { $0 * pageSize < 1000 } }
        var sessionPages: [Int] { (0 ... pages).filter { $0 * pageSize >= 1000 } }
        var description: String { "\(pages) pages of \(pageSize)" }
    }

    /// 100: page 10 starts exactly at 1,000. 222: page 4 (888…1,109) straddles and is kept
    /// whole; page 5 starts at 1,110. 250: page 4 starts at 1,000. 180: page 5 (900…1,079)
    /// straddles; page 6 starts at 1,080.
    static let cases = [
        Expectation(pageSize: 100, pages: 12), Expectation(pageSize: 222, pages: 6),
        Expectation(pageSize: 250, pages: 5), Expectation(pageSize: 180, pages: 7),
    ]

    private func start(_ e: Expectation) async throws -> (SampleUpstream, EventLog, Store, TemporaryDirectory) {
        var configuration = SampleUpstreamConfiguration()
        configuration.tvmazePageSize = e.pageSize
        configuration.tvmazePages = e.pages
        let upstream = try SampleUpstream(configuration: configuration)
        let base = try await upstream.start().absoluteString
        let directory = TemporaryDirectory("window")
        let log = try EventLog.open(at: directory.path)
        return (upstream, log, try Store(log: log, sources: .seed, fetcher: Fetcher(sources: .seed, configuration: FetchHarness.fetchConfiguration(base: base))), directory)
    }

    @Test(arguments: cases)
    func thePagingAPIWritesOnlyPagesStartingInsideTheWindow(_ e: Expectation) async throws {
        let (upstream, log, store, directory) = try await start(e)
        _ = directory
        let session = store.session
        let reports = try await store.fetchTVMazeShows(pages: .all)
        #expect(reports.map(\.firstItemIndex) == e.firstIndices.map { Optional($0) })
        #expect(reports.map(\.recorded) == (0 ... e.pages).map { e.durablePages.contains($0) ? .durable : .sessionOnly })
        #expect(reports.last?.outcome == .endOfList)
        // The log holds exactly the durable pages (each one fetched event), nothing else.
        let logged = try log.events(from: 1)
        #expect(logged.map(\.label) == e.durablePages.map { "/shows?page=\($0)" })
        #expect(logged.allSatisfy { $0.kind == .fetched })
        #expect(session.events.map(\.label) == e.sessionPages.map { "/shows?page=\($0)" })
        #expect(session.events.allSatisfy { $0.seq == 0 })
        // After a restart: the durable pages' shows, whole — ids 1…(durable pages × size).
        let durable = ShowsView(state: try Store(log: log, sources: .seed).snapshot.state)
        let kept = (e.durablePages.last! + 1) * e.pageSize
        #expect(durable.count == kept)
        #expect(durable.show(id: kept) != nil)
        #expect(durable.show(id: kept + 1) == nil)
        await store.fetcher?.shutdown()
        await upstream.stop()
    }

    @Test(arguments: cases)
    func fetchShowsPageFollowsTheSameRule(_ e: Expectation) async throws {
        let rig = try await PolicyRig.start { $0.tvmazePageSize = e.pageSize; $0.tvmazePages = e.pages }
        var reports: [FetchReport] = []
        for page in 0 ... e.pages { reports.append(try await rig.policy.fetchShowsPage(page)) }
        #expect(reports.map(\.firstItemIndex) == e.firstIndices.map { Optional($0) })
        #expect(reports.map(\.recorded) == (0 ... e.pages).map { e.durablePages.contains($0) ? .durable : .sessionOnly })
        #expect(try rig.log.events(from: 1).map(\.label) == e.durablePages.map { "/shows?page=\($0)" })
        #expect(rig.store.session.events.map(\.label) == e.sessionPages.map { "/shows?page=\($0)" })
        // This session sees every page; a restart only the durable ones.
        #expect(ShowsView(state: rig.store.snapshot.state).count == e.pages * e.pageSize)
        #expect(ShowsView(state: try Store(log: rig.log, sources: .seed).snapshot.state).count == (e.durablePages.last! + 1) * e.pageSize)
        await rig.stop()
    }

    /// Pages 0–3 are not held: page 5's first item index cannot be known and could be as
    /// large as 1,250 (five pages of at most 250), so page 5 stays out of the log — and so
    /// does page 4 fetched alone (up to 1,000).
    @Test func aPageAfterPagesNotHeldIsSessionOnly() async throws {
        let e = Expectation(pageSize: 222, pages: 6)
        let rig = try await PolicyRig.start { $0.tvmazePageSize = e.pageSize; $0.tvmazePages = e.pages }
        let five = try await rig.policy.fetchShowsPage(5)
        #expect(five.outcome == .fetched)
        #expect(five.recorded == .sessionOnly)
        #expect(five.firstItemIndex == nil)
        let four = try await rig.policy.fetchShowsPage(4)
        #expect(four.recorded == .sessionOnly && four.firstItemIndex == nil)
        #expect(try rig.log.count() == 0)
        #expect(rig.store.session.events.map(\.label) == ["/shows?page=5", "/shows?page=4"])
        #expect(ShowsView(state: rig.store.snapshot.state).count == 2 * 222, "both held for this session")

        // The paging API, on another log: the same answer.
        let (upstream, log, store, directory) = try await start(e)
        _ = directory
        let session = store.session
        let reports = try await store.fetchTVMazeShows(pages: .range(5 ... 5))
        #expect(reports.map(\.recorded) == [.sessionOnly])
        #expect(reports.map(\.firstItemIndex) == [nil])
        #expect(try log.count() == 0)
        #expect(session.events.map(\.label) == ["/shows?page=5"])

        // Once pages 0–3 are held, page 4 (888…1,109) is inside the window and durable,
        // and page 5 in a later run starts at 1,110: session-only, index known.
        _ = try await store.fetchTVMazeShows(pages: .range(0 ... 3))
        let later = try await store.fetchTVMazeShows(pages: .range(4 ... 5))
        #expect(later.map(\.firstItemIndex) == [888, 1110])
        #expect(later.map(\.recorded) == [.durable, .sessionOnly])
        #expect(try log.events(from: 1).map(\.label) == (0 ... 4).map { "/shows?page=\($0)" })
        await store.fetcher?.shutdown()
        await upstream.stop()
        await rig.stop()
    }

    /// An unknown index that cannot be past the window: each page not held counts as the
    /// 250 shows a TVmaze page holds at most, each held page as its own count.
    @Test func anUnknownIndexBoundInsideTheWindowIsDurable() async throws {
        let rig = try await PolicyRig.start { $0.tvmazePageSize = 222; $0.tvmazePages = 6 }
        var reports: [FetchReport] = []
        // Page 1 (≤ 250), page 3 (≤ 250 + 222 + 250 = 722), page 4 (≤ 944): durable, index
        // unknown. Page 5 (≤ 1,166): session-only. Pages 0 and 2 (0, 444), then page 5 again
        // with every earlier page held: index 1,110, session-only.
        for page in [1, 3, 4, 5, 0, 2, 5] { reports.append(try await rig.policy.fetchShowsPage(page)) }
        #expect(reports.map(\.firstItemIndex) == [nil, nil, nil, nil, 0, 444, 1110])
        #expect(reports.map(\.recorded) == [.durable, .durable, .durable, .sessionOnly, .durable, .durable, .sessionOnly])
        #expect(try rig.log.events(from: 1).map(\.label) == [1, 3, 4, 0, 2].map { "/shows?page=\($0)" })
        #expect(rig.store.session.events.map(\.label) == ["/shows?page=5", "/shows?page=5"])
        await rig.stop()

        // The paging API: page 0 fails all four attempts; page 1 is still provably inside
        // (≤ 250), so its fetch and page 0's failures are in the log.
        var configuration = SampleUpstreamConfiguration()
        configuration.tvmazePageSize = 222
        configuration.faults = [Fault(match: "/tvmaze/shows", kind: .failNext(4))]
        let upstream = try SampleUpstream(configuration: configuration)
        let base = try await upstream.start().absoluteString
        let directory = TemporaryDirectory("window-bound")
        let log = try EventLog.open(at: directory.path)
        let store = try Store(log: log, sources: .seed, fetcher: Fetcher(sources: .seed, configuration: FetchHarness.fetchConfiguration(base: base)))
        let run = try await store.fetchTVMazeShows(pages: .range(0 ... 1))
        #expect(run.map(\.outcome) == [.failed(.httpStatus, "HTTP 503 Service Unavailable"), .fetched])
        #expect(run.map(\.firstItemIndex) == [0, nil])
        #expect(run.map(\.recorded) == [.durable, .durable])
        #expect(try log.events(from: 1).map(\.kind) == [.fetchFailed, .fetchFailed, .fetchFailed, .fetchFailed, .fetched])
        await store.fetcher?.shutdown()
        await upstream.stop()
    }
}
