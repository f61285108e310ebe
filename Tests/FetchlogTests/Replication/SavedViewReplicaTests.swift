import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogNATS
@testable import FetchlogReplication
@testable import FetchlogSources
@testable import FetchlogSQL

/// Saved SQL views are events (issue 35): a replica that follows the stream knows each one a
/// seeding store saved — and not one it dropped — and answers its queries byte for byte as
/// the seeding store does.
extension NATSSuites { @Suite struct SavedViewReplicaTests {
    @Test func aReplicaKnowsTheSavedViewsAndAnswersAsTheSeedingStore() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let dir = TemporaryDirectory("replicate-views")
        let a = try openStore(in: dir, id: "store-a")
        defer { a.close() }
        #expect(try await offPool { try a.importNDJSON(path: Repo.sampleLog) } == 13)
        let seeding = try Store(log: a, sources: .seed)
        _ = try await seeding.sql("CREATE VIEW reds AS SELECT name, age FROM gnomes WHERE hairColor = 'Red' ORDER BY name")
        _ = try await seeding.sql("CREATE VIEW old AS SELECT count(*) AS n FROM gnomes WHERE age > 300")
        _ = try await seeding.sql("DROP VIEW old")
        let nats = try NATSConnection(servers: [server.url])
        #expect(try await offPool { try Replication.attach(a, nats: nats) } == .seeded(events: 16))

        let b = try openStore(in: dir, id: "store-b")
        defer { b.close() }
        #expect(try Replication.attach(b, nats: nats) == .replica(behind: 16))
        #expect(try await offPool { try Replication.catchUp(b, nats: nats, stream: "FETCHLOG") } == 16)
        let replica = try Store(log: b, sources: .seed)
        #expect(replica.snapshot.state.savedViews == seeding.snapshot.state.savedViews)
        #expect(replica.snapshot.state.savedViews.keys.sorted() == ["reds"])
        for query in ["SELECT * FROM reds", "SELECT count(*), sum(age) FROM reds", "SELECT label FROM events WHERE source = 'fetchlog' ORDER BY seq"] {
            let mine = try await seeding.sql(query)
            let theirs = try await replica.sql(query)
            #expect(theirs.json.canonicalText() == mine.json.canonicalText(), "\(query)")
        }
        #expect(try await replica.sql("SELECT count(*) FROM reds").rows == [[.number("272")]])
        await #expect(throws: SQLError.self) { try await replica.sql("SELECT * FROM old") }
        #expect(try await replica.sql("SELECT n FROM old", at: 15).rows == (try await seeding.sql("SELECT n FROM old", at: 15).rows))
    }
} }
