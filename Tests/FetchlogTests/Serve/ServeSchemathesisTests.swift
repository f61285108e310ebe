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
        // A query over 2 KiB is refused 414 before it is read (the document lists it on every
        // route): for `negative_data_rejection` that is a rejection too, as 400 is; its default
        // list has no 414, so a long invalid query (an array of seqs) read as "accepted".
        // SQL (`GET /api/sql?q=`, `POST /api/sql {"sql"}`) is a string no schema can bound: a
        // generated one is almost never valid SQL, and is refused 400 as `fetchlog sql` refuses
        // it (exit 1 or 64). For those two operations alone, 400 is an acceptance of valid data
        // too; every other check (the documented statuses, the error shape, no 5xx) still holds.
        let config = work.sub("schemathesis.toml")
        try """
            [checks.negative_data_rejection]
            expected-statuses = [400, 401, 403, 404, 405, 406, 409, 414, 415, 422, 428, 429]

            [[operations]]
            include-path = "/api/sql"
            checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429"]

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let run = try await offPool { () -> (Int32, String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            // `--generation-deterministic`: the same cases every run (it implies no example
            // database, and `--seed` is then unused). GET /api/stream is left out: its 200 is a
            // stream that never ends, each such case would wait out the request timeout; its
            // refusals are ServeAPITests', its bound ServeStreamBoundTests'.
            process.arguments = ["schemathesis", "--config-file", config, "run", server.base + "/api/openapi.json",
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
        // Its last line sums up: "No issues found in …", or "1 warning in …" (operations
        // that answered only 404: the fuzzer knows no view name or mutation id); never a
        // failure or an error.
        let summary = run.1.split(separator: "\n").last(where: { $0.hasPrefix("=") }).map(String.init) ?? ""
        #expect(summary.contains(" in ") && !summary.contains("failure") && !summary.contains("error"), "\(summary)")
        #expect(!run.1.contains("FAILURES"), "\(run.1.suffix(3000))")
        try await server.stop()
    }
}
