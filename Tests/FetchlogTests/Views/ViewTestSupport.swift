import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Builds states the way the log does: `fetched` events with real recorded bodies,
/// folded by `LogReducer`.
struct StateBuilder {
    private(set) var events: [Event] = []
    private var clock = fixedTime

    /// A `fetched` event of `resource` whose body is the fixture file (path under
    /// Tools/SampleUpstream/Sources/SampleUpstream/Fixtures/) or the given bytes.
    mutating func fetched(_ resource: Resource, fixture: String) throws {
        fetched(resource, body: try Fixture.bytes(fixture))
    }

    mutating func fetched(_ resource: Resource, body: [UInt8], etag: String? = nil) {
        append(Event(recordedAt: clock, kind: .fetched, source: resource.source.rawValue, label: resource.path,
                     request: Event.Request(url: "http://127.0.0.1:1/\(resource.source)\(resource.path)"),
                     response: Event.Response(status: 200, headers: etag.map { [Header("ETag", $0)] } ?? []), body: body))
    }

    mutating func intent(_ source: String, _ label: String, _ json: String) {
        append(Event(recordedAt: clock, kind: .intent, source: source, label: label, body: Array(json.utf8)))
    }

    mutating func append(_ event: Event) {
        var e = event
        e.seq = UInt64(events.count + 1)
        events.append(e)
        clock.milliseconds += 1000
    }

    var state: LogState { LogReducer.fold(events, sources: .seed) }
}

/// Validates one JSON document against Schemas/<name>.schema.json with Python's
/// jsonschema (Tools/validate-json.py); returns the validator's output line.
func validate(_ json: JSONValue, schema name: String) async throws -> (ok: Bool, output: String) {
    let file = NSTemporaryDirectory() + "fetchlog-schema-\(UUID().uuidString.prefix(8)).json"
    try (json.canonicalText() + "\n").write(toFile: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: file) }
    return try await validateFile(file, schema: name)
}

/// Runs Tools/validate-json.py on a file (each line a document with `ndjson`), off the
/// cooperative pool.
func validateFile(_ file: String, schema name: String, ndjson: Bool = false) async throws -> (ok: Bool, output: String) {
    try await offPool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Repo.root + "/Tools/validate-json.py", Repo.root + "/Schemas/\(name).schema.json"]
            + (ndjson ? ["--ndjson"] : []) + [file]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus == 0, output)
    }
}
