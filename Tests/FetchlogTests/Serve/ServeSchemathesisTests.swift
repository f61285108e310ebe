import Foundation
import Testing
@testable import FetchlogCore

/// Issue 33: schemathesis (4.x, `pip install 'schemathesis==4.*'`; written with 4.32.5) generates requests from
/// `/api/openapi.json` and checks each answer against it, against a real `serve` on
/// loopback: every check, derandomized (the same cases each run), at most 25 examples
/// per operation (about 650 requests, a few seconds). Any request the document allows that the server refuses, any refusal it
/// does not list, any bound it does not state, is a failure; there must be none.
@Suite(.serialized) struct ServeSchemathesisTests {
    @Test func schemathesisFindsNoFailureInTheOpenAPIDocument() async throws {
        let dir = try await ServeAPITests.sampleStore("serve-schemathesis")
        // A fetch the fuzzer manages to ask for goes to a closed port on loopback, never out.
        let server = try await ServeProcess(store: dir.path, environment: ["FETCHLOG_UPSTREAM": "http://127.0.0.1:1"], readsActionToken: true)
        // schemathesis's working directory (it may leave files there), removed afterwards.
        let work = TemporaryDirectory("serve-schemathesis-work")
        try FileManager.default.createDirectory(atPath: work.path, withIntermediateDirectories: true)
        let run = try await offPool { () -> (Int32, String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            // `--generation-deterministic`: the same cases every run (it implies no example
            // database, and `--seed` is then unused). GET /api/stream is left out: its 200 is a
            // stream that never ends, each such case would wait out the request timeout; its
            // refusals are ServeAPITests', its bound ServeStreamBoundTests'.
            process.arguments = ["schemathesis", "run", server.base + "/api/openapi.json",
                                 "--checks", "all", "--max-examples", "25", "--generation-deterministic",
                                 "--workers", "1", "--no-color", "--exclude-path", "/api/stream",
                                 // The actions are fuzzed with their token (and `ignored_auth` checks they refuse without it).
                                 "-H", "Authorization: Bearer \(server.actionToken)"]
            var environment = ProcessInfo.processInfo.environment
            environment["SCHEMATHESIS_HOOKS"] = nil
            process.environment = environment
            process.currentDirectoryURL = URL(fileURLWithPath: work.path)
            let out = Pipe()
            process.standardOutput = out
            process.standardError = out
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        // schemathesis exits 1 when a check failed (and says which), 0 when none did.
        #expect(run.0 == 0, "\(run.1)")
        #expect(run.1.contains("No issues found"), "\(run.1.suffix(3000))")
        #expect(!run.1.contains("FAILURES"), "\(run.1.suffix(3000))")
        try await server.stop()
    }
}
