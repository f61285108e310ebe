import Foundation
import Logging
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Logging through swift-log (issue 12, item 12): a retry is logged at info with its wait,
/// requests and outcomes at debug, and no body reaches the log. The logger is passed in the
/// fetch configuration, so nothing is bootstrapped process-wide.
@Suite(.serialized) struct FetchLoggingTests {
    final class Captured: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [(level: Logger.Level, message: String, metadata: [String: String])] = []
        func append(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata?) {
            let flat = (metadata ?? [:]).mapValues { "\($0)" }
            lock.withLock { lines.append((level, message, flat)) }
        }
        var all: [(level: Logger.Level, message: String, metadata: [String: String])] { lock.withLock { lines } }
    }

    struct CapturingHandler: LogHandler {
        let sink: Captured
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
                 file: String, function: String, line: UInt) {
            sink.append(level, message.description, metadata)
        }
    }

    @Test func aRetryIsLoggedWithItsWait() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration(faults: [Fault(match: "/brastlewark", kind: .failNext(1))]))
        let base = try await upstream.start().absoluteString
        let directory = TemporaryDirectory("logging")
        let log = try EventLog.open(at: directory.path)
        let captured = Captured()
        var configuration = FetchHarness.fetchConfiguration(base: base)
        configuration.logger = Logger(label: "fetchlog.fetch") { _ in CapturingHandler(sink: captured) }
        configuration.logger.logLevel = .debug
        let fetcher = Fetcher(sources: .seed, configuration: configuration)
        let report = try await Store(log: log, sources: .seed, fetcher: fetcher).fetch(.brastlewarkCensus)
        #expect(report.outcome == .fetched)
        let wait = try #require(report.attempts.first?.retryAfter)

        let lines = captured.all
        #expect(lines.map(\.message) == ["request", "response", "retrying", "request", "response"])
        #expect(lines.map(\.level) == [.debug, .debug, .info, .debug, .debug])
        #expect(lines[1].metadata["status"] == "503")
        #expect(lines[2].metadata["wait"] == "\(wait)")
        #expect(lines[2].metadata["next"] == "2")
        #expect(lines[2].metadata["reason"] == "http-status: HTTP 503 Service Unavailable")
        #expect(lines[3].metadata["url"] == base + "/brastlewark/data.json")
        #expect(lines[4].metadata["status"] == "200")
        // Sizes, never bytes: neither the 503's body nor the census appears.
        let served = try Fixture.bytes("brastlewark/census.json").count
        #expect(lines[4].metadata["bodyBytes"] == "\(served)")
        let everything = lines.flatMap { [$0.message] + $0.metadata.values }.joined(separator: "\n")
        #expect(!everything.contains("injected fault") && !everything.contains("Brastlewark"))
        await fetcher.shutdown()
        await upstream.stop()
    }
}
