import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Edges of the command line a review found, each held by a test: a refused directory keeps
/// its mode, import reads pipes whole, opening never waits behind an import, output is
/// written through, `--format` on every shell command.
@Suite(.serialized) struct CommandLineEdgeTests {
    @Test func aRefusedDirectoryKeepsItsMode() async throws {
        let dir = TemporaryDirectory("review-mode")
        try FileManager.default.createDirectory(atPath: dir.sub("shared"), withIntermediateDirectories: true)
        chmod(dir.sub("shared"), 0o1777)
        try "x".write(toFile: dir.sub("shared/x"), atomically: false, encoding: .utf8)
        let result = try await runFetchlog(["--store", dir.sub("shared"), "log", "tail"])
        #expect(result.status == 3)
        var info = stat()
        #expect(stat(dir.sub("shared"), &info) == 0 && info.st_mode & 0o7777 == 0o1777)
    }

    @Test func importReadsPipesAndStdinWhole() async throws {
        let dir = TemporaryDirectory("review-pipe")
        let viaShell = try await offPool {
            try runProcessBlocking("/bin/bash", ["-c", "\"$1\" --store \"$2\" log import <(cat \"$3\") && cat \"$3\" | \"$1\" --store \"$4\" log import /dev/stdin",
                                                "bash", Repo.executable, dir.sub("a"), Repo.sampleLog, dir.sub("b")])
        }
        #expect(viaShell.status == 0, "\(viaShell.stderr)")
        #expect(viaShell.stdout == "imported 13 events into \(dir.sub("a")), seq 1…13\nimported 13 events into \(dir.sub("b")), seq 1…13\n")
        let missing = try await runFetchlog(["--store", dir.sub("c"), "log", "import", dir.sub("nothing.ndjson")])
        #expect(missing.status == 64)
        #expect(missing.stderr.hasPrefix("Error: cannot read \(dir.sub("nothing.ndjson")): no such file or directory\n"))
        #expect(!FileManager.default.fileExists(atPath: dir.sub("c")))
    }

    /// Opening an existing store takes no write lock: a command runs while an import into
    /// it waits on a FIFO (holding LMDB's write transaction).
    @Test func openingDoesNotWaitBehindAnImport() async throws {
        let dir = TemporaryDirectory("review-open")
        let store = dir.sub("store")
        #expect(try await runFetchlog(["--store", store, "log", "stats"]).status == 0)
        let fifo = dir.sub("fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let importer = Process()
        importer.executableURL = URL(fileURLWithPath: Repo.executable)
        importer.arguments = ["--store", store, "log", "import", fifo]
        importer.standardOutput = FileHandle.nullDevice
        importer.standardError = FileHandle.nullDevice
        try importer.run()
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        let tail = try await runFetchlog(["--store", store, "log", "tail"])
        #expect(tail.status == 0, "\(tail.stderr)")
        #expect(ContinuousClock.now - started < .seconds(5))
        // Let the importer finish: it reads the sample log from the FIFO.
        let writer = try #require(FileHandle(forWritingAtPath: fifo))
        try writer.write(contentsOf: try Data(contentsOf: URL(fileURLWithPath: Repo.sampleLog)))
        try writer.close()
        try await offPool { importer.waitUntilExit() }
        #expect(importer.terminationStatus == 0)
        #expect(try await runFetchlog(["--store", store, "log", "verify"]).stdout == "ok: 13 events, seq 1…13, every checksum valid\n")
    }

    @Test func standardOutputIsWrittenThroughAndAppendedTo() async throws {
        let dir = TemporaryDirectory("review-stdout")
        let store = dir.sub("store")
        #expect(try await runFetchlog(["--store", store, "log", "import", Repo.sampleLog]).status == 0)
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let file = dir.sub("out.txt")
        let result = try await offPool {
            try runProcessBlocking("/bin/bash", ["-c", "echo hello > \"$3\"; \"$1\" --store \"$2\" log export --out /dev/stdout >> \"$3\"; \"$1\" --store \"$2\" export shows --out /dev/stdout | head -c 9",
                                                "bash", Repo.executable, store, file])
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "{\"asOf\":1")
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "hello")
        #expect(lines.count == 14)
    }

    @Test func formatOnAnyShellCommandAndTheShellsFetchRefusesStartOptions() async throws {
        let dir = TemporaryDirectory("review-format")
        let store = dir.sub("store")
        #expect(try await runFetchlog(["--store", store, "log", "import", Repo.sampleLog]).status == 0)
        let env = ["FETCHLOG_NOW": "2026-11-01T09:20:00Z"]
        let result = try await runFetchlog(["--store", store, "--offline", "repl"], environment: env,
                                           stdin: "gnomes --limit 2 --format json\nfetch brastlewark census --upstream http://127.0.0.1:1\n")
        let lines = result.stdout.split(separator: "\n")
        #expect(try JSONValue.parse(String(lines[0])).arrayValue?.map { $0["id"] } == [.number(0), .number(11)])
        #expect(result.status == 64)
        #expect(result.stderr.contains("error: --upstream is set when the shell starts (fetchlog --upstream … repl); this shell fetches with its own settings\n"))
        let tial = try await runFetchlog(["--store", store, "log", "tial"])
        #expect(tial.status == 64)
        #expect(tial.stderr == "fetchlog: log has no 'tial' (did you mean 'tail'?); fetchlog log --help lists them\n")
        let hoisted = try await runFetchlog(["--store", store, "log", "--format", "json", "tail", "1"])
        #expect(try JSONValue.parse(hoisted.stdout).arrayValue?.first?["seq"] == .number(13))
    }
}
