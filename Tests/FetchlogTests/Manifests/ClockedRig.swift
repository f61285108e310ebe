import Foundation
import SampleUpstream
@testable import FetchlogCore
@testable import FetchlogSources

/// The catalog upstream, a store in a temporary directory and a clock only the test moves.
struct ClockedRig {
    let upstream: CatalogUpstream
    let directory: TemporaryDirectory
    let clock: FixedClock
    let fetcher: Fetcher
    var store: Store

    static func start(_ name: String, manifest: String) async throws -> ClockedRig {
        let upstream = try await CatalogUpstream.start()
        let directory = TemporaryDirectory(name)
        let clock = FixedClock(fixedTime)
        var configuration = FetchHarness.patientConfiguration(base: upstream.base)
        configuration.clock = clock
        let fetcher = Fetcher(sources: .seed, configuration: configuration)
        let store = try Store(log: try EventLog.open(at: directory.path), sources: .seed, fetcher: fetcher, clock: clock)
        try await store.define(RestManifest(json: JSONValue.parse(manifest)))
        return ClockedRig(upstream: upstream, directory: directory, clock: clock, fetcher: fetcher, store: store)
    }

    /// A new store over the same log (its checkpoint, else a replay): a new session,
    /// with nothing of the old one's memory.
    mutating func reopen() async throws {
        store = try Store(log: store.log, sources: .seed, fetcher: fetcher, clock: clock)
    }

    func events() throws -> [Event] {
        var events: [Event] = []
        try store.log.scan(from: 1, batchSize: 64) { events.append($0); return true }
        return events
    }

    func items(_ resource: String) throws -> [JSONValue] {
        try ViewCatalog.export("items/catalog/" + resource, state: store.snapshot.state)["items"]?.arrayValue ?? []
    }

    func stop() async {
        await store.close()
        await fetcher.shutdown()
        await upstream.stop()
    }
}
