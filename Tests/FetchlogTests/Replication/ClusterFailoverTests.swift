import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogNATS
@testable import FetchlogReplication

/// A store writing through an R3 stream on a real 3-node `nats-server` cluster on loopback:
/// killing the stream's leader mid-run (SIGKILL) loses no committed event and applies none
/// twice; the writer waits through the election and goes on; a replica follows to the same log.
extension NATSSuites { @Suite struct ClusterFailoverTests {
    static func attempt(_ n: Int) -> Event {
        Event(recordedAt: Timestamp(milliseconds: 1_795_000_000_000 + Int64(n) * 1000), kind: .fetchFailed, source: "tvmaze",
              label: "/shows/\(n)", request: Event.Request(url: "http://127.0.0.1:1/tvmaze/shows/\(n)"),
              failure: Event.Failure(.transport, "connection refused (attempt \(n))"))
    }

    /// "seq label origin" of every event.
    static func rows(_ log: EventLog) throws -> [String] {
        var rows: [String] = []
        try log.scan(from: 1) { event in
            rows.append("\(event.seq) \(event.label) \(event.origin.map { "\($0.store):\($0.seq)" } ?? "own")")
            return true
        }
        return rows
    }

    @Test func killingTheLeaderMidRunLosesNoCommittedEventAndAppliesNoneTwice() async throws {
        let cluster = try await NATSCluster.start()
        defer { cluster.stop() }
        let dir = TemporaryDirectory("cluster-failover")
        let a = try openStore(in: dir, id: "store-a")
        defer { a.close() }
        let nats = try NATSConnection(servers: cluster.urls)
        // JetStream answers once the routes are up and a meta leader is elected.
        let attached = try await offPool { try retrying(for: .seconds(90)) { try Replication.attach(a, nats: nats, replicas: 3) } }
        #expect(attached == .seeded(events: 0))
        #expect(try nats.streamInfo("FETCHLOG").replicas == 3)

        let retries = Retries()
        try Replication.routeAppendsIfAttached(a) { retries.add($0) }
        var seqs: [UInt64] = []
        var killed: String?
        for n in 1 ... 120 {
            if n == 41 {
                let leader = try #require(try await offPool { try retrying(for: .seconds(30)) { try nats.streamInfo("FETCHLOG").leader } })
                cluster.node(named: leader)?.stop()
                killed = leader
            }
            seqs.append(try await a.append(Self.attempt(n)))
        }
        // The writer said it waited (no responders or no ack while the stream elected a leader).
        #expect(!retries.lines.isEmpty)
        // A killed node the client was connected to is also said once, as it happens.
        #expect(retries.lines.allSatisfy { $0.hasPrefix("stream FETCHLOG: ") && ($0.hasSuffix("; retrying") || $0.hasSuffix("; reconnecting")) },
                "\(retries.lines)")
        #expect(retries.lines.contains { $0.hasSuffix("; retrying") }, "\(retries.lines)")
        let leader = try #require(killed)
        #expect(cluster.node(named: leader)?.isRunning == false)
        // Every event once, in the order written, at stream seq = local seq = its number.
        #expect(seqs == Array(1 ... 120))
        let expected = (1 ... 120).map { "\($0) /shows/\($0) store-a:\($0)" }
        #expect(try Self.rows(a) == expected)
        let info = try await offPool { try retrying(for: .seconds(30)) { try nats.streamInfo("FETCHLOG") } }
        #expect((info.messages, info.lastSeq, info.firstSeq) == (120, 120, 1))
        #expect(info.leader != leader)

        // A replica on the two nodes left follows to the same log.
        let b = try openStore(in: dir, id: "store-b")
        defer { b.close() }
        let survivors = try NATSConnection(servers: cluster.nodes.filter { $0.name != leader }.map(\.server.url))
        #expect(try await offPool { try Replication.attach(b, nats: survivors) } == .replica(behind: 120))
        #expect(try await offPool { try retrying(for: .seconds(30)) { try Replication.catchUp(b, nats: survivors, stream: "FETCHLOG") } } == 120)
        #expect(try Self.rows(b) == expected)
    }
}}

/// What a route said while it retried.
final class Retries: @unchecked Sendable {
    private let lock = NSLock()
    private var said: [String] = []
    func add(_ line: String) { lock.withLock { said.append(line) } }
    var lines: [String] { lock.withLock { said } }
}
