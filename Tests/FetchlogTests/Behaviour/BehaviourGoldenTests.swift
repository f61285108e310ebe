import Foundation
import Testing

/// Issue 14's acceptance: moving the engine into `FetchlogCore` and the five sources into
/// plug-ins changed no answer. The files under `Golden/` were recorded with the binary built
/// from the last commit before the move (86eec84's parent, `f4d6373`), on the shipped
/// sample log and on a demo store; every case here runs the same command with today's binary
/// and compares stdout and the exit status byte for byte (after `normalized`, which only
/// replaces the upstream's port, durations, checksums over them, store ids and temp paths).
///
/// To re-record after an intended change: `FETCHLOG_RECORD_GOLDEN=1 swift test --filter
/// BehaviourGoldenTests` (optionally `FETCHLOG_GOLDEN_BINARY=PATH` to record with another
/// build), then review the diff of `Golden/`.
@Suite(.serialized) struct BehaviourGoldenTests {
    static let folder = Repo.root + "/Tests/FetchlogTests/Behaviour/Golden/"
    static let sampleLog = Repo.root + "/Sources/fetchlog/Resources/sample-log.ndjson"
    static var binary: String { ProcessInfo.processInfo.environment["FETCHLOG_GOLDEN_BINARY"] ?? Repo.executable }
    static var recording: Bool { ProcessInfo.processInfo.environment["FETCHLOG_RECORD_GOLDEN"] == "1" }

    static let sampleCases: [(name: String, arguments: [String])] = [
        ("sample-export-all", ["export", "all"]),
        ("sample-replay-verify", ["replay", "--verify"]),
        ("sample-replay", ["replay"]),
        ("sample-replay-json", ["replay", "--format", "json"]),
        ("sample-status-json", ["status", "--format", "json"]),
        ("sample-export-show-1", ["export", "show/1"]),
        ("sample-export-gnomes-at-5", ["export", "gnomes", "--at", "5"]),
        ("sample-export-filters", ["export", "filters"]),
        ("sample-export-status-at-9", ["export", "status", "--at", "9"]),
        ("sample-export-unknown-view", ["export", "shos"]),
    ]

    /// The demo's shell, one command per line, on the demo store (every seed source).
    static let demoScript = [
        "sources", "shows", "show 1", "episodes 1", "gnomes tinker", "gnome 0", "filter set hair_color=pink", "gnomes",
        "friends 0", "path 0 237", "pages", "page /ios-se", "sections", "home", "artworks", "artwork 4", "artist 2",
        "search shows girls", "status", "export filters", "at 1 shows", "diff 1 2 status", "replay --verify",
    ]

    func run(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) async throws -> CommandResult {
        let binary = Self.binary
        return try await offPool { try runProcessBlocking(binary, arguments, environment: environment, stdin: stdin) }
    }

    /// Compares (or records) one output: the exit status on the first line, then stdout.
    func check(_ name: String, _ result: CommandResult) throws {
        let actual = "exit \(result.status)\n" + normalized(result.stdout)
        let path = Self.folder + name + ".txt"
        if Self.recording {
            try actual.write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        guard actual != expected else { return }
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let line = (0 ..< min(a.count, e.count)).first { a[$0] != e[$0] } ?? min(a.count, e.count)
        Issue.record("""
            \(name) differs from Golden/\(name).txt at line \(line + 1):
              expected: \(line < e.count ? String(e[line]) : "<end>")
              actual:   \(line < a.count ? String(a[line]) : "<end>")
            stderr: \(result.stderr.prefix(400))
            """)
    }

    @Test func theSampleLogAnswersAsBeforeTheMove() async throws {
        let dir = TemporaryDirectory("golden-sample")
        let imported = try await run(["--store", dir.path, "log", "import", Self.sampleLog])
        #expect(imported.status == 0, "\(imported.stderr)")
        for (name, arguments) in Self.sampleCases {
            try check(name, try await run(["--store", dir.path] + arguments, environment: ["COLUMNS": "100"]))
        }
    }

    @Test func theDemoStoreAnswersAsBeforeTheMove() async throws {
        let dir = TemporaryDirectory("golden-demo")
        let demo = try await run(["demo", "--store", dir.path], environment: demoEnvironment,
                                 stdin: Self.demoScript.joined(separator: "\n") + "\n")
        try check("demo-shell", demo)
        try check("demo-export-all", try await run(["--store", dir.path, "export", "all"], environment: demoEnvironment))
        try check("demo-replay-verify", try await run(["--store", dir.path, "replay", "--verify"], environment: demoEnvironment))
        try check("demo-status-json", try await run(["--store", dir.path, "status", "--format", "json"], environment: demoEnvironment))
    }
}
