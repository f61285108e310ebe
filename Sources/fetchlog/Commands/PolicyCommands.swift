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
        let state = store.snapshot.state
        let policy = FreshnessPolicy()
        let now = clock.now()
        let rows = StatusView(state: state).rows
        if json {
            let items: [JSONValue] = rows.map { row in
                let f = policy.evaluate(row.key, in: state, now: now)
                return .object([
                    ("source", .string(row.key.source)), ("path", .string(row.key.path)),
                    ("freshness", .string(f.level.rawValue)), ("failing", .bool(f.isFailing)),
                    ("lastUpdated", .optional(f.lastUpdated?.iso8601)), ("validUntil", .optional(f.validUntil?.iso8601)),
                    ("lastSuccess", .optional(row.status.lastSuccess?.iso8601)), ("lastError", .optional(row.status.lastError)),
                ])
            }
            say(JSONValue.object([("now", .string(now.iso8601)), ("resources", .array(items))]).canonicalText())
            return
        }
        let out = OutputBuffer()
        out.line(Format.padRight("resource", 44) + Format.padRight("freshness", 18) + Format.padRight("last success", 40) + "last error")
        for row in rows {
            let f = policy.evaluate(row.key, in: state, now: now)
            var level = f.level.rawValue
            if f.isFailing { level += " (failing)" }
            let success = row.status.lastSuccess.map { "\($0.iso8601) (\(AgeText.describe(milliseconds: now.milliseconds - $0.milliseconds)) ago)" } ?? "never"
            let error = f.isFailing ? (row.status.lastError ?? "-") : "-"
            out.line(Format.padRight(row.key.description, 44) + Format.padRight(level, 18) + Format.padRight(success, 40) + error)
        }
        out.flush()
    }
}
