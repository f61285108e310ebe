import ArgumentParser
import Fetchlog
import Foundation

/// The clock the CLI runs on: `$FETCHLOG_NOW` (ISO 8601) when set, else the system clock.
func cliClock() -> any Clock {
    if let now = ProcessInfo.processInfo.environment["FETCHLOG_NOW"], let time = Timestamp(iso8601: now) {
        return FixedClock(time)
    }
    return SystemClock()
}

/// `fetchlog status`: every resource with its freshness, last success and last error.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Every resource: freshness (fresh, stale, missing; failing), last success, last error.")
    @OptionGroup var storeOptions: StoreOptions
    @Flag(help: "Print canonical JSON.") var json = false

    func run() async throws {
        let log = try reportingErrors { try storeOptions.open() }
        let clock = cliClock()
        let store = try await openLiveStore(log, fetcher: nil, clock: clock)
        let report = FreshnessReport(state: store.snapshot.state, policy: FreshnessPolicy(), now: clock.now())
        if json {
            say(report.json.canonicalText())
            return
        }
        let out = OutputBuffer()
        out.line(Format.padRight("resource", 44) + Format.padRight("freshness", 18) + Format.padRight("last success", 40) + "last error")
        for row in report.rows {
            let success = row.lastSuccess.map { "\($0.iso8601) (\(report.age(of: $0)))" } ?? "never"
            out.line(Format.padRight(row.key.description, 44) + Format.padRight(row.levelText, 18) + Format.padRight(success, 40)
                + (row.currentError ?? "-"))
        }
        out.flush()
    }
}
