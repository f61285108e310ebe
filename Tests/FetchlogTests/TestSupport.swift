import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// A fresh directory under the system temp dir, removed when the test ends.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    init(_ name: String = "store") {
        path = NSTemporaryDirectory() + "fetchlog-test-\(name)-\(UUID().uuidString.prefix(8))"
    }

    func sub(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

enum Repo {
    /// The repository root, found from this file's path.
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.path + "/Package.swift") { return url.path }
        }
        fatalError("no Package.swift above \(#filePath)")
    }()

    static var sampleLog: String { root + "/Sources/fetchlog/Resources/sample-log.ndjson" }

    /// The `fetchlog` executable built beside the test bundle.
    static let executable: String = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path,
            Bundle.main.bundleURL.deletingLastPathComponent().path,
            root + "/.build/debug",
        ]
        for dir in candidates where FileManager.default.isExecutableFile(atPath: dir + "/fetchlog") {
            return dir + "/fetchlog"
        }
        fatalError("fetchlog executable not found in \(candidates)")
    }()
}

struct CommandResult {
    let status: Int32
    let stdout: String
    let stderr: String
    /// Ended by a signal (a crash: SIGSEGV, SIGBUS, SIGTRAP…); `status` is then the signal's number.
    var signaled = false
}

/// Runs blocking work (waiting on a child process, a disk-heavy loop) on a thread of its
/// own, outside Swift's cooperative pool: a blocked pool thread would starve the sample
/// upstream servers other tests run in this process (2 cores, 2 pool threads).
func offPool<T: Sendable>(lowestPriority: Bool = false, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            // A long CPU-bound test (the index differential tests) yields the cores to the
            // rest of the suite, whose network tests bound their times: nice 19 for this
            // thread only (on Linux the nice value is per thread; 0 names the calling one).
            // Elsewhere it is the process's: left alone.
            #if os(Linux)
            if lowestPriority { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) }
            #endif
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// Runs `body` at a priority above the rest of the suite, for a test that bounds how long
/// the engine takes to react (a cancelled fetch ends within 5 s). Swift Testing runs every
/// test at once, and on two cores the default-priority queue holds seconds of other tests'
/// work: each hop of a cancellation (the client's event loop resuming the fetch, the fetch
/// task ending, its waiter resuming) would wait behind it, and the bound would measure the
/// suite. On Linux each priority has its own dispatch root queue and threads, and a task
/// and the unstructured tasks it starts keep its priority, so the engine's jobs for this
/// test run as a command's would in its own process. It does not shorten any wait.
func aheadOfTheSuite<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await Task(priority: .high) { try await body() }.value
}

/// Runs the real `fetchlog` binary.
func runFetchlog(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) async throws -> CommandResult {
    try await offPool { try runFetchlogBlocking(arguments, environment: environment, stdin: stdin) }
}

func runFetchlogBlocking(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> CommandResult {
    try runProcessBlocking(Repo.executable, arguments, environment: environment, stdin: stdin)
}

/// Runs any program to its end off the cooperative pool.
func runProcess(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
    try await offPool { try runProcessBlocking(executable, arguments, environment: environment) }
}

/// Runs a program to its end, feeding `stdin` and collecting both output streams.
func runProcessBlocking(_ executable: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    // Drain both pipes concurrently so a chatty child never blocks on a full pipe.
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self), signaled: process.terminationReason == .uncaughtSignal)
}

/// Every file of a directory with its bytes, to prove a refused open changed nothing.
func snapshot(of directory: String) throws -> [String: Data] {
    var result: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
        result[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
    }
    return result
}

func bytesEqual(_ a: [UInt8], _ b: UnsafeRawBufferPointer) -> Bool {
    a.count == b.count && (a.isEmpty || a.withUnsafeBytes { memcmp($0.baseAddress!, b.baseAddress!, a.count) == 0 })
}

func bytesEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    b.withUnsafeBytes { bytesEqual(a, $0) }
}

let fixedTime = Timestamp(iso8601: "2026-11-22T07:00:00.000Z")!

/// An event with every optional part filled, for round trips.
func richEvent(body: [UInt8]? = Array(#"{"name":"Under the Dome","id":1}"#.utf8)) -> Event {
    Event(recordedAt: fixedTime, kind: .fetched, source: "tvmaze", label: "/shows/1", attempt: 2, durationMicros: 51_880,
          request: Event.Request(method: "GET", url: "http://127.0.0.1:8080/tvmaze/shows/1",
                                 headers: [Header("If-None-Match", "\"abc\"")]),
          response: Event.Response(status: 200, headers: [Header("ETag", "\"def\""), Header("Content-Type", "application/json")]),
          body: body)
}

/// A store in `dir/id` whose id is `id` (so tests can name whose events are whose).
func openStore(in dir: TemporaryDirectory, id: String) throws -> EventLog {
    var options = EventLog.Options()
    options.newStoreID = id
    return try EventLog.open(at: dir.sub(id), options: options)
}

extension FetchConfiguration {
    /// Fetches that must not fail or retry for a slow machine: the suite shares two cores
    /// with every other suite, where a loopback answer can take longer than the default
    /// timeouts (CI once recorded a fetch-failed at seq 1 and a retry that shifted a test's
    /// exact seqs). No retry, so a failure throws with its cause; margins far past any stall.
    mutating func bearTheSuitesLoad() {
        retry.retries = 0
        connectTimeout = .seconds(300)
        readTimeout = .seconds(300)
        deadline = .seconds(600)
        minimumRate = .off
    }
}
