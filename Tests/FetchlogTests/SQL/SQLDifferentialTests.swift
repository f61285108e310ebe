import FetchlogCore
import Foundation
import Testing

/// Issue 35's differential acceptance: every query of `differential-queries.txt` (joins, CTEs,
/// windows, json_each over list columns, aggregates, saved views, `--at` an earlier seq) over
/// the demo store, the census and catalog manifests and `events`, answered by `fetchlog --format
/// json sql` and by Python's sqlite3 over tables loaded from `fetchlog export` (`sql-oracle.py`,
/// which writes the table contract again from the brief), compared value by value.
@Suite(.serialized) struct SQLDifferentialTests {
    static let here = Repo.root + "/Tests/FetchlogTests/SQL/"

    /// One query: the SQL and the seq it is asked at (nil: the head).
    struct Query: Sendable {
        let sql: String
        let at: UInt64?
        var atText: String { at.map(String.init) ?? "head" }
    }

    /// The queries of the data file, `@NAME` resolved through `seqs`.
    static func queries(seqs: [String: UInt64]) throws -> [Query] {
        let text = try String(contentsOfFile: here + "differential-queries.txt", encoding: .utf8)
        return try text.split(separator: "\n").compactMap { line -> Query? in
            if line.isEmpty || line.hasPrefix("#") { return nil }
            guard line.hasPrefix("@") else { return Query(sql: String(line), at: nil) }
            let name = String(line.dropFirst().prefix { $0 != " " })
            let seq = try #require(seqs[name], "no seq named \(name)")
            return Query(sql: String(line.dropFirst(name.count + 2)), at: seq)
        }
    }

    /// The earlier seqs the `@NAME` queries are asked at, found in the log (so the suite does
    /// not depend on how many events the demo appends): before the census was fetched (only
    /// TV Maze held), the demo's end, the census manifest fetched, the catalog's items fetched,
    /// the reviews of items 1–5 fetched.
    static func seqs(_ store: SQLTestStore) throws -> [String: UInt64] {
        let brastlewark = try #require(store.seq(source: "brastlewark", label: "/data.json"))
        let census = try #require(store.seq(source: "census", label: "/data.json"))
        let review1 = try #require(store.seq(source: "catalog", label: "/items/1/reviews"))
        let review5 = try #require(store.seq(source: "catalog", label: "/items/5/reviews"))
        let defined = try #require(store.seq(source: "fetchlog", label: "source.defined"))
        return ["tvmaze": brastlewark - 1, "demo": defined - 1, "census": census, "items": review1 - 1, "review5": review5]
    }

    @Test func everyQueryAnswersAsSQLiteOverTheExports() async throws {
        let store = try await SQLTestStore.make("sql-differential")
        let seqs = try Self.seqs(store)
        let queries = try Self.queries(seqs: seqs)
        #expect(queries.count >= 60)
        #expect(queries.filter { $0.at != nil }.count >= 10)

        // The oracle's inputs: the queries, every event, and per seq asked the schema (column
        // order, declared types, saved views), every fixed view and the resources queried.
        let work = store.dir.sub("oracle")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let list = JSONValue.array(queries.map { .object([("at", .string($0.atText)), ("sql", .string($0.sql))]) })
        try list.canonicalText().write(toFile: work + "/queries.json", atomically: true, encoding: .utf8)
        let tail = try await store.run(["log", "tail", "-n", "100000", "--format", "json"])
        try tail.stdout.write(toFile: work + "/events.json", atomically: true, encoding: .utf8)
        var exports: [(file: String, arguments: [String])] = []
        for at in Set(queries.map(\.at)) {
            let snap = work + "/snap-" + (at.map(String.init) ?? "head")
            try FileManager.default.createDirectory(atPath: snap, withIntermediateDirectories: true)
            let atArguments = at.map { ["--at", String($0)] } ?? []
            exports.append((snap + "/schema.json", ["--format", "json", "sql", "--schema"] + atArguments))
            exports.append((snap + "/all.json", ["export", "all"] + atArguments))
            // The resources the queries name, where they exist at that seq.
            let census = seqs["census"]!, items = seqs["items"]!
            if at.map({ $0 >= census }) ?? true { exports.append((snap + "/census.gnomes.json", ["export", "items/census/gnomes"] + atArguments)) }
            if at.map({ $0 >= items }) ?? true {
                exports.append((snap + "/catalog.items.json", ["export", "items/catalog/items"] + atArguments))
                exports.append((snap + "/catalog.reviews.json", ["export", "items/catalog/reviews"] + atArguments))
            }
        }
        let jobs = exports
        let exported = try await boundedParallel(jobs.count) { i in try await store.run(jobs[i].arguments) }
        for (export, result) in zip(exports, exported) {
            try #require(result.status == 0, "\(export.arguments): \(result.stderr)")
            try result.stdout.write(toFile: export.file, atomically: true, encoding: .utf8)
        }

        let oracle = try await runProcess("/usr/bin/env", ["python3", Self.here + "sql-oracle.py", work])
        try #require(oracle.status == 0, "oracle: \(oracle.stderr)")
        let expected = try #require(try JSONValue.parse(oracle.stdout).arrayValue)
        try #require(expected.count == queries.count)

        let answers = try await boundedParallel(queries.count) { i in
            try await store.run(["--format", "json", "sql", queries[i].sql] + (queries[i].at.map { ["--at", String($0)] } ?? []))
        }
        var rowsCompared = 0
        for (index, (query, (answer, oracle))) in zip(queries, zip(answers, expected)).enumerated() {
            let label = "query \(index + 1)\(query.at.map { " --at \($0)" } ?? ""): \(query.sql)"
            if let error = oracle["error"]?.stringValue {
                Issue.record("\(label): the oracle failed: \(error)")
                continue
            }
            #expect(!answer.signaled && answer.status == 0, "\(label): \(answer.stderr)")
            guard answer.status == 0, let rows = (try? JSONValue.parse(answer.stdout))?.arrayValue else { continue }
            let columns = (oracle["columns"]?.arrayValue ?? []).compactMap(\.stringValue)
            let want = oracle["rows"]?.arrayValue ?? []
            #expect(rows.count == want.count, "\(label): \(rows.count) rows, the oracle \(want.count)")
            for (n, (row, wanted)) in zip(rows, want).enumerated() {
                #expect(row.memberNames == columns, "\(label): row \(n) columns \(row.memberNames), the oracle \(columns)")
                guard case .object(let members) = row, let values = wanted.arrayValue, members.count == values.count else { continue }
                for ((column, got), value) in zip(members, values) where !Self.same(got, value) {
                    Issue.record("\(label): row \(n) \(column): fetchlog \(got.canonicalText()), the oracle \(value.canonicalText())")
                }
                rowsCompared += 1
            }
        }
        // Not a vacuous pass: the answers hold rows, and some are checked against the fixtures.
        #expect(rowsCompared >= 1400, "\(rowsCompared) rows compared")
        try await Self.expectKnownAnswers(store, queries: queries, answers: answers, seqs: seqs)
    }

    /// Numbers by value and kind (an integer never equals a real: a real's text has `.` or
    /// `e`, as Swift's description and Python's repr write it), everything else exactly.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        guard case .number(let x) = a, case .number(let y) = b else { return a == b }
        let realX = x.contains { ".eE".contains($0) }, realY = y.contains { ".eE".contains($0) }
        guard realX == realY else { return false }
        if !realX, let i = Int64(x), let j = Int64(y) { return i == j }
        return Double(x) == Double(y)
    }

    /// A few answers checked against the fixtures themselves, not only against the oracle.
    static func expectKnownAnswers(_ store: SQLTestStore, queries: [Query], answers: [CommandResult], seqs: [String: UInt64]) async throws {
        func answer(_ sql: String, at: UInt64? = nil) throws -> [JSONValue] {
            let index = try #require(queries.firstIndex { $0.sql == sql && $0.at == at }, "no query \(sql)")
            return try JSONValue.parse(answers[index].stdout).arrayValue ?? []
        }
        // Gnomes per hair colour, counted from the recorded census.
        let census = try JSONValue.parse(bytes: try Fixture.bytes("brastlewark/census.json"))
        let gnomes = census["Brastlewark"]?.arrayValue ?? []
        #expect(gnomes.count == 1337)
        var perColour: [String: Int] = [:]
        for gnome in gnomes { perColour[gnome["hair_color"]?.stringValue ?? "?", default: 0] += 1 }
        let expected = perColour.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let counted = try answer("SELECT hairColor, count(*) AS n FROM gnomes GROUP BY hairColor ORDER BY n DESC, hairColor")
        #expect(counted.map { [$0["hairColor"]?.stringValue ?? "", String($0["n"]?.intValue ?? -1)] } == expected.map { [$0.key, String($0.value)] })
        #expect(expected.map(\.value) == [285, 272, 267, 258, 255])
        // The same through the census manifest, as of the seq it was fetched at.
        let byManifest = try answer("SELECT hair_color, count(*) FROM census.gnomes GROUP BY 1 ORDER BY 2 DESC, 1", at: seqs["census"])
        #expect(byManifest.map { $0["hair_color"]?.stringValue ?? "" } == expected.map(\.key))
        // The catalog: 12 items of sizes 10, 20, … 120, every one held before the reviews.
        let items = try answer("SELECT count(*), sum(size), max(name) FROM catalog.items", at: seqs["items"])
        #expect(items.first?["count(*)"]?.intValue == 12 && items.first?["sum(size)"]?.intValue == 780)
        // Before the census was fetched the gnomes table is empty; the log counts every event.
        #expect(try answer("SELECT count(*) FROM gnomes", at: seqs["tvmaze"]).first?["count(*)"]?.intValue == 0)
        let events = try answer("SELECT min(seq), max(seq), count(*), count(status), count(method) FROM events")
        #expect(events.first?["count(*)"]?.intValue == store.events.count && events.first?["max(seq)"]?.intValue == store.events.count)
        // A saved view is a table: its rows are the hair colours' counts.
        let saved = try answer("SELECT * FROM hair_counts ORDER BY n DESC, hairColor")
        #expect(saved.map { $0["n"]?.intValue ?? -1 } == [285, 272, 267, 258, 255])
    }
}
