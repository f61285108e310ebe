@testable import FetchlogCore
import FetchlogSources
import Foundation
import SampleUpstream
import Testing

/// Child resources (`{resources.PARENT.FIELD}`, dlt's `resolve` params), `include_from_parent`,
/// the durable window of a manifest resource, and the schemas generated for its exports —
/// against the sample upstream's catalog on loopback, requests counted.
@Suite struct ChildResourceTests {
    static let catalogManifest = Repo.root + "/docs/manifests/catalog.json"

    static func catalog() throws -> RestManifest {
        try RestManifest(json: try JSONValue.parse(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: catalogManifest)))))
    }

    /// The reviews the catalog serves, as `CatalogRoutes` makes them, for ids in order.
    static func expectedReviews(_ ids: [Int]) throws -> [JSONValue] {
        try ids.flatMap { id in
            try (JSONValue.parse(bytes: Array(CatalogRoutes.reviews(of: id).utf8))["data"]?.arrayValue ?? []).map {
                ItemsView.adding([("_items_name", .string("item \(id)"))], to: $0)
            }
        }
    }

    @Test func aChildResourceAsksOncePerDistinctParentItemAndIncludesParentFields() async throws {
        let rig = try await ManifestTests().start(try Self.catalog())
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: "reviews")
        // The parent's three pages, then each of the twelve distinct items once (item 5 sits
        // on two pages, and is asked for once).
        let asked = await rig.upstream.asked
        #expect(asked == ["/catalog/pages?page=1", "/catalog/pages?page=2", "/catalog/pages?page=3"] + (1 ... 12).map { "/catalog/items/\($0)/reviews" })
        #expect(reports.count == 15)
        let export = try ViewCatalog.export("items/catalog/reviews", state: rig.store.snapshot.state)
        // 12 reviews: id % 3 of them per item, in parent order, each with `_items_name`.
        #expect(export["count"] == .number(12))
        #expect(export["items"]?.arrayValue == (try Self.expectedReviews(Array(1 ... 12))))
        #expect(export["items"]?.arrayValue?.first?.canonicalText() == #"{"_items_name":"item 1","id":"1-1","stars":2,"text":"review 1 of item 1"}"#)
        // Fetching again revalidates every page and list: 304s, nothing new.
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "reviews")
        #expect(await rig.upstream.asked.count == 30)
        #expect(try ViewCatalog.export("items/catalog/reviews", state: rig.store.snapshot.state)["items"] == export["items"])
        await ManifestTests().stop(rig)
    }

    @Test func dltsOlderResolveParamsMeanTheSame() async throws {
        let manifest = try ManifestTests.manifest(
            #"{"name":"items","primary_key":"id","endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}},"#
                + #"{"name":"reviews","primary_key":"id","include_from_parent":["name"],"endpoint":{"path":"items/{item}/reviews","data_selector":"data","paginator":"single_page","#
                + #""params":{"item":{"type":"resolve","resource":"items","field":"id"}}}}"#)
        #expect(manifest.resources[1].parent == "items")
        let rig = try await ManifestTests().start(manifest)
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "reviews", maxPages: 1)
        // One page of parents (1–5), then their five lists.
        #expect(await rig.upstream.asked == ["/catalog/pages?page=1"] + (1 ... 5).map { "/catalog/items/\($0)/reviews" })
        let items = try ViewCatalog.export("items/catalog/reviews", state: rig.store.snapshot.state)["items"]?.arrayValue
        #expect(items == (try Self.expectedReviews(Array(1 ... 5))))
        await ManifestTests().stop(rig)
    }

    @Test func aPageRangeStartsANumberedListFurtherOnAndReadsALinkedOneToItsStart() async throws {
        let rig = try await ManifestTests().start(try Self.catalog())
        let numbered = try await rig.store.fetchManifestResource(source: "catalog", resource: "items", firstPage: 2, maxPages: 2)
        #expect(numbered.count == 2)
        #expect(await rig.upstream.asked == ["/catalog/pages?page=2", "/catalog/pages?page=3"])
        let offsets = try await rig.store.fetchManifestResource(source: "catalog", resource: "offsets", firstPage: 3, maxPages: 1)
        #expect(offsets.count == 1)
        #expect(await rig.upstream.asked.last == "/catalog/offset?offset=10&limit=5")
        // A cursor list knows page 2 only from page 1: both are fetched, page 2 is the one asked for.
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "cursored", firstPage: 2, maxPages: 1)
        #expect(await rig.upstream.asked.suffix(2) == ["/catalog/cursor", "/catalog/cursor?cursor=c2"])
        await ManifestTests().stop(rig)
    }

    @Test func pagesPastTheDurableWindowAreKeptForTheSessionOnly() async throws {
        let manifest = try ManifestTests.manifest(
            #"{"name":"pages","primary_key":"id","endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}},"#
                + #""fetchlog":{"durable_items":5}}"#)
        let rig = try await ManifestTests().start(manifest)
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: "pages")
        // Page 1 (items 0–4) is in the log; pages 2 and 3 start at items 5 and 11: session only.
        #expect(reports.map { $0.attempts.last?.seq == 0 } == [false, true, true])
        #expect(reports.map(\.firstItemIndex) == [nil, 5, 11])
        #expect(try rig.log.lastSeq() == 1)
        #expect(try ManifestTests().ids(rig, "pages") == Array(1 ... 12)) // this session sees all
        let durable = try ViewCatalog.export("items/catalog/pages", state: rig.store.durableState)
        #expect(durable["count"] == .number(5))
        await ManifestTests().stop(rig)
    }

    @Test func generatedSchemasValidateTheExportsAndCatchADrift() async throws {
        let rig = try await ManifestTests().start(try Self.catalog())
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "reviews")
        let state = rig.store.snapshot.state
        let directory = TemporaryDirectory("manifest-schema")
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        for view in ["items/catalog/items", "items/catalog/reviews", "facets/catalog/items", "facets/catalog/reviews"] {
            let schema = try #require(ManifestSchemas.schema(of: view, state: state))
            let schemaFile = directory.path + "/schema.json", documentFile = directory.path + "/doc.json"
            try Data(schema.canonicalText().utf8).write(to: URL(fileURLWithPath: schemaFile))
            try Data(try ViewCatalog.export(view, state: state).canonicalText().utf8).write(to: URL(fileURLWithPath: documentFile))
            let valid = try await runProcess("/usr/bin/env", ["python3", Repo.root + "/Tools/validate-json.py", schemaFile, documentFile])
            #expect(valid.status == 0, "\(view): \(valid.stdout) \(valid.stderr)")
            #expect(valid.stdout == "valid: 1 of 1 documents against schema.json\n")
        }
        // The reviews' schema requires the key and the parent's member, and types each field.
        let reviews = try #require(ManifestSchemas.schema(of: "items/catalog/reviews", state: state))
        let item = reviews["properties"]?["items"]?["items"]
        #expect(item?["required"] == .array([.string("id"), .string("_items_name")]))
        #expect(item?["properties"]?.canonicalText() == #"{"_items_name":{"type":"string"},"id":{"type":"string"},"stars":{"type":"integer"},"text":{"type":"string"}}"#)
        // A document that drifted (a key gone) fails.
        let schemaFile = directory.path + "/schema.json", documentFile = directory.path + "/bad.json"
        try Data(reviews.canonicalText().utf8).write(to: URL(fileURLWithPath: schemaFile))
        try Data(#"{"asOf":1,"count":1,"items":[{"stars":1}],"resource":"reviews","source":"catalog","view":"items"}"#.utf8).write(to: URL(fileURLWithPath: documentFile))
        let invalid = try await runProcess("/usr/bin/env", ["python3", Repo.root + "/Tools/validate-json.py", schemaFile, documentFile])
        #expect(invalid.status == 1)
        #expect(invalid.stdout + invalid.stderr == "invalid: \(documentFile) at items/0: 'id' is a required property\n", "\(invalid.stdout) \(invalid.stderr)")
        await ManifestTests().stop(rig)
    }

    /// A child whose parent item is named only in its POST body (or a header): every page
    /// shares one URL, so its label's fragment is what tells whose page it is. Before, each
    /// parent item took every page at the path, and every hit carried the last parent's id.
    @Test func childPagesNamedByTheirBodyKeepTheirOwnParent() async throws {
        let manifest = try ManifestTests.manifest(
            #"{"name":"items","primary_key":"id","endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}},"#
                + #"{"name":"hits","primary_key":"id","include_from_parent":["id"],"#
                + #""endpoint":{"path":"form-search","method":"POST","data":{"q":"{resources.items.name}"},"data_selector":"hits","paginator":"single_page"}}"#)
        let rig = try await ManifestTests().start(manifest)
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: "hits")
        #expect(reports.count == 15)
        let hits = try ViewCatalog.export("items/catalog/hits", state: rig.store.snapshot.state)["items"]?.arrayValue ?? []
        // "item 1" finds 1, 10, 11 and 12; each later parent finds its own again: the last
        // parent to bring a hit is the hit itself.
        #expect(hits.compactMap { $0["id"]?.intValue } == [1, 10, 11, 12, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(hits.allSatisfy { $0["id"] == $0["_items_id"] }, "\(hits.map { $0.canonicalText() })")
        await ManifestTests().stop(rig)
    }
}
