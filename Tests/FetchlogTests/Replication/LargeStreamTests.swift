import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogNATS
@testable import FetchlogReplication

/// Streams bigger than nats.c's 64 MiB pending limit, and servers that go away mid-read or
/// elect leaders while a replica catches up. Real `nats-server -js` processes, the real binary.
extension NATSSuites { @Suite struct LargeStreamTests {
    /// 400,000 bytes, different for each `index` (no two bodies alike, nothing to compress).
    static func body(_ index: Int) -> [UInt8] {
        var state = UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15
        return (0 ..< 400_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    /// A fetched event carrying `bodies[n % count]` whole in its record.
    static func bulk(_ n: Int, bodies: [[UInt8]]) -> Event {
        Event(recordedAt: Timestamp(milliseconds: 1_795_000_000_000 + Int64(n) * 1000), kind: .fetched, source: "artic", label: "/bulk/\(n)",
              durationMicros: 1000, request: Event.Request(url: "http://127.0.0.1:1/artic/bulk/\(n)"),
              response: Event.Response(status: 200, headers: [Header("Content-Type", "application/octet-stream")]), body: bodies[n % bodies.count])
    }

    /// A store `id` holding events 1…`count` of `bodies`, appended 64 at a time.
    static func writer(_ dir: TemporaryDirectory, _ id: String, count: Int, bodies: [[UInt8]]) async throws -> EventLog {
        let log = try openStore(in: dir, id: id)
        for start in stride(from: 1, through: count, by: 64) {
            let events = (start ... min(count, start + 63)).map { bulk($0, bodies: bodies) }
            _ = try await offPool { try log.appendBlocking(contentsOf: events) }
        }
        return log
    }

    /// The SHA-256 of each event's record as the stream carries it (with its origin: a
    /// writer's own events are `store:seq`, a replica's hold that origin already), in seq order.
    static func records(_ log: EventLog, writer: String) throws -> [String] {
        var digests: [String] = []
        try log.scan(from: 1) { event in
            digests.append("\(event.seq) \(SHA256.hex(Replication.message(for: event, store: writer).data))")
            return true
        }
        return digests
    }

    /// 512 events of 400 KB: 205 MB in the stream, three times nats.c's 64 MiB pending limit
    /// (an unbounded fetch of 1,024 dropped messages: "slow consumer", then a false "messages
    /// were removed" or a stall). Eight bodies repeat, so each store holds 3.2 MB of bodies
    /// (stored once) while every message carries its body whole. Five fresh replicas follow
    /// at once, each in one `follow --once`, and hold the writer's records byte for byte.
    @Test func fiveFreshReplicasOfA200MBStreamEachCatchUpInOneFollow() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let dir = TemporaryDirectory("large-stream")
        let bodies = (0 ..< 8).map(Self.body)
        let writer = try await Self.writer(dir, "store-a", count: 512, bodies: bodies)
        let nats = try NATSConnection(servers: [server.url])
        #expect(try await offPool { try Replication.attach(writer, nats: nats) } == .seeded(events: 512))
        let info = try nats.streamInfo("FETCHLOG")
        #expect((info.messages, info.firstSeq, info.lastSeq) == (512, 1, 512))
        #expect(info.bytes > 200_000_000, "\(info.bytes)")
        let expected = try await offPool { try Self.records(writer, writer: "store-a") }
        #expect(expected.count == 512)
        writer.close()

        let replicas = (1 ... 5).map { dir.sub("replica-\($0)") }
        for replica in replicas {
            let attached = try await runFetchlog(["--store", replica, "replicate", "init", "--nats", server.url])
            #expect(attached.stdout == "this store is a replica of stream FETCHLOG, 512 events behind: `fetchlog follow --once` catches up\n", "\(attached.stderr)")
        }
        let follows = try await withThrowingTaskGroup(of: (String, CommandResult).self) { group in
            for replica in replicas { group.addTask { (replica, try await runFetchlog(["--store", replica, "follow", "--once"])) } }
            var results: [String: CommandResult] = [:]
            for try await (replica, result) in group { results[replica] = result }
            return results
        }
        for replica in replicas {
            let follow = try #require(follows[replica])
            #expect(follow.status == 0, "\(replica): \(follow.stderr)")
            #expect(follow.stdout == "applied 512 events from stream FETCHLOG; this store is at seq 512\n", "\(replica): \(follow.stderr)")
            let log = try EventLog.open(at: replica)
            let held = try await offPool { try Self.records(log, writer: "store-a") }
            log.close()
            #expect(held == expected, "\(replica)")
            let verify = try await runFetchlog(["--store", replica, "log", "verify"])
            #expect(verify.status == 0, "\(replica): \(verify.stdout) \(verify.stderr)")
        }
    }

    /// "Removed" is said only when the server no longer holds the seq: one deleted from
    /// the middle (a direct get finds nothing), or from the start (the first seq moved).
    @Test func aGapIsSaidOnlyForSeqsTheServerNoLongerHolds() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let dir = TemporaryDirectory("stream-gap")
        let writer = try openStore(in: dir, id: "store-a")
        defer { writer.close() }
        _ = try await offPool { try writer.appendBlocking(contentsOf: (1 ... 40).map(ClusterFailoverTests.attempt)) }
        let nats = try NATSConnection(servers: [server.url])
        #expect(try await offPool { try Replication.attach(writer, nats: nats) } == .seeded(events: 40))
        try nats.deleteMessage(stream: "FETCHLOG", seq: 25)
        let b = try openStore(in: dir, id: "store-b")
        defer { b.close() }
        #expect(try Replication.attach(b, nats: nats) == .replica(behind: 40))
        let middle = await #expect(throws: ReplicationError.self) { try await offPool { try Replication.catchUp(b, nats: nats, stream: "FETCHLOG") } }
        #expect(middle?.description == "stream FETCHLOG has no seq 25: messages were removed from it, and a replica cannot be gap-free; attach a new store")
        #expect(try b.lastSeq() == 24)

        try nats.deleteMessage(stream: "FETCHLOG", seq: 1)
        #expect(try nats.streamInfo("FETCHLOG").firstSeq == 2)
        let c = try openStore(in: dir, id: "store-c")
        defer { c.close() }
        #expect(try Replication.attach(c, nats: nats) == .replica(behind: 40))
        let start = await #expect(throws: ReplicationError.self) { try await offPool { try Replication.catchUp(c, nats: nats, stream: "FETCHLOG") } }
        #expect(start?.description == "stream FETCHLOG has no seq 1: messages were removed from it, and a replica cannot be gap-free; attach a new store")
        #expect(try c.lastSeq() == 0)
    }

    /// The server killed while a replica reads (after its first batch is applied): the read
    /// ends with a transient `NATSError` (the caller says so and retries), not an empty
    /// wait ending in "sent nothing", and what was applied stays.
    @Test func aServerKilledMidReadIsSaidAsTransientAndWhatWasAppliedStays() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let dir = TemporaryDirectory("killed-mid-read")
        let writer = try await Self.writer(dir, "store-a", count: 128, bodies: (0 ..< 2).map(Self.body))
        defer { writer.close() }
        let nats = try NATSConnection(servers: [server.url])
        #expect(try await offPool { try Replication.attach(writer, nats: nats) } == .seeded(events: 128))
        // 51 MB, where at most four fetches of 8 MiB (21 messages each: one being applied,
        // two waiting, one fetched) are read ahead: the kill lands with seqs left to read.
        #expect(nats.fetchBytes == 8 << 20)
        let b = try openStore(in: dir, id: "store-b")
        defer { b.close() }
        #expect(try Replication.attach(b, nats: nats) == .replica(behind: 128))
        let failure = await #expect(throws: NATSError.self) {
            try await offPool {
                try Replication.catchUp(b, nats: nats, stream: "FETCHLOG") { _, _ in
                    if server.isRunning { server.stop() }
                }
            }
        }
        #expect(failure?.isTransient == true, "\(String(describing: failure))")
        let held = try b.lastSeq()
        #expect(held >= 1 && held < 128, "\(held)")
        #expect(try b.verify().isHealthy)
    }
}}

/// `follow --once` while the stream has no leader (two of three nodes down): it says once
/// that it waits, and catches up once the nodes are back, as a write waits out an election.
extension NATSSuites { @Suite struct FollowThroughAnElectionTests {
    @Test func followOnceWaitsOutALeaderElection() async throws {
        let cluster = try await NATSCluster.start()
        defer { cluster.stop() }
        let dir = TemporaryDirectory("follow-election")
        let writer = try openStore(in: dir, id: "store-a")
        _ = try await offPool { try writer.appendBlocking(contentsOf: (1 ... 20).map(ClusterFailoverTests.attempt)) }
        let nats = try NATSConnection(servers: cluster.urls)
        let attached = try await offPool { try retrying(for: .seconds(90)) { try Replication.attach(writer, nats: nats, replicas: 3) } }
        #expect(attached == .seeded(events: 20))
        writer.close()
        let replica = dir.sub("replica")
        let init_ = try await runFetchlog(["--store", replica, "replicate", "init", "--nats", cluster.urls.joined(separator: ",")])
        #expect(init_.stdout == "this store is a replica of stream FETCHLOG, 20 events behind: `fetchlog follow --once` catches up\n", "\(init_.stderr)")

        // Two of three down: no quorum, no leader; every stream call goes unanswered.
        let down = Array(cluster.nodes.dropFirst())
        down.forEach { $0.server.stop() }
        let follow = try RunningCommand(Repo.executable, ["--store", replica, "follow", "--once"])
        // Wait for it to say it waits (or to end: the failure before the fix).
        try await follow.wait { stderr, exited in exited || stderr.contains("; retrying\n") }
        for node in down { try await node.server.restart() }
        let result = try await follow.result()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "applied 20 events from stream FETCHLOG; this store is at seq 20\n", "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n")
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(warnings.first?.hasPrefix("fetchlog: warning: stream FETCHLOG: ") == true, "\(result.stderr)")
        #expect(warnings.first?.hasSuffix("; retrying") == true, "\(result.stderr)")
    }
}}

/// A child process whose stderr can be watched while it runs.
final class RunningCommand: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var err = Data()
    private var out = Data()
    private let outPipe = Pipe(), errPipe = Pipe()

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        errPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.withLock { self.err.append(data) }
        }
        outPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.withLock { self.out.append(data) }
        }
        try process.run()
    }

    /// Waits until `condition(stderr so far, exited)` holds.
    func wait(until condition: (String, Bool) -> Bool) async throws {
        while true {
            let exited = !process.isRunning
            let stderr = lock.withLock { String(decoding: err, as: UTF8.self) }
            if condition(stderr, exited) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits for the exit and returns what it printed.
    func result() async throws -> CommandResult {
        try await wait { _, exited in exited }
        process.waitUntilExit()
        // What is still in the pipes.
        errPipe.fileHandleForReading.readabilityHandler = nil
        outPipe.fileHandleForReading.readabilityHandler = nil
        let restErr = errPipe.fileHandleForReading.readDataToEndOfFile()
        let restOut = outPipe.fileHandleForReading.readDataToEndOfFile()
        return lock.withLock {
            CommandResult(status: process.terminationStatus, stdout: String(decoding: out + restOut, as: UTF8.self),
                          stderr: String(decoding: err + restErr, as: UTF8.self))
        }
    }
}
