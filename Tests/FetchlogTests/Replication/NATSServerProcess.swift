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
    private let lock = NSLock()
    private var current = Process()
    private var process: Process { lock.withLock { current } }
    private let arguments: [String]
    private var logFile: String { directory.sub("server.log") }
    var url: String { "nats://127.0.0.1:\(port)" }

    /// Starts a server and waits until it answers. In a cluster (`cluster`: this node's
    /// route port and its peers'), JetStream answers only once the nodes have elected a
    /// meta leader: see `NATSCluster`.
    ///
    /// `config`: a configuration file's text instead (given the directory for its store);
    /// it must listen on `port`.
    init(name: String = "n1", port: Int? = nil, cluster: (port: Int, peers: [Int])? = nil,
         config: ((_ directory: String) -> String)? = nil) async throws {
        directory = TemporaryDirectory("nats-\(name)")
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        self.port = port ?? Self.freePort()
        var arguments = ["-js", "-a", "127.0.0.1", "-p", String(self.port), "-sd", directory.sub("js"), "--server_name", name]
        if let config {
            try config(directory.sub("js")).write(toFile: directory.sub("server.conf"), atomically: true, encoding: .utf8)
            arguments = ["-c", directory.sub("server.conf")]
        } else if let cluster {
            arguments += ["--cluster_name", "fetchlog-test", "--cluster", "nats://127.0.0.1:\(cluster.port)",
                          "--routes", cluster.peers.map { "nats://127.0.0.1:\($0)" }.joined(separator: ",")]
        }
        self.arguments = arguments
        FileManager.default.createFile(atPath: directory.sub("server.log"), contents: nil)
        try await run()
    }

    /// Starts the server again after `stop()`: same port, same JetStream store.
    func restart() async throws {
        stop()
        try await run()
    }

    private func run() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let log = FileHandle(forWritingAtPath: logFile)
        log?.seekToEndOfFile()
        process.standardError = log
        lock.withLock { current = process }
        try process.run()
        // Generous: under the full suite on two cores (fsync-heavy tests beside it) JetStream was
        // seen to take over 30 s to start.
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if Self.accepts(self.port) { return }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        stop()
        let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        throw NATSTestError("nats-server did not start on port \(self.port) (\(Self.executable) \(arguments.joined(separator: " "))): \(text.suffix(800))")
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
        let process = self.process
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    var isRunning: Bool { process.isRunning }

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

/// Three `nats-server` nodes on loopback routed into one JetStream cluster.
struct NATSCluster {
    let nodes: [(name: String, server: NATSServerProcess)]
    var urls: [String] { nodes.map(\.server.url) }

    static func start() async throws -> NATSCluster {
        let names = ["n1", "n2", "n3"]
        let routes = names.map { _ in NATSServerProcess.freePort() }
        var nodes: [(String, NATSServerProcess)] = []
        for (index, name) in names.enumerated() {
            let peers = routes.enumerated().filter { $0.offset != index }.map(\.element)
            nodes.append((name, try await NATSServerProcess(name: name, cluster: (routes[index], peers))))
        }
        return NATSCluster(nodes: nodes)
    }

    func node(named name: String) -> NATSServerProcess? { nodes.first { $0.name == name }?.server }

    func stop() { nodes.forEach { $0.server.stop() } }

    /// Starts every node again (same ports and stores) after a stop.
    func restart() async throws {
        for node in nodes { try await node.server.restart() }
    }
}

/// Runs `body` until it stops throwing or `timeout` passes (then throws its last error):
/// for what a cluster answers only once it has elected its leaders.
func retrying<T>(for timeout: Duration, _ body: () throws -> T) throws -> T {
    let deadline = ContinuousClock.now + timeout
    while true {
        do { return try body() } catch {
            if ContinuousClock.now >= deadline { throw error }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }
}

/// The convergence every replication test ends with: `export all` of each store is
/// byte-identical to the first's, which is at `seq`, and `replay --verify` passes on each.
func expectConverged(_ stores: [String], at seq: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let first = try await runFetchlog(["--store", stores[0], "export", "all"])
    #expect(first.status == 0, "\(first.stderr)", sourceLocation: sourceLocation)
    #expect(first.stdout.hasPrefix(#"{"asOf":\#(seq),"view":"all","#), sourceLocation: sourceLocation)
    for store in stores.dropFirst() {
        #expect(try await runFetchlog(["--store", store, "export", "all"]).stdout == first.stdout, "\(store)", sourceLocation: sourceLocation)
    }
    for store in stores {
        let verify = try await runFetchlog(["--store", store, "replay", "--verify"])
        #expect(verify.status == 0, "\(verify.stderr)", sourceLocation: sourceLocation)
    }
}
