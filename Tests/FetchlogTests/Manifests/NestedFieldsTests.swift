import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// Issue 34, item 6: a nested field by its dotted path (`network.name`) in `--where`,
/// `facets`, search fields and columns — before, each silently answered nothing — and a
/// `--where` on a field no item holds is an error naming the fields there are (before:
/// "0 of 240 items", exit 0). TVmaze's first page of shows through a manifest, counted from
/// the recorded fixture.
@Suite struct NestedFieldsTests {
    /// TVmaze's shows as a manifest source (`tvmaze` is the seed source's name): its base
    /// the sample upstream's TVmaze, a loopback address, so fetched with private hosts allowed.
    static func manifest(base: String) -> String { #"""
        {"name":"tv","client":{"base_url":"\#(base)/tvmaze"},
         "resources":[{"name":"shows","primary_key":"id","endpoint":{"path":"shows","params":{"page":0},"paginator":"single_page"},
                       "fetchlog":{"search":["network.name"],"facets":["network.name","rating.average"]}}]}
        """#
    }

    /// The fixture's shows (what the sample upstream serves as page 0).
    static func shows() throws -> [JSONValue] {
        try #require(try JSONValue.parse(bytes: Fixture.bytes("tvmaze/shows-page-0-2024.json")).arrayValue)
    }

    @Test func dottedFieldsAreReadInWhereFacetsSearchAndColumns() async throws {
        let shows = try Self.shows()
        let hbo = shows.filter { $0["network"]?["name"] == .string("HBO") }
        let rated = shows.filter { ($0["rating"]?["average"]?.doubleValue ?? 0) >= 8.5 }
        try #require(hbo.count > 0 && rated.count > 0)

        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("nested-fields")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let file = dir.sub("tvmaze.json")
        try Self.manifest(base: upstream.base).write(toFile: file, atomically: true, encoding: .utf8)
        func cli(_ words: [String]) async throws -> CommandResult {
            try await runFetchlog(["--store", dir.sub("store"), "--allow-private-hosts", "--retries", "0"] + words)
        }
        #expect(try await cli(["source", "add", file]).status == 0)
        let fetched = try await cli(["fetch", "tv", "shows"])
        #expect(fetched.status == 0, "\(fetched.stdout) \(fetched.stderr)")

        func ids(_ result: CommandResult) throws -> [Int] {
            try #require(try JSONValue.parse(result.stdout).arrayValue).compactMap { $0["id"]?.intValue }
        }
        let whereHBO = try await cli(["items", "tv", "shows", "--where", "network.name=hbo", "--all", "--format", "json"])
        #expect(try ids(whereHBO) == hbo.compactMap { $0["id"]?.intValue })
        let whereRated = try await cli(["items", "tv", "shows", "--where", "rating.average=8.5..", "--all", "--format", "json"])
        #expect(try ids(whereRated) == rated.compactMap { $0["id"]?.intValue })
        let searched = try await cli(["items", "tv", "shows", "HBO", "--all", "--format", "json"])
        #expect(try ids(searched) == hbo.compactMap { $0["id"]?.intValue })

        let facets = try await cli(["facets", "tv", "shows", "--format", "ndjson"])
        #expect(facets.status == 0, "\(facets.stderr)")
        let rows = facets.stdout.split(separator: "\n").map(String.init)
        #expect(rows.contains(#"{"count":\#(hbo.count),"field":"network.name","value":"HBO"}"#), "\(rows.prefix(5))")
        #expect(hbo.count == 15 && shows.count == 240)

        let missing = try await cli(["items", "tv", "shows", "--where", "network.nam=HBO"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no item of tv shows holds the field 'network.nam' (did you mean 'network.name'?): its fields are id, url, name, type"),
                "\(missing.stderr)")
        await upstream.stop()
    }

    @Test func aDottedPathWalksObjectsAndLists() throws {
        let item = try JSONValue.parse(#"{"a":{"b":{"c":1}},"list":[{"x":"p"},{"x":"q"},{"y":0}],"a.b":"own"}"#)
        #expect(ItemsView.value(of: "a.b.c", in: item) == .number(1))
        #expect(ItemsView.value(of: "list.x", in: item) == .array([.string("p"), .string("q")]))
        #expect(ItemsView.value(of: "a.b", in: item) == .string("own"))
        #expect(ItemsView.value(of: "a.z", in: item) == nil)
        #expect(ItemsView.fieldNames(of: [item]) == ["a.b.c", "list", "a.b"])
    }
}
