import AsyncHTTPClient
import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Images fetched as events from the sample upstream (real HTTP, real LMDB), chosen with
/// the fallback the apps promise.
@Suite(.serialized) struct AssetTests {
    static let medium = "https://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg"
    static let original = "https://static.tvmaze.com/uploads/images/original_untouched/81/202627.jpg"

    private func showOneLinks(_ rig: PolicyRig) throws -> TVMazeImageLinks? {
        guard case .tvmazeShowsPage(let shows)? = rig.store.snapshot.state.document(.tvmazeShowsPage(0))?.tvmaze else { return nil }
        return shows.first { $0.id == 1 }?.image
    }

    @Test func heldBytesEqualServedBytesForJPEGAndPNG() async throws {
        let rig = try await PolicyRig.start()
        let png = try #require(SampleAssets.knownAssetURLs().first { $0.hasSuffix(".png") })
        for url in [Self.medium, png] {
            let report = try await rig.policy.fetchAsset(url)
            #expect(report.outcome == .fetched)
            let served = try await FetchHarness.servedBytes(base: rig.fetcher.configuration.upstream.base!, path: SampleAssets.assetPath(for: url)!)
            let row = try #require(AssetsView(state: rig.store.snapshot.state).asset(url))
            #expect(row.info?.sha256 == SHA256.hex(served))
            #expect(row.info?.size == served.count)
            #expect(row.info?.format == (url == png ? .png : .jpeg))
            let seq = try #require(row.seq)
            let stored = try #require(try rig.log.event(at: seq)?.body)
            #expect(bytesEqual(stored, served))
        }
        // The export carries references, the NDJSON log export the bytes (base64).
        let export = AssetsView(state: rig.store.snapshot.state).export(asOf: rig.store.snapshot.seq)
        let validation = try await validate(export, schema: "assets")
        #expect(validation.ok, "\(validation.output)")
        #expect(!export.canonicalText().contains("\"data\""))
        var lines: [String] = []
        try rig.log.exportNDJSON { lines.append($0) }
        let first = try JSONValue.parse(lines[0])
        #expect(first["body"]?["encoding"] == .string("base64"))
        await rig.stop()
    }

    @Test func mediumFailingFourTimesFallsBackToTheOriginal() async throws {
        let rig = try await PolicyRig.start {
            $0.faults = [Fault(match: "/assets/static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg", kind: .failNext(4))]
        }
        try await rig.policy.fetchShowsPage(0)
        let reports = try await rig.policy.fetchShowListImages(first: 1)
        #expect(reports.map(\.attempts.count) == [4, 1])
        let assetEvents = try rig.log.events(from: 1).filter { $0.source == "assets" }
        #expect(assetEvents.map(\.kind) == [.fetchFailed, .fetchFailed, .fetchFailed, .fetchFailed, .fetched])
        #expect(assetEvents.map(\.label) == Array(repeating: Self.medium, count: 4) + [Self.original])
        let choice = ImageChoice.showListImage(try showOneLinks(rig), in: rig.store.snapshot.state)
        #expect(choice == ImageChoice(url: Self.original, kind: "original", held: true, reason: "original (medium failed: 503 ×4)"))
        await rig.stop()
    }

    @Test func bothFailingGivesThePlaceholderAndOnlyThen() async throws {
        let rig = try await PolicyRig.start { $0.faults = [Fault(match: "/assets/static.tvmaze.com", kind: .status(503))] }
        try await rig.policy.fetchShowsPage(0)
        let before = ImageChoice.showListImage(try showOneLinks(rig), in: rig.store.snapshot.state)
        #expect(before == ImageChoice(url: Self.medium, kind: "medium", held: false, reason: "medium (not downloaded yet)"))
        let reports = try await rig.policy.fetchShowListImages(first: 1)
        #expect(reports.map(\.attempts.count) == [4, 4])
        let after = ImageChoice.showListImage(try showOneLinks(rig), in: rig.store.snapshot.state)
        #expect(after == ImageChoice(url: nil, kind: "placeholder", held: false,
                                     reason: "placeholder (medium failed: 503 ×4; original failed: 503 ×4)"))
        await rig.stop()
    }

    @Test func theDetailImageTriesTheMainPosterFirst() async throws {
        let rig = try await PolicyRig.start()
        _ = try await rig.store.fetch(.tvmazeImages(1))
        try await rig.store.catchUp()
        guard case .tvmazeImages(let images)? = rig.store.snapshot.state.document(.tvmazeImages(1))?.tvmaze else {
            Issue.record("no images held")
            return
        }
        let candidates = ImageChoice.detailCandidates(images)
        #expect(candidates.map(\.kind) == ["main-poster", "main-poster medium", "first-poster", "first-poster medium"])
        let mainOriginal = candidates[0].url
        await rig.upstream.setFaults([Fault(match: SampleAssets.assetPath(for: mainOriginal)!, kind: .status(404))])
        let reports = try await rig.policy.fetchShowDetailImage(id: 1)
        #expect(reports.map(\.attempts.count) == [1, 1], "404 is not retried; the medium rendition is next")
        let choice = ImageChoice.showDetailImage(images, in: rig.store.snapshot.state)
        #expect(choice.kind == "main-poster medium")
        #expect(choice.reason == "main-poster medium (main-poster failed: 404 ×1)")
        #expect(choice.held)
        await rig.stop()
    }

    @Test func thirtyTwoDistinctThumbnailsAreThirtyTwoDownloads() async throws {
        let rig = try await PolicyRig.start()
        _ = try await rig.store.fetch(.brastlewarkCensus)
        try await rig.store.catchUp()
        #expect(GnomesView(state: rig.store.snapshot.state).count == 1337)
        let reports = try await rig.policy.fetchGnomeThumbnails()
        #expect(reports.count == 32)
        #expect(await rig.upstream.requestLog.filter { $0.path.hasPrefix("/assets/") }.count == 32)
        #expect(AssetsView(state: rig.store.snapshot.state).heldCount == 32)
        // Asked again: every one is held, nothing is sent.
        #expect(try await rig.policy.fetchGnomeThumbnails().isEmpty)
        #expect(await rig.upstream.requestLog.count == 33)
        await rig.stop()
    }

    @Test(arguments: [
        (FaultKind.htmlBody, FailureClass.decode, "Content-Type text/html"),
        (FaultKind.wrongContentType, FailureClass.decode, "Content-Type text/html"),
        (FaultKind.truncated, FailureClass.truncated, ""),
    ])
    func badImageBodiesAreRecordedAndTheFallbackGoesOn(fault: FaultKind, expected: FailureClass, message: String) async throws {
        let rig = try await PolicyRig.start({ $0.faults = [Fault(match: "/assets/static.tvmaze.com/uploads/images/medium_portrait", kind: fault)] }, retries: 0)
        try await rig.policy.fetchShowsPage(0)
        let reports = try await rig.policy.fetchShowListImages(first: 1)
        let first = try #require(reports.first?.attempts.first)
        #expect(first.failure?.failureClass == expected, "\(String(describing: first.failure))")
        #expect(first.failure?.message.hasPrefix(message) == true)
        #expect(reports.last?.outcome == .fetched, "the original was fetched next")
        #expect(ImageChoice.showListImage(try showOneLinks(rig), in: rig.store.snapshot.state).kind == "original")
        // The shows view (and its export) says the same: the list image fell back.
        let row = try #require(ShowsView(state: rig.store.snapshot.state).show(id: 1))
        #expect(row.image == ShowsView.ListImage(TVMazeImageLinks(medium: nil, original: try showOneLinks(rig)?.original)))
        #expect(row.image.kind == .original)
        await rig.stop()
    }

    /// The images of the first 1,000 items survive a restart like their data; item 1,001's
    /// is kept for the session only (page sizes 250 and 100; every generated show has its
    /// own image on the sample upstream).
    @Test(arguments: [250, 100])
    func imagesOfItems1000And1001AcrossARestart(pageSize: Int) async throws {
        let pages = pageSize == 250 ? 5 : 11
        let rig = try await PolicyRig.start { $0.tvmazePageSize = pageSize; $0.tvmazePages = pages }
        for page in 0 ..< pages { try await rig.policy.fetchShowsPage(page) }
        let reports = try await rig.policy.fetchShowListImages(items: 998 ..< 1001)
        #expect(reports.count == 3)
        #expect(reports.allSatisfy { $0.outcome == .fetched })
        let item1000 = "https://static.tvmaze.com/uploads/images/medium_portrait/sized/1000.jpg"
        let item1001 = "https://static.tvmaze.com/uploads/images/medium_portrait/sized/1001.jpg"
        let session = AssetsView(state: rig.store.snapshot.state)
        #expect(session.asset(item1000)?.info != nil)
        #expect(session.asset(item1001)?.info != nil)
        #expect(session.asset(item1001)?.seq == 0, "held for this session only")
        let restarted = AssetsView(state: try Store(log: rig.log, sources: .seed).snapshot.state)
        #expect(restarted.asset(item1000)?.info != nil)
        #expect(restarted.asset(item1001) == nil)
        #expect(restarted.heldCount == 2)
        await rig.stop()
    }

    @Test func aNonImageWithAnImageContentTypeIsADecodeFailure() throws {
        #expect(throws: DecodeError(path: "$", reason: "not an image (it starts “<html><body>503</body></”)")) {
            try ImageFormat.check(Array("<html><body>503</body></html>".utf8))
        }
        #expect(throws: DecodeError(path: "$", reason: "JPEG without its end marker: the image is cut short")) {
            try ImageFormat.check([0xFF, 0xD8, 0xFF, 0xE0, 0x00])
        }
    }
}

extension FetchHarness {
    /// The bytes a server serves at `path`, read directly.
    static func servedBytes(base: String, path: String) async throws -> [UInt8] {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            // Generous: this reads the reference bytes, it bounds nothing; the upstream's
            // handler shares the suite's busy cooperative pool (a 5 s timeout was seen to pass).
            let response = try await client.execute(HTTPClientRequest(url: base + path), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 16 << 20)
            try await client.shutdown()
            return Array(body.readableBytesView)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
