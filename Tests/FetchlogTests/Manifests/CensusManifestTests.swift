import FetchlogCore
import FetchlogSources
import Foundation
import Testing

/// The seed Brastlewark census as a manifest (`docs/manifests/census.json`): on the recorded
/// census, its generic answers — items search, facets, links, paths — equal the built-in
/// gnome views', computed side by side in one store from the same body.
@Suite struct CensusManifestTests {
    static func both() async throws -> (FetchHarness, Store, LogState) {
        let harness = try await FetchHarness.start()
        let store = harness.store
        let manifest = try RestManifest(json: try JSONValue.parse(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: Repo.root + "/docs/manifests/census.json")))))
        try await store.define(manifest)
        _ = try await store.fetch(.brastlewarkCensus)
        let reports = try await store.fetchManifestResource(source: "census", resource: "gnomes")
        #expect(reports.map(\.outcome) == [.fetched])
        return (harness, store, store.snapshot.state)
    }

    @Test func itemsSearchFacetsLinksAndPathsEqualTheBuiltInGnomeViews() async throws {
        let (harness, store, state) = try await Self.both()
        defer { _ = store }
        let gnomes = GnomesView(state: state)
        let items = try #require(ItemsView(state: state, source: "census", resource: "gnomes"))
        #expect(items.items.count == 1337)
        #expect(items.items.compactMap { $0["id"]?.intValue } == gnomes.gnomes.map(\.id))

        // Search: name, hair colour and professions, trimmed, case-insensitive, partial.
        for text in ["tinker", "PINK", "Tobus", "  fizkin ", "ar", "zz", "", "Quickwhistle", "smelter"] {
            #expect(items.query(text: text).compactMap { $0["id"]?.intValue } == gnomes.search(text).map(\.id), "search \(text)")
        }
        // Filters as --where: a whole value of a list field, and a numeric range.
        let tinkers = items.query(conditions: [ItemsView.Condition(field: "professions", value: "tinker"), ItemsView.Condition(field: "age", value: "100..200")])
        let expected = gnomes.gnomes.filter { $0.professions.map { $0.lowercased() }.contains("tinker") && (100 ... 200).contains($0.age) }
        #expect(tinkers.compactMap { $0["id"]?.intValue } == expected.map(\.id))
        #expect(expected.count > 10)

        // Facets: the values and ranges the filters view offers.
        let available = FiltersView(state: state).available
        let facets = try #require(FacetsView(state: state, source: "census", resource: "gnomes")).facets
        func values(_ field: String) -> [String]? {
            for case .values(let name, let counts) in facets where name == field { return counts.map(\.value) }
            return nil
        }
        func range(_ field: String) -> (Double, Double)? {
            for case .range(let name, let low, let high) in facets where name == field { return (low, high) }
            return nil
        }
        #expect(values("hair_color") == available.hairColors)
        #expect(values("professions") == available.professions)
        #expect(range("age").map { [$0.0, $0.1] } == [Double(available.age.min!), Double(available.age.max!)])
        #expect(range("weight").map { [$0.0, $0.1] } == [available.weight.min!, available.weight.max!])
        #expect(range("height").map { [$0.0, $0.1] } == [available.height.min!, available.height.max!])

        // Links: every gnome's friends, who lists it, and the names matching nobody.
        let links = try #require(LinksView(state: state, source: "census", resource: "gnomes"))
        let friends = FriendsView(state: state)
        let ids = gnomes.gnomes.map(\.id)
        var linked = 0
        for (index, id) in ids.enumerated() {
            let entry = try #require(friends.entry(id: id))
            #expect(links.entries[index].links.map { ids[$0] } == entry.friends, "friends of \(id)")
            #expect(links.listedBy[index].map { ids[$0] } == entry.listedBy, "listed by of \(id)")
            #expect(links.entries[index].unknown == entry.unknownFriends, "unknown of \(id)")
            linked += entry.friends.count
        }
        #expect(linked == friends.listingCount)

        // Paths: 60 pairs spread over the census, connected or not, the same chains.
        var connected = 0
        for k in 0 ..< 60 {
            let a = (k * 37 + 11) % ids.count, b = (k * 101 + 523) % ids.count
            let builtIn = friends.path(from: ids[a], to: ids[b])
            #expect(links.path(from: a, to: b)?.map { ids[$0] } == builtIn, "path \(ids[a]) → \(ids[b])")
            if builtIn != nil { connected += 1 }
        }
        #expect(connected > 0 && connected < 60)
        await harness.stop()
    }

    @Test func theImagesFieldDownloadsEachDistinctThumbnailOnceAsAnAsset() async throws {
        let (harness, store, state) = try await Self.both()
        let thumbnails = Set(GnomesView(state: state).gnomes.map(\.thumbnail))
        let policy = OfflineFirst(store: store, clock: harness.fetcher.configuration.clock)
        let reports = try await policy.fetchManifestImages(source: "census", resource: "gnomes")
        #expect(reports.count == thumbnails.count)
        #expect(reports.allSatisfy { $0.outcome == .fetched })
        let held = store.snapshot.state.documents.keys.filter { $0.source == Source.assets.rawValue }.map(\.path)
        #expect(Set(held) == thumbnails)
        // The seed census plug-in finds every thumbnail already held: nothing is fetched again.
        let asked = await harness.upstream.receivedPaths.count
        _ = try await policy.fetchGnomeThumbnails()
        #expect(await harness.upstream.receivedPaths.count == asked)
        await harness.stop()
    }

    @Test func theCommandLineAnswersLinksPathAndFacets() async throws {
        let (harness, store, state) = try await Self.both()
        _ = store
        // Tobus Quickwhistle (0): his two friends, as the built-in friends command lists them.
        let friends = FriendsView(state: state).entry(id: 0)!
        #expect(friends.friends == [273, 654])
        let dir = harness.directory.path
        let links = try await runFetchlog(["--store", dir, "links", "census", "gnomes", "Tobus Quickwhistle", "--format", "ndjson"])
        #expect(links.status == 0, "\(links.stderr)")
        #expect(links.stdout == #"{"key":273,"name":"Cogwitz Chillwidget","relation":"link"}"# + "\n" + #"{"key":654,"name":"Tinadette Chillbuster","relation":"link"}"# + "\n")
        let path = try await runFetchlog(["--store", dir, "path", "census", "gnomes", "0", "237", "--format", "json"])
        let chain = FriendsView(state: state).path(from: 0, to: 237)!
        #expect(path.stdout == #"{"path":[\#(chain.map(String.init).joined(separator: ","))],"steps":\#(chain.count - 1)}"# + "\n", "\(path.stdout) \(path.stderr)")
        let facets = try await runFetchlog(["--store", dir, "facets", "census", "gnomes", "--format", "ndjson"])
        #expect(facets.stdout.split(separator: "\n").first == #"{"count":255,"field":"hair_color","value":"Black"}"#)
        let unknown = try await runFetchlog(["--store", dir, "links", "census", "gnomes", "Nobody Atall"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no gnomes item has the key or name 'Nobody Atall'"), "\(unknown.stderr)")
        await harness.stop()
    }
}
