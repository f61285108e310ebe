import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// A plug-in that counts its decodes, around a seed plug-in.
final class CountingPlugin: SourcePlugin, @unchecked Sendable {
    // `@unchecked`: `count` is read and written under `lock` only.
    let inner: any SourcePlugin
    private let lock = NSLock()
    private var count = 0
    init(_ inner: any SourcePlugin) { self.inner = inner }
    var decodes: Int { lock.withLock { count } }

    var source: Source { inner.source }
    var realBase: String { inner.realBase }
    var otherBases: [String] { inner.otherBases }
    var freshness: FreshnessRule { inner.freshness }
    var initialSlice: (any SourceSlice)? { inner.initialSlice }
    func realBase(for kind: DocumentKind) -> String { inner.realBase(for: kind) }
    func documentKind(ofPath path: String) -> DocumentKind? { inner.documentKind(ofPath: path) }
    func isEndOfList(status: UInt16, kind: DocumentKind) -> Bool { inner.isEndOfList(status: status, kind: kind) }
    func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        lock.withLock { count += 1 }
        return try inner.decode(kind, body: body)
    }
}

/// Issue 14: a fetched body is parsed once — by the fetcher, on arrival — and the store
/// folds the event with that document. (Before: once to check it, again to fold it.)
@Suite struct ParseOnceTests {
    @Test func theCensusIsDecodedOnceFromArrivalToSnapshot() async throws {
        let h = try await FetchHarness.start()
        defer { Task { await h.stop() } }
        let counting = CountingPlugin(BrastlewarkSource())
        let sources = SourceRegistry([TVMazeSource(), counting], views: SeedSources.views)
        let fetcher = Fetcher(sources: sources, configuration: h.fetcher.configuration)
        defer { Task { await fetcher.shutdown() } }
        let store = try Store(log: h.log, sources: sources, fetcher: fetcher)
        #expect(try await store.fetch(.brastlewarkCensus).outcome == .fetched)
        #expect(counting.decodes == 1)
        #expect(GnomesView(state: store.snapshot.state).gnomes.count == 1337)
        // A replay decodes it again, from the log: that is what replay is for.
        _ = try Store.replay(h.log, sources: sources)
        #expect(counting.decodes == 2)
    }
}
