import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogNATS
@testable import FetchlogReplication
@testable import FetchlogSources

/// Attaching stores to a JetStream stream on a real `nats-server -js`: one seeds it with its
/// log, an empty one becomes a replica and follows it to the same views, seq for seq.
extension NATSSuites { @Suite struct ReplicationAttachTests {
    private func open(_ dir: TemporaryDirectory, _ id: String) throws -> EventLog { try openStore(in: dir, id: id) }

    private func exportAll(_ log: EventLog) throws -> String {
        try ViewCatalog.export("all", state: try Store.replay(log, sources: SeedSources.registry).state).canonicalText()
    }

    @Test func aStoreSeedsTheStreamAndAnEmptyStoreFollowsItToTheSameViews() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let dir = TemporaryDirectory("replicate")
        let a = try open(dir, "store-a")
        // The heavy calls run off the cooperative pool (see LogMergeTests).
        #expect(try await offPool { try a.importNDJSON(path: Repo.sampleLog) } == 13)
        _ = try await offPool { try a.appendBlocking(contentsOf: [try CompactionTests.fetched("tvmaze", "/shows?page=0", "tvmaze/shows-page-0-2019.json", at: 100),
                                                                  try CompactionTests.fetched("viaplay", "/ios-se", "viaplay/ios-se-root-2024.json", at: 101)]) }
        let nats = try NATSConnection(servers: [server.url])
        #expect(try await offPool { try Replication.attach(a, nats: nats) } == .seeded(events: 15))
        #expect(try Replication.attachment(of: a) == Replication.Attachment(stream: "FETCHLOG", servers: [server.url]))
        let info = try nats.streamInfo("FETCHLOG")
        #expect((info.messages, info.lastSeq) == (15, 15))
        // Each message is the event's record with its origin, and only the header the seeding
        // publish needed (the stream's last seq it expected).
        let message = try #require(try nats.message(stream: "FETCHLOG", seq: 14))
        #expect(message.subject == "fetchlog.events.store-a")
        #expect(message.headers == ["Nats-Expected-Last-Sequence": "13"])
        #expect(try Replication.event(from: message, stream: "FETCHLOG", nats: nats).origin == Event.Origin(store: "store-a", seq: 14))

        let b = try open(dir, "store-b")
        #expect(try Replication.attach(b, nats: nats) == .replica(behind: 15))
        #expect(try await offPool { try Replication.catchUp(b, nats: nats, stream: "FETCHLOG") } == 15)
        #expect(try b.lastSeq() == 15)
        #expect(try await offPool { try self.exportAll(b) == self.exportAll(a) })
        #expect(try b.event(at: 1)?.origin == Event.Origin(store: "fetchlog-sample", seq: 1))
        #expect(try b.event(at: 14)?.origin == Event.Origin(store: "store-a", seq: 14))
        #expect(try b.event(at: 14)?.body == (try a.event(at: 14)?.body))
        #expect(try await offPool { try b.verify().isHealthy })
        // Caught up: nothing more; attached: attaching again changes nothing.
        #expect(try Replication.catchUp(b, nats: nats, stream: "FETCHLOG") == 0)
        #expect(try Replication.attach(b, nats: nats) == .already)
        // A store with events of its own cannot become a replica of a stream that holds some.
        let c = try open(dir, "store-c")
        try c.appendBlocking(contentsOf: [try CompactionTests.fetched("viaplay", "/ios-se", "viaplay/ios-se-root-2022.json", at: 5)])
        #expect {
            try Replication.attach(c, nats: nats)
        } throws: { error in
            (error as? ReplicationError)?.description == "stream FETCHLOG already holds 15 events and this store holds 1 of its own: only an empty store becomes a replica (merge this store's events with `log export` and `log import` into a replica instead)"
        }
        #expect(try Replication.attachment(of: c) == nil)
    }

    /// A seeding stopped half-way (the process killed, the network lost) resumes where the
    /// stream ends, when it ends with this store's own event at its own seq.
    @Test func aStoppedSeedingResumes() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let dir = TemporaryDirectory("resume")
        let a = try open(dir, "store-a")
        #expect(try await offPool { try a.importNDJSON(path: Repo.sampleLog) } == 13)
        let nats = try NATSConnection(servers: [server.url])
        _ = try nats.ensureStream(name: "FETCHLOG", subjects: ["fetchlog.events.>"])
        for event in try a.events(from: 1, limit: 5) {
            let (data, _) = Replication.message(for: event, store: "store-a")
            _ = try nats.publish(subject: "fetchlog.events.store-a", data: data, expectedLastSeq: event.seq - 1)
        }
        #expect(try await offPool { try Replication.attach(a, nats: nats) } == .seeded(events: 8))
        #expect(try nats.streamInfo("FETCHLOG").lastSeq == 13)
        let b = try open(dir, "store-b")
        #expect(try Replication.attach(b, nats: nats) == .replica(behind: 13))
        #expect(try await offPool { try Replication.catchUp(b, nats: nats, stream: "FETCHLOG") } == 13)
        #expect(try await offPool { try self.exportAll(b) == self.exportAll(a) })
    }

    @Test func aForeignStreamIsRefusedByName() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let dir = TemporaryDirectory("foreign")
        let nats = try NATSConnection(servers: [server.url])
        // A stream of someone else's subjects.
        _ = try nats.ensureStream(name: "ORDERS", subjects: ["orders.>"])
        let a = try open(dir, "store-a")
        #expect {
            try Replication.attach(a, nats: nats, stream: "ORDERS")
        } throws: { error in
            (error as? ReplicationError)?.description == "stream ORDERS is not Fetchlog's (its subjects are orders.>, not fetchlog.events.>): choose another --stream"
        }
        // A stream on Fetchlog's subjects holding something that is not an event.
        _ = try nats.ensureStream(name: "FETCHLOG", subjects: ["fetchlog.events.>"])
        _ = try nats.publish(subject: "fetchlog.events.someone", data: Array("hello".utf8))
        #expect {
            try Replication.attach(a, nats: nats)
        } throws: { error in
            guard let error = error as? ReplicationError else { return false }
            return error.description.hasPrefix("stream FETCHLOG holds a message that is not a Fetchlog event at seq 1 (subject fetchlog.events.someone: ")
        }
        #expect(try Replication.attachment(of: a) == nil)
        #expect(try a.lastSeq() == 0)
    }
}

}

/// `fetchlog replicate init`, `replicate status` and `follow --once` through the binary.
extension NATSSuites { @Suite struct ReplicateCommandTests {
    @Test func initStatusAndFollowThroughTheBinary() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let dir = TemporaryDirectory("replicate-cli")
        let a = dir.sub("a"), b = dir.sub("b")
        #expect(try await runFetchlog(["--store", a, "log", "import", Repo.sampleLog]).status == 0)
        let seeded = try await runFetchlog(["--store", a, "replicate", "init", "--nats", server.url])
        #expect(seeded.stdout == "seeded stream FETCHLOG with 13 events; this store is attached to it\n", "\(seeded.stderr)")
        let replica = try await runFetchlog(["--store", b, "replicate", "init", "--nats", server.url])
        #expect(replica.stdout == "this store is a replica of stream FETCHLOG, 13 events behind: `fetchlog follow --once` catches up\n", "\(replica.stderr)")
        // The store remembers its stream and servers: no flag needed from here on.
        let follow = try await runFetchlog(["--store", b, "follow", "--once"])
        #expect(follow.stdout == "applied 13 events from stream FETCHLOG; this store is at seq 13\n", "\(follow.stderr)")
        let status = try await runFetchlog(["--store", b, "--format", "json", "replicate", "status"])
        #expect(status.stdout == #"{"appliedSeq":13,"lag":0,"leader":null,"outbox":0,"reachable":true,"replicas":1,"servers":["\#(server.url)"],"stream":"FETCHLOG","streamSeq":13}"# + "\n", "\(status.stderr)")
        let exportA = try await runFetchlog(["--store", a, "export", "all"])
        #expect(try await runFetchlog(["--store", b, "export", "all"]).stdout == exportA.stdout)
        #expect(try await runFetchlog(["--store", b, "replay", "--verify"]).status == 0)
        // Not attached, or the server gone: one line saying so, exit 1.
        let loose = try await runFetchlog(["--store", dir.sub("c"), "follow", "--once"])
        #expect(loose.status == 1)
        #expect(loose.stderr == "fetchlog: this store is not attached to a stream: run `fetchlog replicate init --nats URL` first\n")
        server.stop()
        let gone = try await runFetchlog(["--store", b, "follow", "--once"])
        #expect(gone.status == 1)
        #expect(gone.stderr.hasPrefix("fetchlog: connect to \(server.url) failed: "), "\(gone.stderr)")
        #expect(gone.stderr.hasSuffix("; check that nats-server runs there (with -js) and the URL is right\n"), "\(gone.stderr)")
    }
}
}
