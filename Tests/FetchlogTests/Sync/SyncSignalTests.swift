import Foundation
import Synchronization
import Testing
@testable import FetchlogCore

/// `fetchlog sync` without `--once` runs until a signal, and says what it recorded.
@Suite struct SyncSignalTests {
    /// A running `fetchlog`, its stdout read as it comes: a test waits for a line, not a time.
    final class Running: @unchecked Sendable {
        let process: Process
        private let out = Mutex(Data())
        private let err = Mutex(Data())
        private let waiters = Mutex<[(String, CheckedContinuation<Void, Never>)]>([])

        init(_ arguments: [String], environment: [String: String]) throws {
            process = Process()
            process.executableURL = URL(fileURLWithPath: Repo.executable)
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            for (key, value) in environment { env[key] = value }
            process.environment = env
            let outPipe = Pipe(), errPipe = Pipe()
            process.standardOutput = outPipe
            process.standardError = errPipe
            outPipe.fileHandleForReading.readabilityHandler = { [self] handle in
                let data = handle.availableData
                let text = out.withLock { $0.append(data); return String(decoding: $0, as: UTF8.self) }
                let ready = waiters.withLock { waiters in
                    let ready = waiters.filter { text.contains($0.0) || data.isEmpty }
                    waiters.removeAll { text.contains($0.0) || data.isEmpty }
                    return ready
                }
                for (_, continuation) in ready { continuation.resume() }
                if data.isEmpty { handle.readabilityHandler = nil }
            }
            errPipe.fileHandleForReading.readabilityHandler = { [self] handle in
                let data = handle.availableData
                err.withLock { $0.append(data) }
                if data.isEmpty { handle.readabilityHandler = nil }
            }
            try process.run()
        }

        var stdout: String { out.withLock { String(decoding: $0, as: UTF8.self) } }
        var stderr: String { err.withLock { String(decoding: $0, as: UTF8.self) } }

        /// Returns once stdout holds `text` (or is closed).
        func waitFor(_ text: String) async {
            await withCheckedContinuation { continuation in
                let now = waiters.withLock { waiters -> Bool in
                    if String(decoding: out.withLock { $0 }, as: UTF8.self).contains(text) { return true }
                    waiters.append((text, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        }

        /// Waits for the process to end; its status and what stderr held.
        func end() async throws -> Int32 {
            let process = process
            return try await offPool {
                process.waitUntilExit()
                return process.terminationStatus
            }
        }
    }

    static func start(_ rig: ManifestCLIRig) throws -> Running {
        try Running(["--store", rig.store, "--upstream", rig.upstream.base, "--retries", "0", "--format", "ndjson", "sync", "catalog/items"],
                    environment: ["FETCHLOG_NOW": "2026-11-22T08:00:00Z"])
    }

    @Test func sigintEndsItSayingWhatWasRecorded() async throws {
        let rig = try await ManifestCLIRig.start("sync-sigint", manifest: SyncCommandTests.catalog)
        let running = try Self.start(rig)
        // The first pass ends, and the loop sleeps until items fall due.
        await running.waitFor(#""type":"sleep""#)
        #expect(running.stdout.contains(#"{"type":"sleep","until":"2026-11-22T08:15:00.000Z"}"#), "\(running.stdout)")
        running.process.interrupt()
        #expect(try await running.end() == 130)
        let lines = running.stdout.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
        #expect(lines.map { $0["type"]?.stringValue ?? "?" } == ["pass", "attempt", "attempt", "attempt", "resource", "summary", "sleep"])
        #expect(running.stderr.hasSuffix("fetchlog: sync interrupted: 3 events recorded (seq 2…4); a request in flight when it stopped was not\n"),
                "\(running.stderr)")
        await rig.stop()
    }

    @Test func sigtermEndsItCleanly() async throws {
        let rig = try await ManifestCLIRig.start("sync-sigterm", manifest: SyncCommandTests.catalog)
        let running = try Self.start(rig)
        await running.waitFor(#""type":"sleep""#)
        running.process.terminate()
        #expect(try await running.end() == 0)
        #expect(running.stderr.hasSuffix("fetchlog: sync stopped (SIGTERM): 3 events recorded (seq 2…4); a request in flight when it stopped was not\n"),
                "\(running.stderr)")
        await rig.stop()
    }
}
