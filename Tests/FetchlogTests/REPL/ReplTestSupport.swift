import Foundation
@testable import FetchlogCore
@testable import FetchlogSources

/// Runs `fetchlog demo` (the bundled upstream in-process, a fresh demo store, the first
/// pages of every source) with `script` on stdin, at a fixed clock and width.
func runDemoScript(_ script: [String], store: String, extraArguments: [String] = []) async throws -> CommandResult {
    try await runFetchlog(["demo", "--store", store] + extraArguments, environment: demoEnvironment,
                          stdin: script.joined(separator: "\n") + "\n")
}

let demoEnvironment = ["FETCHLOG_NOW": "2026-11-22T09:00:00Z", "COLUMNS": "100", "FETCHLOG_UPSTREAM": ""]

/// Output with what legitimately varies between runs (the upstream's port, measured
/// durations, checksums over them, store ids) replaced by fixed words.
func normalized(_ text: String) -> String {
    var s = text
    let rules: [(String, String)] = [
        (#"127\.0\.0\.1:[0-9]+"#, "127.0.0.1:PORT"),
        (#"[0-9]+\.[0-9]{3} ms"#, "N ms"),
        (#"crc32c:[0-9a-f]{8}"#, "crc32c:CHECKSUM"),
        (#"id [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"#, "id STORE-ID"),
        (#"time: [0-9.]+ s"#, "time: N s"),
        (#"/tmp/[^ \n]*"#, "/TMP"),
    ]
    for (pattern, replacement) in rules {
        s = s.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
    }
    return s
}
