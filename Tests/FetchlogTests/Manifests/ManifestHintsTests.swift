@testable import FetchlogCore
import Foundation
import Testing

/// Issue 24, items 5–7: dlt's resource hints with a meaning in Fetchlog (`write_disposition`,
/// `table_name`, `columns`, `parallelized`), the rest accepted and said to have no effect;
/// `response_actions` with `content`; `{name}` in a path from a fixed param; escaped braces;
/// `json_response`; and messages that name dlt's keys where they were written.
@Suite struct ManifestHintsTests {
    static func refusal(_ text: String) -> String? {
        do {
            _ = try RestManifest(json: try JSONValue.parse(text))
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func hintsAreReadWithDltsMeaningAndTheRestAreNamed() throws {
        let manifest = try ManifestTests.manifest(
            #"{"name":"a","table_name":"alpha","write_disposition":"replace","selected":false,"max_table_nesting":0,"merge_key":"id","#
                + #""columns":{"size":{"data_type":"double"},"name":{"nullable":false}},"endpoint":{"path":"a","paginator":"json_response"}},"#
                + #"{"name":"b","write_disposition":{"disposition":"merge","strategy":"upsert"},"endpoint":{"path":"{org}/{repo}/b","#
                + #""params":{"org":"dlt-hub","repo":"dlt","q":"{{literal}}"}}}"#)
        let a = try #require(manifest.resource("alpha"))
        #expect(a.name == "a" && a.writeDisposition == .replace && !a.selected)
        #expect(a.columnTypes.map { "\($0.0):\($0.1)" } == ["size:double"])
        #expect(a.paginator == .jsonLink(nextURLPath: try JSONPath("next")))
        let b = try #require(manifest.resource("b"))
        #expect(b.writeDisposition == .merge)
        #expect(b.path == "/dlt-hub/dlt/b" && b.params.map(\.0) == ["q"])
        #expect(b.label() == "/dlt-hub/dlt/b?q=%7Bliteral%7D")
        #expect(manifest.acceptedWithoutEffect == ["resources[0].max_table_nesting", "resources[0].merge_key", "resources[1].write_disposition.strategy"])
        // Reading a labelled page back finds the resource with the escaped braces.
        #expect(ManifestSource(manifest).documentKind(ofPath: "/dlt-hub/dlt/b?q=%7Bliteral%7D") == DocumentKind("catalog.b"))
    }

    @Test func dltsKeysAreNamedWhereTheyWereWritten() {
        let base = #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"#
        #expect(Self.refusal(base + #""resource_defaults":{"endpoint":{"paginator":{"type":"pages"}}},"resources":["a"]}"#)
            == #"resource_defaults.endpoint.paginator.type: "pages" is not one of single_page, page_number, offset, json_link, header_link, cursor, header_cursor, auto (in resources[0], from resource_defaults)"#)
        #expect(Self.refusal(base + #""resources":[{"name":"a","write_disposition":"upsert"}]}"#)
            == #"resources[0].write_disposition: "upsert" is not one of append, replace, merge"#)
        #expect(Self.refusal(base + #""resources":[{"name":"a","columns":{"x":{"data_type":"varchar"}}}]}"#)?
            .hasPrefix(#"resources[0].columns.x.data_type: "varchar" is not one of dlt's data types: bigint, binary, bool"#) == true)
        #expect(Self.refusal(base + #""resources":[{"name":"a","processing_steps":[]}]}"#)
            == "resources[0].processing_steps: is dlt's (Python callables), which a JSON manifest cannot hold: Fetchlog does not support it")
        // dlt refuses an older-style resolve param its path does not bind.
        #expect(Self.refusal(base + #""resources":["posts",{"name":"d","endpoint":{"path":"posts","params":{"post_id":{"type":"resolve","resource":"posts","field":"id"}}}}]}"#)
            == #"resources[1].endpoint.params.post_id: a resolve param must be bound in the path (/posts has no {post_id}); in a query param write "{resources.posts.id}""#)
        #expect(Self.refusal(base + #""resources":[{"name":"a","endpoint":{"response_actions":[{"action":"ignore"}]}}]}"#)
            == "resources[0].endpoint.response_actions[0]: give status_code, content or both: what the action is for")
    }

    @Test func dispositionsDecideWhatTheViewHolds() async throws {
        let manifest = try ManifestTests.manifest(
            #"{"name":"merged","primary_key":"id","endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}},"#
                + #"{"name":"appended","primary_key":"id","write_disposition":"append","endpoint":{"path":"pages","params":{"w":"append"},"data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}},"#
                + #"{"name":"replaced","primary_key":"id","write_disposition":"replace","endpoint":{"path":"pages","params":{"w":"replace"},"data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}}"#)
        let rig = try await ManifestTests().start(manifest)
        for name in ["merged", "appended", "replaced"] { _ = try await rig.store.fetchManifestResource(source: "catalog", resource: name) }
        let all = Array(1 ... 12)
        #expect(try ManifestTests().ids(rig, "merged") == all)
        // Item 5 ends page 1 and starts page 2: append keeps both.
        #expect(try ManifestTests().ids(rig, "appended") == Array(1 ... 5) + Array(5 ... 12))
        #expect(try ManifestTests().ids(rig, "replaced") == all)
        // A later run of one page replaces what replace held; merge keeps what it had.
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "replaced", maxPages: 1)
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "merged", maxPages: 1)
        #expect(try ManifestTests().ids(rig, "replaced") == Array(1 ... 5))
        #expect(try ManifestTests().ids(rig, "merged") == all)
        await ManifestTests().stop(rig)
    }

    @Test func aBodyAResponseActionIgnoresEndsTheList() async throws {
        let manifest = try ManifestTests.manifest(
            #"{"name":"quiet","primary_key":"id","endpoint":{"path":"quiet","data_selector":"data","#
                + #""response_actions":[{"content":"no data","action":"ignore"}],"paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}}"#)
        let rig = try await ManifestTests().start(manifest)
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: "quiet")
        #expect(reports.map(\.outcome) == [.fetched, .fetched])
        #expect(reports.flatMap(\.notices).isEmpty)
        #expect(await rig.upstream.asked == ["/catalog/quiet?page=1", "/catalog/quiet?page=2"])
        #expect(try ManifestTests().ids(rig, "quiet") == [1, 2])
        await ManifestTests().stop(rig)
    }

    @Test func parallelizedChildListsHoldWhatOneAtATimeHolds() async throws {
        let parent = #"{"name":"items","primary_key":"id","endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}},"#
        let child = #"{"name":"reviews","primary_key":"id","include_from_parent":["name"],"endpoint":{"path":"items/{resources.items.id}/reviews","data_selector":"data","paginator":"single_page"}"#
        var results: [String] = []
        var asked: [[String]] = []
        for parallel in [false, true] {
            let manifest = try ManifestTests.manifest(parent + child + (parallel ? #","parallelized":true}"# : "}"))
            #expect(manifest.resource("reviews")?.parallelized == parallel)
            let rig = try await ManifestTests().start(manifest)
            let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: "reviews")
            #expect(reports.count == 15)
            // Reports come back in parent order, whatever order the lists ended in.
            #expect(reports.suffix(12).map(\.resource.path) == (1 ... 12).map { "/items/\($0)/reviews" })
            results.append(try ViewCatalog.export("items/catalog/reviews", state: rig.store.snapshot.state)["items"]?.canonicalText() ?? "")
            asked.append(await rig.upstream.asked.sorted())
            await ManifestTests().stop(rig)
        }
        #expect(results[0] == results[1])
        #expect(results[0].contains(#""_items_name":"item 11","id":"11-2""#))
        #expect(asked[0] == asked[1] && asked[0].count == 15)
    }
}
