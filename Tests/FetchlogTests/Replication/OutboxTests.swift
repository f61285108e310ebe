import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogNATS
@testable import FetchlogReplication
@testable import FetchlogSources

/// Offline first at the edge: with the stream unreachable, a replicated store's writes go to
/// its outbox, its views show them pending sync, and once the stream is back each lands in
/// the stream exactly once — also when the outage outlasts the stream's duplicate window.
/// Real `nats-server -js` processes (one, or a 3-node cluster), the real binary.
extension NATSSuites { @Suite struct OutboxTests {
    static func attempt(_ n: Int) -> Event { ClusterFailoverTests.attempt(n) }

    /// The exactly-once rule itself: an entry whose publish landed but whose ack was lost
    /// (the process died) is not sent again after the 1 s duplicate window has passed,
    /// because a flush resumes after the last own count the stream holds on the subject.
    @Test func anEntryWhoseAckWasLostIsNotSentAgainAfterTheDuplicateWindow() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let dir = TemporaryDirectory("outbox-once")
        let a = try openStore(in: dir, id: "store-a")
        defer { a.close() }
        let nats = try NATSConnection(servers: [server.url])
        #expect(try await offPool { try Replication.attach(a, nats: nats, duplicateWindow: .seconds(1)) } == .seeded(events: 0))
        #expect(try nats.streamInfo("FETCHLOG").duplicateWindow == .seconds(1))
        let route = try #require(try Replication.routeAppendsIfAttached(a))
        #expect(try await a.append(Self.attempt(1)) == 1)

        // Entry 2 goes to the outbox and its publish lands, as a flush sends it; then the
        // process "dies" before the ack is handled: nothing applied, the entry still waits.
        #expect(try a.outboxAdd([Self.attempt(2)]) == [2])
        let entry = try #require(try a.outboxEntries().first)
        let ack = try nats.publish(subject: "fetchlog.events.store-a", data: EnvelopeCodec.encode(entry.event),
                                   messageID: "store-a:2", expectedLastSubjectSeq: 1)
        #expect(ack == NATSConnection.PublishAck(stream: "FETCHLOG", seq: 2, duplicate: false))
        try await Task.sleep(for: .milliseconds(1500))

        // Past the window the id no longer protects it; the resume rule does.
        #expect(try await offPool { try route.publishOutbox(a) } == 0)
        #expect(try a.outboxEntries().isEmpty)
        #expect(try nats.streamInfo("FETCHLOG").messages == 2)
        #expect(try ClusterFailoverTests.rows(a) == ["1 /shows/1 store-a:1", "2 /shows/2 store-a:2"])

        // The stream gone: the next write waits in the outbox, said once, seen pending.
        let said = Retries()
        route.onPending = { said.add($0) }
        route.patience = .milliseconds(500)
        server.stop()
        #expect(try await a.append(Self.attempt(3)) == 0)
        #expect(said.lines.count == 1)
        #expect(said.lines.first?.hasPrefix("stream FETCHLOG is unreachable (") == true, "\(said.lines)")
        #expect(said.lines.first?.hasSuffix("): 1 event pending sync in this store's outbox; `fetchlog follow --once` publishes it once the stream is back") == true, "\(said.lines)")
        #expect(try a.outboxEntries().map(\.own) == [3])
        #expect(try a.lastSeq() == 2)
        let store = try Store(log: a, sources: SeedSources.registry)
        #expect(store.snapshot.pendingSync == 1)
        #expect(store.snapshot.state.status[ResourceKey(source: "tvmaze", path: "/shows/3")]?.lastError == "connection refused (attempt 3)")

        try await server.restart()
        let back = try NATSConnection(servers: [server.url])
        _ = try await offPool { try retrying(for: .seconds(60)) { try back.streamInfo("FETCHLOG") } }
        #expect(try await offPool { try retrying(for: .seconds(30)) { try route.publishOutbox(a) } } == 1)
        #expect(try a.outboxEntries().isEmpty)
        #expect(try ClusterFailoverTests.rows(a).last == "3 /shows/3 store-a:3")
        #expect(try back.streamInfo("FETCHLOG").messages == 3)
        try await store.catchUp()
        #expect(store.snapshot.pendingSync == 0)
        #expect(store.snapshot.seq == 3)
    }

    /// The whole cluster stopped for longer than the stream's 1 s duplicate window: fetches
    /// and a filter intent go on into the outboxes (exit 0, a warning naming the stream), the
    /// views show them; after restart every store converges and each entry is in the stream once.
    @Test func withTheWholeClusterStoppedWritesWaitAndConvergeOnceAfterRestart() async throws {
        let cluster = try await NATSCluster.start()
        defer { cluster.stop() }
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let dir = TemporaryDirectory("outbox-cluster")
        let a = dir.sub("store-a"), b = dir.sub("store-b"), c = dir.sub("store-c")
        do {
            let seeder = try openStore(in: dir, id: "store-a")
            defer { seeder.close() }
            #expect(try await offPool { try seeder.importNDJSON(path: Repo.sampleLog) } == 13)
            let nats = try NATSConnection(servers: cluster.urls)
            let attached = try await offPool { try retrying(for: .seconds(90)) { try Replication.attach(seeder, nats: nats, replicas: 3, duplicateWindow: .seconds(1)) } }
            #expect(attached == .seeded(events: 13))
            try openStore(in: dir, id: "store-b").close()
            try openStore(in: dir, id: "store-c").close()
        }
        let urls = cluster.urls.joined(separator: ",")
        for store in [b, c] {
            #expect(try await runFetchlog(["--store", store, "replicate", "init", "--nats", urls]).status == 0)
        }
        #expect(try await runFetchlog(["--store", b, "follow", "--once"]).status == 0)

        cluster.stop()
        // A fetches; B fetches and sets a filter: all into the outboxes, exit 0.
        let census = try await runFetchlog(["--store", a, "--upstream", base, "fetch", "brastlewark", "census"])
        #expect(census.status == 0, "\(census.stderr)")
        #expect(census.stderr.contains("warning: stream FETCHLOG is unreachable ("), "\(census.stderr)")
        #expect(census.stderr.contains("): 1 event pending sync in this store's outbox; `fetchlog follow --once` publishes it once the stream is back\n"), "\(census.stderr)")
        #expect(census.stdout.contains("  pending  GET \(base)/brastlewark/data.json  → 200 fetched"), "\(census.stdout)")
        #expect(census.stdout.contains(" — pending sync: in the outbox until the stream takes it"), "\(census.stdout)")
        let show = try await runFetchlog(["--store", b, "--upstream", base, "fetch", "tvmaze", "show", "2"])
        #expect(show.status == 0, "\(show.stderr)")
        let filter = try await runFetchlog(["--store", b, "repl"], stdin: "filter set hair_color=red\n")
        #expect(filter.status == 0, "\(filter.stderr)")
        // The views show what waits: B's filter is the new one (the sample log's was Pink),
        // set by an event without a seq yet, on top of the log's 13.
        let filters = try await runFetchlog(["--store", b, "--format", "json", "export", "filters"])
        #expect(filters.stdout.hasPrefix(#"{"active":{"ageMax":null,"ageMin":null,"friendsMax":null,"friendsMin":null,"hairColor":"red","heightMax":null,"heightMin":null,"name":null,"profession":"Tinker","setAtSeq":0,"weightMax":null,"weightMin":null},"asOf":13,"#), "\(filters.stdout.prefix(400))")

        // An outage longer than the duplicate window, then the cluster restarts.
        try await Task.sleep(for: .seconds(2))
        try await cluster.restart()
        for store in [a, b, a, b, c] {
            let synced = try await offPool { try retrying(for: .seconds(90)) { () throws -> CommandResult in
                let run = try runFetchlogBlocking(["--store", store, "follow", "--once"])
                guard run.status == 0 else { throw NATSTestError(run.stderr) }
                return run
            } }
            #expect(!synced.stdout.contains("still pending"), "\(synced.stdout)")
        }
        let nats = try NATSConnection(servers: cluster.urls)
        let info = try await offPool { try retrying(for: .seconds(30)) { try nats.streamInfo("FETCHLOG") } }
        // 13 seeded, A's census, B's show and filter: each once.
        #expect((info.messages, info.lastSeq) == (16, 16))
        try await expectConverged([a, b, c], at: 16)
        for store in [a, b, c] {
            let log = try EventLog.open(at: store)
            let origins = try ClusterFailoverTests.rows(log).map { $0.split(separator: " ").last.map(String.init) ?? "" }
            log.close()
            #expect(Set(origins).count == 16)
            #expect(origins.suffix(3).sorted() == ["store-a:14", "store-b:1", "store-b:2"])
        }
        await upstream.stop()
    }
}}

/// The README's edge: a laptop's own `nats-server` as a leaf node (no JetStream of its own)
/// of a hub whose JetStream has the domain `hub`. A store attached through the leaf with
/// `--domain hub` follows the hub's stream; with the hub gone it writes into its outbox, and
/// when the hub is back `follow --once` publishes and the seeding store gets the event.
extension NATSSuites { @Suite struct LeafNodeTests {
    @Test func aStoreOnALeafNodeFollowsTheHubAndSyncsItsOutboxWhenTheHubIsBack() async throws {
        let hubPort = NATSServerProcess.freePort(), leafPort = NATSServerProcess.freePort()
        let hub = try await NATSServerProcess(name: "hub", port: hubPort) { store in
            "server_name: hub\nlisten: 127.0.0.1:\(hubPort)\njetstream { store_dir: \"\(store)\", domain: hub }\nleafnodes { listen: 127.0.0.1:\(leafPort) }\n"
        }
        defer { hub.stop() }
        let edgePort = NATSServerProcess.freePort()
        let edge = try await NATSServerProcess(name: "edge", port: edgePort) { _ in
            "server_name: edge\nlisten: 127.0.0.1:\(edgePort)\nleafnodes { remotes: [ { urls: [\"nats-leaf://127.0.0.1:\(leafPort)\"] } ] }\n"
        }
        defer { edge.stop() }
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let dir = TemporaryDirectory("leaf-node")
        let a = dir.sub("a"), e = dir.sub("e")
        #expect(try await runFetchlog(["--store", a, "log", "import", Repo.sampleLog]).status == 0)
        #expect(try await runFetchlog(["--store", a, "replicate", "init", "--nats", hub.url]).status == 0)
        // The leaf connects to the hub on its own schedule: init is retried until it answers.
        let replica = try await offPool { try retrying(for: .seconds(60)) { () throws -> CommandResult in
            let run = try runFetchlogBlocking(["--store", e, "replicate", "init", "--nats", edge.url, "--domain", "hub"])
            guard run.status == 0 else { throw NATSTestError(run.stderr) }
            return run
        } }
        #expect(replica.stdout == "this store is a replica of stream FETCHLOG, 13 events behind: `fetchlog follow --once` catches up\n")
        // Without the domain, the leaf's clients cannot reach the hub's JetStream.
        let plain = try await runFetchlog(["--store", dir.sub("x"), "replicate", "init", "--nats", edge.url])
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("No responders available for request"), "\(plain.stderr)")
        let follow = try await runFetchlog(["--store", e, "follow", "--once"])
        #expect(follow.stdout == "applied 13 events from stream FETCHLOG; this store is at seq 13\n", "\(follow.stderr)")

        hub.stop()
        let show = try await runFetchlog(["--store", e, "--upstream", base, "fetch", "tvmaze", "show", "2"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.hasSuffix("1 request (200×1); 0 events appended, 1 pending sync in the outbox; 1.6 KiB of bodies\n"), "\(show.stdout)")
        // The shell shows the pending show, and says it is pending.
        let shell = try await runFetchlog(["--store", e, "--offline", "repl"], stdin: "show 2\n")
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout.hasPrefix("id         2\nname       Person of Interest\n"), "\(shell.stdout)")
        // Under the answer, as the freshness line is (on stderr under --format json).
        #expect(shell.stdout.hasSuffix("we'll find you.\n⚠ pending sync: 1 event in this store's outbox, not yet in stream FETCHLOG (shown here; `fetchlog follow --once` publishes it when the stream is reachable)\n"), "\(shell.stdout)")
        let status = try await runFetchlog(["--store", e, "replicate", "status"])
        #expect(status.status == 0)
        #expect(status.stdout == "stream       FETCHLOG (unreachable)\nservers      \(edge.url)\napplied seq  13\noutbox       1 pending sync\n", "\(status.stdout)")

        try await hub.restart()
        let synced = try await offPool { try retrying(for: .seconds(60)) { () throws -> CommandResult in
            let run = try runFetchlogBlocking(["--store", e, "follow", "--once"])
            guard run.status == 0 else { throw NATSTestError(run.stderr) }
            return run
        } }
        #expect(synced.stdout == "published 1 pending event from the outbox; applied 0 events from stream FETCHLOG; this store is at seq 14\n")
        let back = try await runFetchlog(["--store", a, "follow", "--once"])
        #expect(back.stdout == "applied 1 events from stream FETCHLOG; this store is at seq 14\n", "\(back.stderr)")
        #expect(try await runFetchlog(["--store", a, "export", "all"]).stdout == (try await runFetchlog(["--store", e, "export", "all"])).stdout)
        await upstream.stop()
    }
}}
