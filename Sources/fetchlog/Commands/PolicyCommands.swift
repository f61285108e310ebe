import ArgumentParser
import FetchlogCore
import FetchlogSources
import Foundation

/// `$FETCHLOG_NOW` that is not an ISO 8601 time: refused rather than silently ignored.
struct ClockSettingError: Error, CustomStringConvertible {
    let value: String
    var description: String {
        "FETCHLOG_NOW='\(value)' is not an ISO 8601 time (e.g. 2026-11-22T08:30:00Z); set it to one or unset it"
    }
}

/// The clock the CLI runs on: `$FETCHLOG_NOW` (ISO 8601) when set, else the system clock.
func cliClock() throws -> any WallClock {
    guard let now = ProcessInfo.processInfo.environment["FETCHLOG_NOW"], !now.isEmpty else { return SystemClock() }
    guard let time = Timestamp(iso8601: now) else { throw ClockSettingError(value: now) }
    return FixedClock(time)
}

/// `status`: every resource with its freshness, last success and last error. The same
/// rows, columns and JSON shape (one object per resource) on the command line and in the shell.
struct StatusCommand: SharedCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Every resource: freshness (fresh, stale, missing; failing), last success, last error.")
    static let usage = "status"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Flag(name: .long, help: .hidden) var json = false
    var legacyJSON: Bool { json }

    func run() async throws {
        try await runOnCommandLine(legacyJSON: json)
    }

    func output(_ context: CommandContext) async throws -> Output? {
        let state = try await context.liveState()
        let policy = context.session?.policy
        let report = FreshnessReport(state: state, policy: policy?.policy ?? FreshnessPolicy(sources: state.sources), now: context.clock.now())
        var rows: [[String]] = []
        for row in report.rows {
            var level = row.levelText
            if let policy, let resource = state.sources.resource(source: row.key.source, label: row.key.path), policy.isRevalidating(resource) {
                level += ", revalidating"
            }
            let success = row.lastSuccess.map { "\($0.iso8601) (\(report.age(of: $0)))" } ?? "never"
            rows.append([row.key.description, level, success, row.currentError ?? "-"])
        }
        return .table(columns: ["resource", "freshness", "last success", "last error"], rows: rows, records: report.rows.map(\.json),
                      footer: report.rows.isEmpty ? "no resources held yet: fetch one (help fetch)" : nil)
    }
}
