import FetchlogCore
import Foundation
import Testing

/// Issue 28, items 12–14: a list that stops before it says it ended says why — the page
/// ceiling (`--max-pages`), a page repeating the one before, a next link outside the source —
/// and a page's items that its view leaves out are counted, on stderr and in JSON. Before,
/// each of these stopped or dropped in silence (exit 0, nothing on stderr, no `notices`).
@Suite struct PagingBoundsTests {
    static let manifest = #"""
    {"name":"catalog","client":{"base_url":"https://catalog.example"},
     "resources":[
      {"name":"endless","primary_key":"id","endpoint":{"path":"endless","data_selector":"data",
       "paginator":{"type":"cursor","cursor_path":"next","cursor_param":"cursor"}}},
      {"name":"boundless","primary_key":"id","endpoint":{"path":"boundless","data_selector":"data",
       "paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}},
      {"name":"capped","primary_key":"id","endpoint":{"path":"boundless","params":{"cap":"yes"},"data_selector":"data",
       "paginator":{"type":"page_number","base_page":1,"total_path":"total_pages","maximum_page":4}}},
      {"name":"same","primary_key":"id","endpoint":{"path":"same","data_selector":"data",
       "paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}},
      {"name":"elsewhere","primary_key":"id","endpoint":{"path":"elsewhere","data_selector":"data",
       "paginator":{"type":"json_link","next_url_path":"next"}}},
      {"name":"keyless","primary_key":"id","endpoint":{"path":"keyless","paginator":"single_page"}}]}
    """#

    /// The notices of each record of a `--format json` fetch, in order (records without any: []).
    static func notices(_ result: CommandResult) throws -> [[String]] {
        try (JSONValue.parse(bytes: Array(result.stdout.utf8)).arrayValue ?? []).map { record in
            (record["notices"]?.arrayValue ?? []).map { ($0["kind"]?.stringValue ?? "") + ":" + ($0["count"].map(ItemsView.text) ?? "-") }
        }
    }

    @Test func aListThatNeverEndsStopsAtTheCeilingAndSaysSo() async throws {
        let rig = try await ManifestCLIRig.start("paging-ceiling", manifest: Self.manifest)
        let endless = try await rig.fetch(["endless", "--max-pages", "5"])
        #expect(endless.status == 0, "\(endless.stderr)")
        #expect(await rig.upstream.asked == ["/catalog/endless"] + (2 ... 5).map { "/catalog/endless?cursor=c\($0)" })
        #expect(endless.stderr == "fetchlog: warning: catalog/endless?cursor=c5: stopped at --max-pages 5 with the list not ended "
            + "(next: /endless?cursor=c6); --max-pages N (or the paginator's maximum_page) moves the ceiling\n", "\(endless.stderr)")
        #expect(endless.stdout.hasPrefix("  seq 2  GET "), "\(endless.stdout)")
        #expect(endless.stdout.hasSuffix("5 requests (200×5); 5 events appended (seq 2…6); 285 B of bodies\n"), "\(endless.stdout)")

        // In JSON the notice rides on the last page's record.
        let boundless = try await rig.fetch(["boundless", "--max-pages", "3", "--format", "json"])
        #expect(boundless.status == 0, "\(boundless.stderr)")
        #expect(try Self.notices(boundless) == [[], [], ["pageCeiling:-"]], "\(boundless.stdout)")
        #expect(boundless.stderr.contains("stopped at --max-pages 3 with the list not ended (next: /boundless?page=4)"), "\(boundless.stderr)")

        // What was asked for is no news: --pages N, or the paginator's own maximum_page.
        let asked = try await rig.fetch(["endless", "--pages", "2"])
        #expect(asked.status == 0 && asked.stderr == "", "\(asked.stderr)")
        let capped = try await rig.fetch(["capped", "--format", "json"])
        #expect(capped.status == 0 && capped.stderr == "", "\(capped.stderr)")
        #expect(try Self.notices(capped) == [[], [], []])
        #expect(await rig.upstream.asked.suffix(5) == ["/catalog/endless", "/catalog/endless?cursor=c2",
                                                         "/catalog/boundless?cap=yes&page=1", "/catalog/boundless?cap=yes&page=2",
                                                         "/catalog/boundless?cap=yes&page=3"])
        let bad = try await rig.fetch(["endless", "--max-pages", "0"])
        #expect(bad.status == 64 && bad.stderr.contains("--max-pages takes a whole number from 1 to 1000000"), "\(bad.stderr)")
        await rig.stop()
    }

    @Test func aRepeatedPageAndALinkElsewhereEndPagingAndSaySo() async throws {
        let rig = try await ManifestCLIRig.start("paging-repeat", manifest: Self.manifest)
        let same = try await rig.fetch(["same", "--format", "json"])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(await rig.upstream.asked == ["/catalog/same?page=1", "/catalog/same?page=2"])
        #expect(try Self.notices(same) == [[], ["repeatedPage:-"]])
        #expect(same.stderr == "fetchlog: warning: catalog/same?page=2: /same?page=2 repeats the page before it, body for body: "
            + "paging stopped there (the API may not take the paginator's parameter)\n", "\(same.stderr)")

        let elsewhere = try await rig.fetch(["elsewhere"])
        #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
        #expect(await rig.upstream.asked.last == "/catalog/elsewhere")
        #expect(await rig.upstream.asked.count == 3)
        #expect(elsewhere.stderr == "fetchlog: warning: catalog/elsewhere: the next link https://elsewhere.example/catalog/elsewhere?page=2 "
            + "is outside catalog's base https://catalog.example: not followed, so paging stopped "
            + "(Fetchlog sends a source's requests, and its credentials, to its base's origin only)\n", "\(elsewhere.stderr)")
        await rig.stop()
    }

    @Test func itemsTheViewLeavesOutAreCountedAndARepeatedNameKeepsItsLastValue() async throws {
        let rig = try await ManifestCLIRig.start("paging-keyless", manifest: Self.manifest)
        let fetch = try await rig.fetch(["keyless", "--format", "json"])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(try Self.notices(fetch) == [["itemsLeftOut:4"]], "\(fetch.stdout)")
        #expect(fetch.stderr == "fetchlog: warning: catalog/keyless: 4 of the page's 6 items left out of items/catalog/keyless: "
            + "2 without a value for the primary key (id) and 2 that are not an object\n", "\(fetch.stderr)")
        let export = try await runFetchlog(["--store", rig.store, "export", "items/catalog/keyless"])
        let items = try JSONValue.parse(bytes: Array(export.stdout.utf8))["items"]
        // `{"id":3,"name":"first","name":"last"}`: one name, its last value (Python's json, so dlt).
        #expect(items?.canonicalText() == #"[{"id":1,"name":"one"},{"id":3,"name":"last"}]"#, "\(export.stdout)")
        await rig.stop()
    }
}
