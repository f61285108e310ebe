import Foundation
import Testing
@testable import FetchlogNATS

/// The suites that start `nats-server`, one at a time: a JetStream server starting beside
/// the rest of the suite was seen to take 30 s, and two at once add to the disk's load.
@Suite(.serialized) enum NATSSuites {}

/// A real `nats-server` (Debian's 2.9.10) with JetStream on loopback, its store in a
/// temporary directory: started by a test, stopped (SIGTERM, then SIGKILL) by it.
final class NATSServerProcess: @unchecked Sendable {
    let port: Int
    let directory: TemporaryDirectory
    private let process = Process()
    var url: String { "nats://127.0.0.1:\(port)" }

    /// Starts a server and waits until it answers (10 s at most).
    init(name: String = "n1") async throws {
        directory = TemporaryDirectory("nats-\(name)")
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        port = Self.freePort()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", directory.sub("js"), "--server_name", name]
        let logFile = directory.sub("server.log")
        FileManager.default.createFile(atPath: logFile, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: logFile)
        try process.run()
        // Generous: under the full suite on two cores (fsync-heavy tests beside it) JetStream was
        // seen to take over 30 s to start.
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if Self.accepts(port) { return }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        stop()
        let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        throw NATSTestError("nats-server did not start on port \(port) (\(Self.executable) \(process.arguments!.joined(separator: " "))): \(log.suffix(800))")
    }

    static var executable: String {
        for path in ["/usr/bin/nats-server", "/usr/sbin/nats-server", "/usr/local/bin/nats-server"] where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        return "/usr/bin/nats-server"
    }

    /// SIGKILL, at once: a graceful JetStream shutdown can take seconds under load, and
    /// `stop()` runs on the cooperative pool (a `defer` in an async test), where waiting for
    /// it would hold up every other test's tasks (seen: a 5 s bound elsewhere missed).
    /// The store is a temporary directory; nothing is kept.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// A port the kernel just gave out (bound to 0, then released).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

struct NATSTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
