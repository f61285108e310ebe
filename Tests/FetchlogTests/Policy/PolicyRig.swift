import Foundation
import SampleUpstream
@testable import FetchlogCore
@testable import FetchlogSources

/// A sample upstream, a store with its fetcher and the offline-first policy, on an
/// injected clock that starts at 2026-11-22T08:00:00Z.
struct PolicyRig: Sendable {
    let upstream: SampleUpstream
    let log: EventLog
    let fetcher: Fetcher
    let store: Store
    let policy: OfflineFirst
    let clock: FixedClock
    /// The clock search debouncing sleeps on; it moves only when a test advances it.
    let debounceClock: ManualClock
    let directory: TemporaryDirectory

    static func start(_ configure: (inout SampleUpstreamConfiguration) -> Void = { _ in }, retries: Int = 3) async throws -> PolicyRig {
        var configuration = SampleUpstreamConfiguration()
        configure(&configuration)
        let upstream = try SampleUpstream(configuration: configuration)
        let base = try await upstream.start().absoluteString
        let directory = TemporaryDirectory("policy")
        let log = try EventLog.open(at: directory.path)
        let clock = FixedClock(Timestamp(iso8601: "2026-11-22T08:00:00.000Z")!)
        var fetch = FetchHarness.fetchConfiguration(base: base, retries: retries)
        fetch.clock = clock
        let fetcher = Fetcher(sources: .seed, configuration: fetch)
        let store = try Store(log: log, sources: .seed, fetcher: fetcher, clock: clock)
        let debounceClock = ManualClock()
        return PolicyRig(upstream: upstream, log: log, fetcher: fetcher, store: store,
                         policy: OfflineFirst(store: store, clock: clock, debounceClock: debounceClock),
                         clock: clock, debounceClock: debounceClock, directory: directory)
    }

    func at(minute: Int) { clock.set(Timestamp(milliseconds: Timestamp(iso8601: "2026-11-22T08:00:00.000Z")!.milliseconds + Int64(minute) * 60_000)) }

    func requests(_ path: String) async -> Int { await upstream.requestLog.filter { $0.path == path }.count }

    func stop() async {
        await fetcher.shutdown()
        await upstream.stop()
    }
}
