import Foundation
import Testing
@testable import FetchlogCore

/// Issue 33: schemathesis (4.x, `pip install 'schemathesis==4.*'`) generates requests from
/// `/api/openapi.json` and checks each answer against it, against a real `serve` on
/// loopback: every check, a fixed seed, derandomized, a bounded number of examples per
/// operation. Any request the document allows that the server refuses, any refusal it
/// does not list, any bound it does not state, is a failure; there must be none.
@Suite(.serialized) struct ServeSchemathesisTests {
    @Test func schemathesisFindsNoFailureInTheOpenAPIDocument() async throws {
        let dir = try await ServeAPITests.sampleStore("serve-schemathesis")
        // A fetch the fuzzer manages to ask for goes to a closed port on loopback, never out.
        let server = try await ServeProcess(store: dir.path, environment: ["FETCHLOG_UPSTREAM": "http://127.0.0.1:1"], readsActionToken: true)
        let reports = TemporaryDirectory("serve-schemathesis-report")
        let run = try await offPool { () -> (Int32, String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["schemathesis", "run", server.base + "/api/openapi.json",
                                 "--checks", "all", "--max-examples", "25", "--seed", "33", "--generation-deterministic",
                                 "--generation-database", "none", "--workers", "1", "--no-color",
                                 // The actions are fuzzed with their token (and `ignored_auth` checks they refuse without it).
                                 "-H", "Authorization: Bearer \(server.actionToken)",
                                 "--report", "junit", "--report-dir", reports.path]
            var environment = ProcessInfo.processInfo.environment
            environment["SCHEMATHESIS_HOOKS"] = nil
            process.environment = environment
            process.currentDirectoryURL = URL(fileURLWithPath: reports.path)
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
