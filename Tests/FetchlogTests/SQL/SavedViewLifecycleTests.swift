import FetchlogCore
import Foundation
import Testing

/// A saved view is a view like any other (issue 35): `export NAME` answers its rows with
/// `asOf` and `count`, `--schema` a schema its export validates against, and it survives
/// compaction and a `log export` + `log import` into a new store; a `DROP VIEW` is honoured
/// there too, and `replay --verify` holds throughout.
@Suite struct SavedViewLifecycleTests {
    func run(_ arguments: [String], status: Int32 = 0) async throws -> String {
        let result = try await runFetchlog(arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        return result.stdout
    }

    @Test func aSavedViewExportsSurvivesCompactionAndALogCopyAndIsDroppedThere() async throws {
        let dir = TemporaryDirectory("saved-view")
        let store = try DamagedFileTests.sampleStore(dir)
        _ = try await run(["--store", store, "sql", "CREATE VIEW reds AS SELECT name, age, professions FROM gnomes WHERE hairColor = 'Red' ORDER BY name"])
        let exported = try await run(["--store", store, "export", "reds"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(exported.utf8)) as? [String: Any])
        // What the gnomes view says of the red-haired, sorted by name.
        let gnomesText = try await run(["--store", store, "export", "gnomes"])
        let gnomes = try #require((try JSONSerialization.jsonObject(with: Data(gnomesText.utf8)) as? [String: Any])?["gnomes"] as? [[String: Any]])
        let reds = gnomes.filter { $0["hairColor"] as? String == "Red" }.compactMap { $0["name"] as? String }.sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        }
        #expect(json["view"] as? String == "reds")
        #expect(json["asOf"] as? Int == 14)
        #expect(json["count"] as? Int == 272)
        let rows = try #require(json["rows"] as? [[String: Any]])
        #expect(rows.compactMap { $0["name"] as? String } == reds)
        // Lists are JSON text in SQL: the row's professions is the canonical text of the list.
        #expect(rows.allSatisfy { ($0["professions"] as? String)?.hasPrefix("[") == true })

        // Its schema, and the export valid against it (Python's jsonschema as the oracle).
        let schema = try await run(["--store", store, "export", "reds", "--schema"])
        try FileManager.default.createDirectory(atPath: dir.sub("check"), withIntermediateDirectories: true)
        try Data(schema.utf8).write(to: URL(fileURLWithPath: dir.sub("check/schema.json")))
        try Data(exported.utf8).write(to: URL(fileURLWithPath: dir.sub("check/export.json")))
        let check = try await runProcess("/usr/bin/env", ["python3", "-c", """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1])); jsonschema.Draft202012Validator.check_schema(schema)
            jsonschema.validate(json.load(open(sys.argv[2])), schema)
            bad = json.load(open(sys.argv[2])); bad["rows"][0]["age"] = "old"
            try:
                jsonschema.validate(bad, schema); print("accepted a string age")
            except jsonschema.ValidationError:
                print("ok")
            """, dir.sub("check/schema.json"), dir.sub("check/export.json")])
        #expect(check.stdout == "ok\n", "\(check.stderr)")

        // Compaction leaves it as it was.
        _ = try await run(["--store", store, "log", "compact"])
        #expect(try await run(["--store", store, "export", "reds"]) == exported)
        // The log copied into a new store: the view comes with it, byte for byte.
        let copy = dir.sub("copy")
        _ = try await run(["--store", store, "log", "export", "--out", dir.sub("log.ndjson")])
        _ = try await run(["--store", copy, "log", "import", dir.sub("log.ndjson")])
        #expect(try await run(["--store", copy, "export", "reds"]) == exported)
        // Dropped in the copy: gone there (as a table and as a view), kept in the original.
        _ = try await run(["--store", copy, "sql", "DROP VIEW reds"])
        let gone = try await runFetchlog(["--store", copy, "sql", "SELECT count(*) FROM reds"])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("no such table: reds"), "\(gone.stderr)")
        #expect(try await runFetchlog(["--store", copy, "export", "reds"]).status != 0)
        #expect(try await run(["--store", store, "export", "reds"]) == exported)
        // The copy's log carries both events; each store replays to its own views.
        #expect(try await run(["--store", copy, "--format", "csv", "sql", "SELECT label FROM events WHERE source = 'fetchlog' ORDER BY seq"])
            == "label\r\nview.saved\r\nview.dropped\r\n")
        // Replay hashes the saved view as its export: the same bytes, the same SHA-256, and
        // the live state agrees; the copy, where it was dropped, has no such row.
        let verified = try await run(["--store", store, "--format", "json", "replay", "--verify"])
        let verifiedRows = try #require(try JSONSerialization.jsonObject(with: Data(verified.utf8)) as? [[String: Any]])
        let redsRow = try #require(verifiedRows.first { $0["view"] as? String == "reds" }, "\(verified)")
        #expect(redsRow["sha256"] as? String == SHA256.hex(exported.trimmingCharacters(in: .newlines)))
        #expect(redsRow["matchesLive"] as? Bool == true)
        #expect(redsRow["events"] as? Int == 14)
        // `diff` over a saved view: not saved at seq 13, so its rows are each added at 14.
        let diffText = try await run(["--store", store, "--format", "json", "query", "diff 13 14 reds"])
        let changes = try #require(try JSONSerialization.jsonObject(with: Data(diffText.utf8)) as? [[String: Any]])
        #expect(changes.first?["path"] as? String == "/count")
        #expect(changes.first?["before"] as? Int == 0)
        #expect(changes.first?["after"] as? Int == 272)
        let added = changes.dropFirst().filter { $0["change"] as? String == "added" }
        #expect(added.count == changes.count - 1)
        #expect(Set(added.compactMap { ($0["after"] as? [String: Any])?["name"] as? String }) == Set(reds))
        #expect(try await run(["--store", store, "--format", "json", "query", "diff 14 14 reds"]) == "[]\n")
        let copied = try await run(["--store", copy, "--format", "json", "replay", "--verify"])
        #expect(!copied.contains(#""view":"reds""#), "\(copied)")
    }
}
