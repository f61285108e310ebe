import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogNATS
@testable import FetchlogReplication

/// Writes through the stream: in a store attached to a stream, `fetch` publishes each
/// outcome and applies it when it comes back, so every store's seqs are the stream's, a
/// writer reads its own write at once, and stores that fetched different sources converge.
/// The real binary, a real `nats-server -js`, the sample upstream on loopback.
extension NATSSuites { @Suite struct ReplicatedWritesTests {
    /// A store made with a known id (so origins can be asserted), closed for the binary.
    private func makeStore(_ dir: TemporaryDirectory, _ id: String) throws -> String {
        try openStore(in: dir, id: id).close()
        return dir.sub(id)
    }

    /// "seq source label origin" of every event of the store at `path`, in seq order.
    private func events(_ path: String) throws -> [String] {
        let log = try EventLog.open(at: path)
        defer { log.close() }
        var rows: [String] = []
        try log.scan(from: 1) { event in
            let origin = event.origin.map { "\($0.store):\($0.seq)" } ?? "own"
            rows.append("\(event.seq) \(event.source) \(event.label) \(origin)")
            return true
        }
        return rows
    }

    @Test func twoStoresFetchThroughOneStreamAndAThirdFollowsToTheSameViews() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let dir = TemporaryDirectory("replicated-writes")
        let a = try makeStore(dir, "store-a"), b = try makeStore(dir, "store-b"), c = try makeStore(dir, "store-c")
        func fetch(_ store: String, _ words: String) async throws -> CommandResult {
            try await runFetchlog(["--store", store, "--upstream", base, "fetch"] + words.split(separator: " ").map(String.init))
        }

        // A seeds the stream with the sample log (13 events); B becomes a replica, 13 behind.
        #expect(try await runFetchlog(["--store", a, "log", "import", Repo.sampleLog]).status == 0)
        #expect(try await runFetchlog(["--store", a, "replicate", "init", "--nats", server.url]).status == 0)
        #expect(try await runFetchlog(["--store", b, "replicate", "init", "--nats", server.url]).status == 0)

        // B fetches: its outcome goes through the stream (seq 14, B's first own event) and
        // is in B's log when the command ends, with the 13 before it (read-your-writes).
        let census = try await fetch(b, "brastlewark census")
        #expect(census.status == 0, "\(census.stderr)")
        #expect(try events(b).suffix(2) == ["13 brastlewark filter.set fetchlog-sample:13", "14 brastlewark /data.json store-b:1"])
        #expect(try events(b).count == 14)

        // A fetches another source: its own count goes on after the 13 it seeded; A takes
        // B's event back on the way (seq 14) and holds its own at 15.
        let show = try await fetch(a, "tvmaze show 1")
        #expect(show.status == 0, "\(show.stderr)")
        #expect(try events(a).suffix(2) == ["14 brastlewark /data.json store-b:1", "15 tvmaze /shows/1 store-a:14"])

        // Two processes of B at once: one publish is refused (the other went first on B's
        // subject) and retried after it; both events land once, B's own count 2 and 3.
        async let first = fetch(b, "tvmaze show 2")
        async let second = fetch(b, "viaplay root")
        let (one, two) = try await (first, second)
        #expect(one.status == 0, "\(one.stderr)")
        #expect(two.status == 0, "\(two.stderr)")
        let tail = try events(b).suffix(2).map { $0.split(separator: " ").last.map(String.init) ?? "" }
        #expect(Set(tail) == ["store-b:2", "store-b:3"])
        #expect(try events(b).count == 17)

        // C, empty, becomes a replica and follows; A follows too. Same log, same views.
        #expect(try await runFetchlog(["--store", c, "replicate", "init", "--nats", server.url]).status == 0)
        let followC = try await runFetchlog(["--store", c, "follow", "--once"])
        #expect(followC.stdout == "applied 17 events from stream FETCHLOG; this store is at seq 17\n", "\(followC.stderr)")
        let followA = try await runFetchlog(["--store", a, "follow", "--once"])
        #expect(followA.stdout == "applied 2 events from stream FETCHLOG; this store is at seq 17\n", "\(followA.stderr)")
        let logB = try events(b)
        #expect(try events(a) == logB)
        #expect(try events(c) == logB)
        let nats = try NATSConnection(servers: [server.url])
        let info = try nats.streamInfo("FETCHLOG")
        #expect((info.messages, info.lastSeq) == (17, 17))
        #expect(try nats.lastMessage(stream: "FETCHLOG", subject: "fetchlog.events.store-a")?.seq == 15)

        try await expectConverged([a, b, c], at: 17)
        // A replica's events come from the stream only.
        let imported = try await runFetchlog(["--store", c, "log", "import", Repo.sampleLog])
        #expect(imported.status == 1)
        #expect(imported.stderr.hasPrefix("fetchlog: this store is attached to a stream: its events come from the stream only."), "\(imported.stderr)")
        await upstream.stop()
    }

    /// With the server gone, a fetch in an attached store still succeeds: its outcome waits
    /// in the outbox (exit 0, one warning naming the stream), none in the log yet.
    @Test func aFetchWithTheStreamUnreachableWaitsInTheOutbox() async throws {
        let server = try await NATSServerProcess()
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let dir = TemporaryDirectory("replicated-unreachable")
        let a = try makeStore(dir, "store-a")
        #expect(try await runFetchlog(["--store", a, "replicate", "init", "--nats", server.url]).status == 0)
        server.stop()
        let fetch = try await runFetchlog(["--store", a, "--upstream", base, "fetch", "brastlewark", "census"])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(fetch.stderr == "fetchlog: warning: stream FETCHLOG is unreachable (connect to \(server.url) failed: No server available for connection): 1 event pending sync in this store's outbox; `fetchlog follow --once` publishes it once the stream is back\n")
        #expect(try events(a).isEmpty)
        let log = try EventLog.open(at: a)
        defer { log.close() }
        try Replication.routeAppendsIfAttached(log)
        #expect(try log.outboxEntries().map { "\($0.own) \($0.event.label) \($0.event.origin?.store ?? "")" } == ["1 /data.json store-a"])
        await upstream.stop()
    }

    /// The server killed mid-fetch (after the first page's event is in the stream, with
    /// three pages to go, each held 2 s by the upstream): the fetch says at once that the
    /// connection was lost, once, and ends with every outcome in the log or the outbox.
    @Test func aServerKilledMidFetchIsSaidOnce() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        var configuration = SampleUpstreamConfiguration()
        configuration.faults = [Fault(match: "/tvmaze/shows", kind: .latency(milliseconds: 2000))]
        let upstream = try SampleUpstream(configuration: configuration)
        let base = try await upstream.start().absoluteString
        let dir = TemporaryDirectory("replicated-killed")
        let a = try makeStore(dir, "store-a")
        #expect(try await runFetchlog(["--store", a, "replicate", "init", "--nats", server.url]).status == 0)
        let fetch = try RunningCommand(Repo.executable, ["--store", a, "--upstream", base, "fetch", "tvmaze", "shows", "--pages", "0-3"])
        let nats = try NATSConnection(servers: [server.url])
        while try nats.streamInfo("FETCHLOG").lastSeq < 1 { try await Task.sleep(for: .milliseconds(50)) }
        server.stop()
        let result = try await fetch.result()
        #expect(result.status == 0, "\(result.stderr)")
        let lost = result.stderr.split(separator: "\n").filter { $0.contains("lost the connection") }
        #expect(lost == ["fetchlog: warning: stream FETCHLOG: lost the connection to \(server.url); reconnecting"], "\(result.stderr)")
        // (Page 0's event is applied, or pending if the kill fell between its ack and taking it back.)
        #expect(result.stdout.contains("4 requests (200×4); "), "\(result.stdout)")
        #expect(result.stdout.contains(" pending sync in the outbox; "), "\(result.stdout)")
        await upstream.stop()
    }
}}
