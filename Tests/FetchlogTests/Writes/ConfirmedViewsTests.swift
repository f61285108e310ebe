import FetchlogCore
import Foundation
import Testing

/// Issue 26: `--confirmed` on `facets`, `links` and `export` shows the server's truth alone,
/// as on `items` and `item`; without it each shows the pending changes folded on top.
@Suite struct ConfirmedViewsTests {
    /// The notes with a facet (`done`) and a link (`after` names a note by its title,
    /// declared as a column so a write may set it).
    static let manifest = #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":[{"name":"notes","primary_key":"id","#
        + #""columns":{"after":{"data_type":"text"}},"endpoint":{"path":"notes","data_selector":"data","paginator":"single_page"},"#
        + #""fetchlog":{"facets":["done"],"links":{"after":{"to":"notes","by":"title"}},"# + OfflineWritesTests.writes + "}}]}"

    /// The notes as the sample upstream serves them.
    static let served = [
        #"{"id":1,"title":"buy milk","done":false,"priority":2,"version":1}"#,
        #"{"id":2,"title":"call the plumber","done":true,"priority":1,"version":1}"#,
        #"{"id":3,"title":"write the report","done":false,"priority":4,"version":1}"#,
    ]

    /// A store holding the notes, note 3 changed offline (done, and naming note 1 as after).
    static func rig(_ name: String) async throws -> (ManifestCLIRig, Int) {
        let rig = try await ManifestCLIRig.start(name, manifest: manifest)
        #expect(try await rig.fetch(["notes"]).status == 0)
        let made = try await runFetchlog(["--store", rig.store, "item", "set", "catalog", "notes", "3", "done=true", "after=buy milk", "--offline", "--format", "json"])
        #expect(made.status == 0, "\(made.stderr)")
        return (rig, try #require(try JSONValue.parse(made.stdout)["mutation"]?.intValue))
    }

    static func json(_ rig: ManifestCLIRig, _ arguments: [String]) async throws -> JSONValue {
        let result = try await runFetchlog(["--store", rig.store] + arguments + ["--format", "json"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONValue.parse(result.stdout)
    }

    @Test func facetsConfirmedCountTheServersValuesAlone() async throws {
        let (rig, _) = try await Self.rig("confirmed-facets")
        func counts(_ extra: [String]) async throws -> [String] {
            let facets = try await Self.json(rig, ["facets", "catalog", "notes"] + extra)
            return (facets.arrayValue ?? []).map { "\($0["field"]?.stringValue ?? "") \($0["value"]?.stringValue ?? "") \($0["count"]?.intValue ?? 0)" }.sorted()
        }
        // Served: notes 1 and 3 not done, note 2 done; pending, note 3 is done too.
        #expect(try await counts([]) == ["done false 1", "done true 2"])
        #expect(try await counts(["--confirmed"]) == ["done false 2", "done true 1"])
        await rig.stop()
    }

    @Test func linksConfirmedFollowTheServersItemsAlone() async throws {
        let (rig, _) = try await Self.rig("confirmed-links")
        // Pending, note 3 names note 1; the server's note 3 names nothing.
        let optimistic = try await Self.json(rig, ["links", "catalog", "notes", "1"])
        #expect(optimistic.canonicalText() == #"[{"key":3,"relation":"listed-by","title":"write the report"}]"#)
        #expect(try await Self.json(rig, ["links", "catalog", "notes", "1", "--confirmed"]) == .array([]))
        await rig.stop()
    }

    @Test func exportConfirmedIsTheServersItemsAlone() async throws {
        let (rig, change) = try await Self.rig("confirmed-export")
        let confirmed = try await Self.json(rig, ["export", "items/catalog/notes", "--confirmed"])
        #expect(confirmed["items"]?.canonicalText() == JSONValue.array(try Self.served.map { try JSONValue.parse($0) }).canonicalText())
        let optimistic = try await Self.json(rig, ["export", "items/catalog/notes"])
        let third = #"{"after":"buy milk","done":true,"id":3,"pending":{"mutations":[\#(change)],"state":"queued"},"priority":4,"title":"write the report","version":1}"#
        #expect(optimistic["items"]?.arrayValue?.last?.canonicalText() == third)
        // The facets' export too, and as of a seq.
        let facets = try await Self.json(rig, ["export", "facets/catalog/notes", "--confirmed", "--at", String(change)])
        #expect(facets["facets"]?.canonicalText() == (try await Self.json(rig, ["export", "facets/catalog/notes", "--at", String(change - 1)]))["facets"]?.canonicalText())
        await rig.stop()
    }
}
