import FetchlogCore
import FetchlogSQL
import FetchlogSources
import Foundation
import SampleUpstream
import Testing

/// The code of `Sources/FetchlogSQL/FetchlogSQL.docc/AskingWithSQL.md`, compiled and run
/// against the bundled sample upstream (same statements, same order); the second test
/// checks that every statement of the article is one of this file's.
@Suite struct AskingWithSQLTests {
    static let article = Repo.root + "/Sources/FetchlogSQL/FetchlogSQL.docc/AskingWithSQL.md"

    struct Gnome: Decodable, Equatable {
        let name: String
        let age: Int
    }

    @Test func theArticleRunsAsWritten() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let upstreamURL = try await upstream.start()
        let temporary = TemporaryDirectory("sql-article")
        let directory = URL(filePath: temporary.path)
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: upstreamURL)
        // The article's seqs are exact (the census is 1, the shows page 2): a retry would shift them.
        configuration.fetching.bearTheSuitesLoad()
        let store = try await SeedSources.openStore(at: directory, configuration: configuration)
        try await store.fetch(.brastlewarkCensus)
        try await store.fetch(.tvmazeShowsPage(0))

        // Ask
        let answer = try await store.sql("SELECT hairColor, count(*) AS n FROM gnomes GROUP BY 1 ORDER BY n DESC LIMIT 2")
        #expect(answer.columns == ["hairColor", "n"])
        #expect(answer.rows == [[.string("Pink"), .number(285)], [.string("Red"), .number(272)]])
        #expect(answer.asOf == 2)
        #expect(answer.json.canonicalText() == #"[{"hairColor":"Pink","n":285},{"hairColor":"Red","n":272}]"#)

        // Into your types
        let oldest = try await store.sql("SELECT name, age FROM gnomes ORDER BY age DESC, name LIMIT 2", as: Gnome.self)
        #expect(oldest == [Gnome(name: "Emmadette Bombblade", age: 379), Gnome(name: "Libalia Quickpower", age: 379)])

        // Lists and objects are JSON
        let professions = try await store.sql("""
            SELECT trim(p.value) AS profession, count(*) AS n
            FROM gnomes, json_each(gnomes.professions) AS p
            GROUP BY 1 ORDER BY n DESC, 1 LIMIT 3
            """)
        #expect(professions.rows.map { $0[0] } == [.string("Carpenter"), .string("Baker"), .string("Mason")])

        // The log
        let log = try await store.sql("SELECT seq, kind, source, label FROM events ORDER BY seq")
        #expect(log.rows.count == 2)
        #expect(log.rows[0] == [.number(1), .string("fetched"), .string("brastlewark"), .string("/data.json")])

        // The past
        let then = try await store.sql("SELECT count(*) FROM shows", at: 1)
        #expect(then.rows == [[.number(0)]])

        // Saved views are events
        let saved = try await store.sql("CREATE VIEW pink AS SELECT name, age FROM gnomes WHERE hairColor = 'Pink'")
        #expect(saved.asOf == 3)
        var pinkCounts = store.observe(sql: "SELECT count(*) AS n FROM pink").makeAsyncIterator()
        let first = try await pinkCounts.next()
        print(first?.rows ?? [])
        #expect(first?.rows == [[.number(285)]])
        try await store.sql("DROP VIEW pink")
        var ended: SQLError?
        do {
            _ = try await pinkCounts.next()
        } catch let error as SQLError {
            print(error.message)
            ended = error
        }
        #expect(ended?.message.hasPrefix("no such table: pink") == true, "\(String(describing: ended))")

        // Read-only, and limited in time
        var refused: SQLError?
        do {
            _ = try await store.sql("DELETE FROM gnomes")
        } catch let error as SQLError where error.kind == .refused {
            print(error.message)
            refused = error
        }
        #expect(refused?.message.hasPrefix("refused: DELETE is not a query") == true)
        var stopped: SQLError?
        do {
            _ = try await store.sql("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n", timeLimit: .milliseconds(200))
        } catch let error as SQLError where error.kind == .timeLimit {
            print(error.message)
            stopped = error
        }
        #expect(stopped != nil)

        await store.close()
        await upstream.stop()
    }

    /// Every statement of the article's code is in the test above (comments, imports and the
    /// set-up the tests do their own way apart: `UsingTheSeedSourcesTests.replaced`).
    @Test func theArticlesCodeIsTheTests() throws {
        let lines = UsingTheSeedSourcesTests.codeLines(of: try String(contentsOfFile: Self.article, encoding: .utf8))
        #expect(lines.count >= 30)
        #expect(UsingTheSeedSourcesTests.replaced.allSatisfy(lines.contains))
        let test = try String(contentsOfFile: #filePath, encoding: .utf8)
        #expect(lines.filter { !test.contains($0) && !UsingTheSeedSourcesTests.replaced.contains($0) } == [])
    }
}
