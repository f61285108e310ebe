import FetchlogCore
import FetchlogSources
import Foundation
import Testing

/// Issue 34, items 3 and 4: dlt's newer range-paginator keys (`page_body_path`,
/// `offset_body_path`, `limit_body_path`, `has_more_path` for `page_number` and `offset`,
/// `stop_after_empty_page`) and `data_selector: "$"`, read by dlt 1.31 and by Fetchlog from
/// the same sample upstream: the same requests, the same items.
@Suite struct PaginatorKeysTests {
    static let paged: [(name: String, endpoint: String)] = [
        // The page number in a POST's JSON body, ended by `has_more` (no total).
        ("pages_in_body", #""path":"body-pages","method":"POST","data_selector":"data","paginator":{"type":"page_number","base_page":1,"page_body_path":"paging.page","total_path":null,"has_more_path":"has_more","stop_after_empty_page":false}"#),
        // The page number in the query, ended by `has_more` alone. (A fixed param tells its
        // requests from another resource's on the same path: a resource is known by its requests.)
        ("pages_has_more", #""path":"body-pages","params":{"view":"get"},"data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":null,"has_more_path":"has_more","stop_after_empty_page":false}"#),
        // Offset and limit in a POST's JSON body, ended by `more` (a string, as dlt's str2bool reads it).
        ("offsets_in_body", #""path":"body-offsets","method":"POST","data_selector":"items","paginator":{"type":"offset","limit":5,"offset_body_path":"range.offset","limit_body_path":"range.limit","total_path":null,"has_more_path":"more"}"#),
        // The offset in the body, the limit in the query.
        ("offsets_mixed", #""path":"body-offsets","method":"POST","data_selector":"items","paginator":{"type":"offset","limit":4,"offset_body_path":"range.offset","total_path":null,"has_more_path":"more","stop_after_empty_page":false}"#),
        // Offsets in the query, ended by `more`.
        ("offsets_has_more", #""path":"body-offsets","params":{"view":"get"},"data_selector":"items","paginator":{"type":"offset","limit":5,"total_path":null,"has_more_path":"more"}"#),
        // An empty second page ends the list (the default)…
        ("gappy_stops", #""path":"gappy","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}"#),
        // … or not, and the total ends it.
        ("gappy_goes_on", #""path":"gappy","params":{"view":"all"},"data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages","stop_after_empty_page":false}"#),
    ]

    /// `"$"`: the whole document, a list's items or an object as one item (even one that
    /// holds a list of objects), a bare value as one item.
    static let whole: [(name: String, endpoint: String)] = [
        ("whole_list", #""path":"single","data_selector":"$","paginator":"single_page""#),
        ("whole_object", #""path":"pages","data_selector":"$","paginator":"single_page""#),
        ("whole_entity", #""path":"entity","data_selector":"$","paginator":"single_page""#),
        ("whole_number", #""path":"bare","data_selector":"$","paginator":"single_page""#),
    ]

    @Test func dltAndFetchlogPageAndSelectAlike() async throws {
        let upstream = try await CatalogUpstream.start()
        let directory = TemporaryDirectory("paginator-keys")
        try FileManager.default.createDirectory(atPath: directory.path + "/dlt", withIntermediateDirectories: true)
        let file = directory.path + "/dlt/keys.json"
        let resources = Self.paged.map { #"{"name":"\#($0.name)","primary_key":"id","endpoint":{\#($0.endpoint)}}"# }
            + Self.whole.map { #"{"name":"\#($0.name)","endpoint":{\#($0.endpoint)}}"# }
        let manifest = try LinkPagingTests.manifest("https://catalog.example", resources, file: file)
        let names = (Self.paged + Self.whole).map(\.name)
        guard let read = try await LinkPagingTests.dlt(file, base: upstream.base + "/catalog", names, directory: directory.path) else {
            await upstream.stop()
            return
        }
        let dltAsked = await upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }.map { "\($0.method) \($0.path)" }
        #expect(dltAsked == ["POST /catalog/body-pages", "POST /catalog/body-pages", "POST /catalog/body-pages",
                             "GET /catalog/body-pages?view=get&page=1", "GET /catalog/body-pages?view=get&page=2", "GET /catalog/body-pages?view=get&page=3",
                             "POST /catalog/body-offsets", "POST /catalog/body-offsets", "POST /catalog/body-offsets",
                             "POST /catalog/body-offsets?limit=4", "POST /catalog/body-offsets?limit=4", "POST /catalog/body-offsets?limit=4",
                             "GET /catalog/body-offsets?view=get&offset=0&limit=5", "GET /catalog/body-offsets?view=get&offset=5&limit=5",
                             "GET /catalog/body-offsets?view=get&offset=10&limit=5",
                             "GET /catalog/gappy?page=1", "GET /catalog/gappy?page=2",
                             "GET /catalog/gappy?view=all&page=1", "GET /catalog/gappy?view=all&page=2", "GET /catalog/gappy?view=all&page=3",
                             "GET /catalog/single", "GET /catalog/pages", "GET /catalog/entity", "GET /catalog/bare"], "\(dltAsked)")
        let log = try EventLog.open(at: directory.sub("store"))
        let sources = SourceRegistry(SeedSources.plugins + [ManifestSource(manifest)], views: SeedSources.views)
        let fetcher = Fetcher(sources: sources, configuration: FetchHarness.patientConfiguration(base: upstream.base))
        let store = try Store(log: log, sources: sources, fetcher: fetcher)
        for name in names {
            let reports = try await store.fetchManifestResource(source: "catalog", resource: name)
            #expect(reports.allSatisfy { $0.outcome == .fetched }, "\(name): \(reports.map(\.outcome))")
            let ours = try #require(ItemsView(state: store.snapshot.state, source: "catalog", resource: name)).items
            // dlt's items, each id once (the first seen: the catalog's repeated item is one body).
            var seen = Set<String>()
            let theirs = (read[name]?.arrayValue ?? []).filter { $0["id"].map { seen.insert($0.canonicalText()).inserted } ?? true }
            #expect(ours.map { $0.canonicalText() } == theirs.map { $0.canonicalText() }, "\(name)")
        }
        // Fetchlog asked what dlt asked, in the same order.
        let all = await upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }.map { "\($0.method) \($0.path)" }
        #expect(Array(all.dropFirst(dltAsked.count)) == dltAsked)
        // The exact items, from the catalog's definition.
        func ids(_ name: String) -> [Int] { (read[name]?.arrayValue ?? []).compactMap { $0["id"]?.intValue } }
        #expect(ids("pages_in_body") == [1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12])
        #expect(ids("pages_has_more") == [1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12])
        #expect(ids("offsets_in_body") == Array(1 ... 12))
        #expect(ids("offsets_mixed") == Array(1 ... 12))
        #expect(ids("offsets_has_more") == Array(1 ... 12))
        #expect(ids("gappy_stops") == [1, 2, 3, 4, 5])
        #expect(ids("gappy_goes_on") == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(ids("whole_list") == [1, 2, 3])
        #expect(read["whole_object"]?.arrayValue?.map { $0.memberNames } == [["data", "total_pages"]])
        #expect(ids("whole_entity") == [7])
        #expect(read["whole_number"]?.arrayValue == [.number("42")])
        // A POST page's label holds the body it sent (the page number at its path).
        let labels = store.snapshot.state.documents.keys.map(\.path).filter { $0.contains("#pages_in_body") }.sorted()
        #expect(labels == (1 ... 3).map { #"/body-pages#pages_in_body POST {"paging":{"page":\#($0)}}"# })
        await fetcher.shutdown()
        log.close()
        await upstream.stop()
    }

    @Test func aRangePaginatorTakesAParamOrABodyPathNotBoth() throws {
        func paginator(_ json: String) throws -> RestPaginator? {
            try ManifestTests.manifest(#"{"name":"r","endpoint":{"path":"r","paginator":\#(json)}}"#).resources.first?.paginator
        }
        #expect(throws: ManifestError.self) { try paginator(#"{"type":"page_number","page_param":"p","page_body_path":"page.n"}"#) }
        #expect(throws: ManifestError.self) { try paginator(#"{"type":"offset","limit":5,"limit_param":"l","limit_body_path":"page.l"}"#) }
        #expect(throws: ManifestError.self) { try paginator(#"{"type":"offset","limit":5,"offset_body_path":"page..o"}"#) }
        guard case .offset(let range)? = try paginator(#"{"type":"offset","limit":5,"offset_body_path":"page.o","has_more_path":"more"}"#) else {
            Issue.record("not an offset paginator")
            return
        }
        #expect(range.target == .body(["page", "o"]))
        #expect(range.limit == .param("limit"))
        #expect(range.hasMorePath?.text == "more")
    }
}
