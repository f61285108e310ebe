import FetchlogCore
import FetchlogSources
import Foundation
import Testing

/// Issue 15 (first part): REST APIs from manifests in the JSON form of dlt's `rest_api`
/// config — parsing with key-path errors, every paginator style against a real server on
/// loopback (requests and items counted exactly), and the generic `items` view.
@Suite struct ManifestTests {
    static func manifest(_ resources: String, client: String = "") throws -> RestManifest {
        let text = #"{"name":"catalog","client":{"base_url":"https://catalog.example/"\#(client)},"resources":[\#(resources)]}"#
        return try RestManifest(json: try JSONValue.parse(bytes: Array(text.utf8)))
    }

    struct Rig {
        let upstream: CatalogUpstream
        let log: EventLog
        let fetcher: Fetcher
        let store: Store
        let directory: TemporaryDirectory
    }

    func start(_ manifest: RestManifest) async throws -> Rig {
        let upstream = try await CatalogUpstream.start()
        let directory = TemporaryDirectory("manifest")
        let log = try EventLog.open(at: directory.path)
        let sources = SourceRegistry(SeedSources.plugins + [ManifestSource(manifest)], views: SeedSources.views)
        let fetcher = Fetcher(sources: sources, configuration: FetchHarness.patientConfiguration(base: upstream.base))
        let store = try Store(log: log, sources: sources, fetcher: fetcher)
        return Rig(upstream: upstream, log: log, fetcher: fetcher, store: store, directory: directory)
    }

    func stop(_ rig: Rig) async {
        await rig.fetcher.shutdown()
        rig.log.close()
        await rig.upstream.stop()
    }

    func ids(_ rig: Rig, _ resource: String) throws -> [Int] {
        let export = try ViewCatalog.export("items/catalog/\(resource)", state: rig.store.snapshot.state)
        return (export["items"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let resource: String
        let asked: [String]
        let ids: [Int]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "page_number with total_path",
             resource: #"{"name":"pages","primary_key":"id","endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}}"#,
             asked: ["/catalog/pages?page=1", "/catalog/pages?page=2", "/catalog/pages?page=3"], ids: Array(1 ... 12)),
        Case(name: "page_number stopping at maximum_page",
             resource: #"{"name":"pages","primary_key":"id","endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":null,"maximum_page":3}}}"#,
             asked: ["/catalog/pages?page=1", "/catalog/pages?page=2"], ids: Array(1 ... 10)),
        Case(name: "page_number stopping after an empty page",
             resource: #"{"name":"pages","primary_key":"id","endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":null}}}"#,
             asked: ["/catalog/pages?page=1", "/catalog/pages?page=2", "/catalog/pages?page=3", "/catalog/pages?page=4"], ids: Array(1 ... 12)),
        Case(name: "page_number ended by an ignored 404",
             resource: #"{"name":"ended","primary_key":"id","endpoint":{"path":"ended","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":null,"stop_after_empty_page":false,"maximum_page":10},"response_actions":[{"status_code":404,"action":"ignore"}]}}"#,
             asked: ["/catalog/ended?page=1", "/catalog/ended?page=2", "/catalog/ended?page=3", "/catalog/ended?page=4"], ids: Array(1 ... 12)),
        Case(name: "offset with total_path",
             resource: #"{"name":"offset","primary_key":"id","endpoint":{"path":"offset","data_selector":"items","paginator":{"type":"offset","limit":5}}}"#,
             asked: ["/catalog/offset?offset=0&limit=5", "/catalog/offset?offset=5&limit=5", "/catalog/offset?offset=10&limit=5"], ids: Array(1 ... 12)),
        Case(name: "json_link with absolute URLs",
             resource: #"{"name":"linked","primary_key":"id","endpoint":{"path":"linked","data_selector":"results","paginator":{"type":"json_link","next_url_path":"paging.next"}}}"#,
             asked: ["/catalog/linked", "/catalog/linked?page=2", "/catalog/linked?page=3"], ids: Array(1 ... 12)),
        Case(name: "header_link",
             resource: #"{"name":"headers","primary_key":"id","endpoint":{"path":"headers","paginator":"header_link"}}"#,
             asked: ["/catalog/headers", "/catalog/headers?page=2", "/catalog/headers?page=3"], ids: Array(1 ... 12)),
        Case(name: "cursor",
             resource: #"{"name":"cursor","primary_key":"id","endpoint":{"path":"cursor","data_selector":"data","paginator":{"type":"cursor"}}}"#,
             asked: ["/catalog/cursor", "/catalog/cursor?cursor=c2", "/catalog/cursor?cursor=c3"], ids: Array(1 ... 12)),
        Case(name: "single_page",
             resource: #"{"name":"single","primary_key":"id","endpoint":{"path":"single","paginator":"single_page"}}"#,
             asked: ["/catalog/single"], ids: [1, 2, 3]),
        Case(name: "auto, following the Link header",
             resource: #"{"name":"headers","primary_key":"id","endpoint":"headers"}"#,
             asked: ["/catalog/headers", "/catalog/headers?page=2", "/catalog/headers?page=3"], ids: Array(1 ... 12)),
    ]

    @Test(arguments: cases)
    func everyPaginatorCountsRequestsAndItemsExactly(_ c: Case) async throws {
        let manifest = try Self.manifest(c.resource)
        let rig = try await start(manifest)
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: manifest.resources[0].name)
        #expect(await rig.upstream.asked == c.asked)
        #expect(reports.count == c.asked.count)
        #expect(try ids(rig, manifest.resources[0].name) == c.ids)
        await stop(rig)
    }

    @Test func theRepeatedItemKeepsItsFirstPlaceAndTheNewestValues() async throws {
        let manifest = try Self.manifest(Self.cases[0].resource)
        let rig = try await start(manifest)
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "pages")
        let export = try ViewCatalog.export("items/catalog/pages", state: rig.store.snapshot.state)
        #expect(export["count"] == .number(12))
        #expect(export["source"] == .string("catalog") && export["resource"] == .string("pages"))
        let items = export["items"]?.arrayValue ?? []
        #expect(items.dropFirst(4).first == (try JSONValue.parse(bytes: Array(CatalogUpstream.item(5).utf8))))
        // Replay rebuilds the same view from the log alone.
        let replayed = try Store.replay(rig.log, sources: rig.store.sources).state
        #expect(try ViewCatalog.export("items/catalog/pages", state: replayed) == export)
        await stop(rig)
    }

    @Test func aSecondFetchRevalidatesAndTheViewStays() async throws {
        let manifest = try Self.manifest(Self.cases[8].resource)
        let rig = try await start(manifest)
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "single")
        let before = try ids(rig, "single")
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "single")
        #expect(before == [1, 2, 3])
        #expect(try ids(rig, "single") == [1, 2, 3])
        #expect(await rig.upstream.asked == ["/catalog/single", "/catalog/single"])
        await stop(rig)
    }

    static let errors: [(manifest: String, error: String)] = [
        (#"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":[{"name":"a","endpoint":{"paginator":{"type":"pages"}}}]}"#,
         "resources[0].endpoint.paginator.type: \"pages\" is not one of single_page, page_number, offset, json_link, header_link, cursor, header_cursor, auto"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":[{"name":"a","endpoint":{"pth":"a"}}]}"#,
         "resources[0].endpoint.pth: unknown key (did you mean 'path'?); allowed: path, params, data_selector, paginator, response_actions, incremental, headers, auth, method, json, data"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example","auth":{"type":"bearer","token":"t"}},"resources":["a"]}"#,
         "client.auth.token: write \"env:NAME\" and set NAME in the environment: a literal secret would be stored in the log with the manifest"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example","auth":{"type":"oauth2"}},"resources":["a"]}"#,
         "client.auth.type: \"oauth2\" is not one of bearer, api_key, http_basic, oauth2_client_credentials"),
        (#"{"name":"catalog","client":{},"resources":["a"]}"#, "client.base_url: is required"),
        (#"{"name":"catalog","client":{"base_url":"ftp://x"},"resources":["a"]}"#, "client.base_url: \"ftp://x\" is not an http(s) URL"),
        (#"{"name":"Catalog!","client":{"base_url":"https://x.example"},"resources":["a"]}"#,
         "name: \"Catalog!\" is not a source name: lowercase letters, digits, - and _, starting with a letter, at most 40"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":["a","a"]}"#, "resources[1].name: \"a\" names two resources"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":[{"name":"a","endpoint":{"paginator":{"type":"offset"}}}]}"#,
         "resources[0].endpoint.paginator.limit: is required"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":[{"name":"c","endpoint":{"path":"p/{resources.a.id}/c"}}]}"#,
         "resources[0].endpoint.path: the parent \"a\" is not a resource of this manifest (did you mean 'c'?): c"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":[{"name":"c","endpoint":{"path":"p/{id}/c"}}]}"#,
         "resources[0].endpoint.path: {id} is not a placeholder Fetchlog knows: write {resources.PARENT.FIELD}"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":[{"name":"c","include_from_parent":["id"]}]}"#,
         "resources[0].include_from_parent: only a child resource (a {resources.PARENT.FIELD} placeholder in its path or params) has a parent to include from"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":[{"name":"a","endpoint":"a/{resources.b.id}"},{"name":"b","endpoint":"b/{resources.a.id}"}]}"#,
         "resources[0].endpoint.path: a's parents lead back to a: a child cannot be its own ancestor"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":["a",{"name":"c","endpoint":{"path":"c/{resources.a.id}","params":{"q":"{resources.b.id}"}}},"b"]}"#,
         "resources[1].endpoint.params.q: {resources.b.id} names the parent b, but this resource already takes a: one parent per resource"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":[{"name":"a","endpoint":{"params":{"id":{"type":"incremental"}}}}]}"#,
         "resources[0].endpoint.params.id.cursor_path: is required"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":[{"name":"a","endpoint":{"params":{"id":{"type":"lookup"}}}}]}"#,
         "resources[0].endpoint.params.id.type: \"lookup\" is not supported: only resolve or incremental (or write {resources.PARENT.FIELD})"),
        (#"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":[{"name":"a","fetchlog":{"links":{"friends":{"to":"x","by":"name"}}}}]}"#,
         "resources[0].fetchlog.links.friends.to: \"x\" is not a resource of this manifest"),
    ]

    @Test func badManifestsAreRefusedNamingTheKeyPath() throws {
        for (text, expected) in Self.errors {
            do {
                _ = try RestManifest(json: try JSONValue.parse(bytes: Array(text.utf8)))
                Issue.record("accepted: \(text)")
            } catch let error as ManifestError {
                #expect(error.description == expected)
            }
        }
    }

    @Test func resourceDefaultsMergeIntoEveryResourceAsDltDoes() throws {
        let text = #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resource_defaults":{"primary_key":"id","endpoint":{"params":{"per_page":50},"paginator":"single_page"}},"resources":["a",{"name":"b","endpoint":{"path":"bees","params":{"sort":"name"}}}]}"#
        let manifest = try RestManifest(json: try JSONValue.parse(bytes: Array(text.utf8)))
        #expect(manifest.resources.map(\.path) == ["/a", "/bees"])
        #expect(manifest.resources.map(\.primaryKey) == [["id"], ["id"]])
        #expect(manifest.resources[1].label() == "/bees?per_page=50&sort=name")
        #expect(manifest.resources.allSatisfy { $0.paginator == .singlePage })
    }

    @Test func linkHeadersAreReadAsRFC8288Says() {
        #expect(LinkHeader.next(#"<https://a.example/x?page=2>; rel="next", <https://a.example/x?page=9>; rel="last""#) == "https://a.example/x?page=2")
        #expect(LinkHeader.next(#"<https://a.example/x?page=9>; rel="last""#) == nil)
        #expect(LinkHeader.next(#"<https://a.example/p>; rel="prev next""#) == "https://a.example/p")
    }
}

/// The `fetchlog` block of a manifest resource: search fields, facets, time to live.
@Suite struct ManifestExtensionTests {
    @Test func facetsSearchAndTimeToLive() async throws {
        let text = #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":[{"name":"pages","primary_key":"id","#
            + #""endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}},"#
            + #""fetchlog":{"search":["name"],"facets":["size","name"],"ttl":"15m"}}]}"#
        let manifest = try RestManifest(json: try JSONValue.parse(bytes: Array(text.utf8)))
        #expect(manifest.resources[0].searchFields == ["name"])
        #expect(ManifestSource(manifest).freshness == .timeToLive(.seconds(900), renewOnOpen: false))
        let rig = try await ManifestTests().start(manifest)
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "pages")
        let facets = try ViewCatalog.export("facets/catalog/pages", state: rig.store.snapshot.state)
        let list = facets["facets"]?.arrayValue ?? []
        #expect(list.first == .object([("field", .string("size")), ("min", .number(10)), ("max", .number(120))]))
        let names = list.dropFirst().first?["values"]?.arrayValue ?? []
        #expect(names.count == 12)
        #expect(names.first == .object([("value", .string("item 1")), ("count", .number(1))]))
        await ManifestTests().stop(rig)
    }

    @Test func badExtensionsAreRefused() throws {
        for (block, expected) in [
            (#"{"ttl":"soon"}"#, #"resources[0].fetchlog.ttl: "soon" is not a duration: a number and s, m, h or d (15m)"#),
            (#"{"durable_items":0}"#, "resources[0].fetchlog.durable_items: must be at least 1"),
            (#"{"keep_no_store":"yes"}"#, "resources[0].fetchlog.keep_no_store: expected true or false"),
            (#"{"links":{"friends":{"to":"a"}}}"#, "resources[0].fetchlog.links.friends.by: is required"),
            (#"{"facet":["a"]}"#, "resources[0].fetchlog.facet: unknown key (did you mean 'facets'?); allowed: search, facets, ttl, links, images, durable_items, keep_no_store, writes"),
        ] {
            let text = #"{"name":"catalog","client":{"base_url":"https://x.example"},"resources":[{"name":"a","fetchlog":\#(block)}]}"#
            do {
                _ = try RestManifest(json: try JSONValue.parse(bytes: Array(text.utf8)))
                Issue.record("accepted \(block)")
            } catch let error as ManifestError {
                #expect(error.description == expected)
            }
        }
    }

    /// `fetchlog.keep_no_store`: off unless written, on a resource or in `resource_defaults`
    /// (a resource's own word wins), and a wrong value named where it was written.
    @Test func keepNoStoreIsReadFromTheResourceOrItsDefaults() throws {
        func read(_ defaults: String, _ resources: String) throws -> [RestResource] {
            let text = #"{"name":"catalog","client":{"base_url":"https://x.example"},"resource_defaults":\#(defaults),"resources":\#(resources)}"#
            return try RestManifest(json: try JSONValue.parse(bytes: Array(text.utf8))).resources
        }
        #expect(try read("{}", #"["a",{"name":"b","fetchlog":{"keep_no_store":true}}]"#).map(\.keepNoStore) == [false, true])
        #expect(try read(#"{"fetchlog":{"keep_no_store":true}}"#, #"["a",{"name":"b","fetchlog":{"keep_no_store":false}}]"#).map(\.keepNoStore)
            == [true, false])
        do {
            _ = try read(#"{"fetchlog":{"keep_no_store":1}}"#, #"["a"]"#)
            Issue.record("accepted keep_no_store: 1")
        } catch let error as ManifestError {
            #expect(error.description == "resource_defaults.fetchlog.keep_no_store: expected true or false (in resources[0], from resource_defaults)")
        }
    }

    /// `fetchlog.writes.idempotency_key` (issue 44): `"ignored"` unless written, on a
    /// resource or in `resource_defaults` (a resource's own word wins; a resource declaring no
    /// write takes none from it), and a wrong value named where it was written.
    @Test func idempotencyKeyIsReadFromTheWritesOrTheirDefaults() throws {
        func read(_ defaults: String, _ resources: String) throws -> [RestResource] {
            let text = #"{"name":"catalog","client":{"base_url":"https://x.example"},"resource_defaults":\#(defaults),"resources":\#(resources)}"#
            return try RestManifest(json: try JSONValue.parse(bytes: Array(text.utf8))).resources
        }
        let writes = #""primary_key":"id","fetchlog":{"writes":{"create":{"method":"POST","path":"n"}"#
        #expect(try read("{}", #"[{"name":"a",\#(writes)}}},{"name":"b",\#(writes),"idempotency_key":"honoured"}}}]"#)
            .map { $0.writes?.idempotencyKeyHonoured } == [false, true])
        #expect(try read(#"{"fetchlog":{"writes":{"idempotency_key":"honoured"}}}"#,
                         #"["plain",{"name":"a",\#(writes)}}},{"name":"b",\#(writes),"idempotency_key":"ignored"}}}]"#)
            .map { $0.writes?.idempotencyKeyHonoured } == [nil, true, false])
        for (defaults, resources, expected) in [
            (#"{"fetchlog":{"writes":{"idempotency_key":"yes"}}}"#, #"["a"]"#,
             #"resource_defaults.fetchlog.writes.idempotency_key: "yes" is not "honoured" or "ignored": whether the upstream applies a repeated Idempotency-Key once (in resources[0], from resource_defaults)"#),
            ("{}", #"[{"name":"a",\#(writes),"idempotency_key":true}}}]"#, "resources[0].fetchlog.writes.idempotency_key: expected a string"),
        ] {
            do {
                _ = try read(defaults, resources)
                Issue.record("accepted \(resources)")
            } catch let error as ManifestError {
                #expect(error.description == expected)
            }
        }
    }
}
