import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Replay reports its progress (issue 12, item 11): what `replay` draws on a terminal.
@Suite struct ReplayProgressTests {
    @Test func replayReportsEvery256EventsOfTheTotal() throws {
        let dir = TemporaryDirectory("replay-progress")
        let log = try EventLog.open(at: dir.path)
        let events = (1 ... 1000).map { i in
            Event(recordedAt: fixedTime, kind: .intent, source: "brastlewark", label: "filter.reset", body: Array("{}".utf8))
        }
        _ = try log.appendBlocking(contentsOf: events)
        var calls: [[UInt64]] = []
        _ = try Store.replay(log, sources: .seed, progress: { calls.append([$0, $1]) })
        #expect(calls == [[256, 1000], [512, 1000], [768, 1000]])
        calls = []
        _ = try Store.replay(log, sources: .seed, to: 600, progress: { calls.append([$0, $1]) })
        #expect(calls == [[256, 600], [512, 600]])
    }
}
