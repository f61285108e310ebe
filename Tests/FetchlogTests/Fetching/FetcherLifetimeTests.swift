import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// A fetcher dropped without `shutdown()` — a caller's error path that forgot it — must not
/// stop the process. (AsyncHTTPClient traps in its client's deinit when it was not shut down:
/// one failing test that skipped its cleanup used to take the whole suite down with it.)
@Suite struct FetcherLifetimeTests {
    @Test func aFetcherDroppedWithoutShutdownClosesItsClient() async throws {
        let directory = TemporaryDirectory("fetcher-lifetime")
        let log = try EventLog.open(at: directory.path)
        defer { log.close() }
        do {
            let fetcher = Fetcher(sources: .seed, configuration: FetchHarness.patientConfiguration(base: "http://127.0.0.1:9"))
            #expect(fetcher.url(for: .brastlewarkCensus) == "http://127.0.0.1:9/brastlewark/data.json")
        }
        // Still running: the fetcher's deinit shut its client down itself.
        let second = Fetcher(sources: .seed, configuration: FetchHarness.patientConfiguration(base: "http://127.0.0.1:9"))
        await second.shutdown()
        await second.shutdown() // twice is harmless
        #expect(try log.lastSeq() == 0)
    }
}
