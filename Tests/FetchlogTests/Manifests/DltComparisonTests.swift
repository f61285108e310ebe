import FetchlogCore
import FetchlogSources
import Foundation
import Testing

/// The same manifest (`docs/manifests/catalog.json`) read by dlt 1.31's own `rest_api_source`
/// (Python, `Tools/dlt/rest-api-items.py`) and by Fetchlog, from the same sample upstream:
/// the same primary keys and the same item values for every resource — every paginator
/// style, the repeated item across a page boundary, the child resource with its parent's
/// field, the 404 that ends a list. dlt repeats an item a page repeats (it deduplicates only
/// when a merge load writes); Fetchlog keeps one per key, the newest body's values.
///
/// CI installs dlt; where it is missing the test says so and skips (dlt is the oracle, not
/// a dependency).
@Suite struct DltComparisonTests {
    static let resources = ["items", "reviews", "linked", "cursored", "offsets", "headed", "ended"]

    @Test func dltAndFetchlogReadTheSameItemsFromTheSameManifest() async throws {
        let probe = try await runProcess("/usr/bin/env", ["python3", "-c", "import dlt; print(dlt.__version__)"])
        guard probe.status == 0 else {
            print("DltComparisonTests: skipped: Python's dlt is not installed (pip install 'dlt[duckdb]==1.31.*'): \(probe.stderr.split(separator: "\n").last ?? "")")
            return
        }
        #expect(probe.stdout.hasPrefix("1.31."), "dlt \(probe.stdout)")
        let rig = try await ManifestTests().start(try ChildResourceTests.catalog())
        let dlt = try await runProcess("/usr/bin/env", ["python3", Repo.root + "/Tools/dlt/rest-api-items.py", ChildResourceTests.catalogManifest,
                                                      rig.upstream.base + "/catalog"] + Self.resources,
                                       environment: ["RUNTIME__LOG_LEVEL": "WARNING", "DLT_DATA_DIR": rig.directory.path + "/dlt"])
        #expect(dlt.status == 0, "\(dlt.stderr)")
        let read = try JSONValue.parse(bytes: Array(dlt.stdout.utf8))
        let dltRequests = await rig.upstream.asked.count

        for name in Self.resources {
            _ = try await rig.store.fetchManifestResource(source: "catalog", resource: name)
            let ours = try #require(ItemsView(state: rig.store.snapshot.state, source: "catalog", resource: name))
            let theirs = read[name]?.arrayValue ?? []
            // dlt's items by key, the last one seen (the newest body's values, as Fetchlog keeps).
            var byKey: [String: JSONValue] = [:]
            for item in theirs { byKey[item["id"]?.canonicalText() ?? "?"] = item }
            let ourKeys = ours.items.map { $0["id"]?.canonicalText() ?? "?" }
            #expect(Set(ourKeys) == Set(byKey.keys), "\(name): keys")
            #expect(ourKeys.count == Set(ourKeys).count, "\(name): one item per key")
            for item in ours.items {
                #expect(byKey[item["id"]?.canonicalText() ?? "?"]?.canonicalText() == item.canonicalText(), "\(name): \(item.canonicalText())")
            }
            // Every member in dlt's order too (include_from_parent members last, as dict.update puts them).
            #expect(ours.items.map { $0.memberNames } == ourKeys.map { byKey[$0]?.memberNames ?? [] }, "\(name): member order")
        }
        // The expected totals, from the catalog's own definition.
        let counts = Dictionary(uniqueKeysWithValues: Self.resources.map { ($0, (read[$0]?.arrayValue ?? []).count) })
        #expect(counts == ["items": 13, "reviews": 14, "linked": 13, "cursored": 13, "offsets": 12, "headed": 13, "ended": 13])
        #expect(dltRequests > 0)
        await ManifestTests().stop(rig)
    }

    /// Issue 24, item 4: an endpoint's headers over the client's (`versioned` answers only
    /// version 2) and `oauth2_client_credentials` (`guarded` answers only with the token), the
    /// secrets from the environment for both. Each asks the token endpoint exactly once. An
    /// `api_key` in a cookie is not compared: dlt 1.31 raises NotImplementedError for it.
    @Test func dltAndFetchlogAgreeOnEndpointHeadersAndOAuth2() async throws {
        let probe = try await runProcess("/usr/bin/env", ["python3", "-c", "import dlt; print(dlt.__version__)"])
        guard probe.status == 0 else {
            print("DltComparisonTests: skipped: Python's dlt is not installed (pip install 'dlt[duckdb]==1.31.*')")
            return
        }
        let text = #"""
        {"name":"catalog","client":{"base_url":"https://catalog.example","headers":{"X-Api-Version":"1","X-Client":"fetchlog-tests"}},
         "resources":[
          {"name":"versioned","primary_key":"id","endpoint":{"path":"versioned","paginator":"single_page","headers":{"X-Api-Version":"2"}}},
          {"name":"guarded","primary_key":"id","endpoint":{"path":"guarded","data_selector":"data","paginator":"single_page",
            "auth":{"type":"oauth2_client_credentials","access_token_url":"https://catalog.example/oauth/token",
                    "client_id":"env:CATALOG_CLIENT_ID","client_secret":"env:CATALOG_CLIENT_SECRET","access_token_request_data":{"lifetime":60}}}}]}
        """#
        let rig = try await ManifestAuthTests().start(try ManifestAuthTests.manifest(text), environment: ManifestAuthTests.client)
        try FileManager.default.createDirectory(atPath: rig.directory.path + "/dlt", withIntermediateDirectories: true)
        let file = rig.directory.path + "/dlt/auth.json"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let dlt = try await runProcess("/usr/bin/env", ["python3", Repo.root + "/Tools/dlt/rest-api-items.py", file, rig.upstream.base + "/catalog", "versioned", "guarded"],
                                       environment: ManifestAuthTests.client.merging(["RUNTIME__LOG_LEVEL": "WARNING", "DLT_DATA_DIR": rig.directory.path + "/dlt"]) { $1 })
        #expect(dlt.status == 0, "\(dlt.stderr)")
        let read = try JSONValue.parse(bytes: Array(dlt.stdout.utf8))
        let dltAsked = await ManifestAuthTests().requests(rig)
        #expect(dltAsked == ["GET /catalog/versioned 200", "POST /catalog/oauth/token 200", "GET /catalog/guarded 200"])
        for name in ["versioned", "guarded"] {
            _ = try await rig.store.fetchManifestResource(source: "catalog", resource: name)
            let ours = try #require(ItemsView(state: rig.store.snapshot.state, source: "catalog", resource: name))
            #expect(ours.items.map { $0.canonicalText() } == (read[name]?.arrayValue ?? []).map { $0.canonicalText() }, "\(name)")
        }
        #expect((read["versioned"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue } == [1, 2, 3])
        #expect((read["guarded"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue } == [7, 8, 9])
        // Fetchlog's own requests after dlt's: the same three (its first GETs are not conditional).
        #expect(await ManifestAuthTests().requests(rig) == dltAsked + dltAsked)
        await ManifestTests().stop(rig)
    }

    /// dlt's method and body (`docs/manifests/catalog-search.json`): a POST search paged by
    /// a cursor written into its JSON body and ended by `has_more`, a form POST, a cursor in
    /// a response header, a `Link` relation other than `next`.
    static let searchResources = ["search", "formed", "header_cursored", "related"]

    @Test func dltAndFetchlogReadTheSamePostedAndHeaderPagedItems() async throws {
        let probe = try await runProcess("/usr/bin/env", ["python3", "-c", "import dlt; print(dlt.__version__)"])
        guard probe.status == 0 else {
            print("DltComparisonTests: skipped: Python's dlt is not installed (pip install 'dlt[duckdb]==1.31.*')")
            return
        }
        let path = Repo.root + "/docs/manifests/catalog-search.json"
        let manifest = try RestManifest(json: try JSONValue.parse(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path)))))
        let rig = try await ManifestTests().start(manifest)
        let dlt = try await runProcess("/usr/bin/env", ["python3", Repo.root + "/Tools/dlt/rest-api-items.py", path, rig.upstream.base + "/catalog"]
                                       + Self.searchResources,
                                       environment: ["RUNTIME__LOG_LEVEL": "WARNING", "DLT_DATA_DIR": rig.directory.path + "/dlt"])
        #expect(dlt.status == 0, "\(dlt.stderr)")
        let read = try JSONValue.parse(bytes: Array(dlt.stdout.utf8))
        // dlt asked as Fetchlog will: three POSTs, one form POST, three and three GETs.
        let dltRequests = await rig.upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }.map { "\($0.method) \($0.status)" }
        #expect(dltRequests == Array(repeating: "POST 200", count: 4) + Array(repeating: "GET 200", count: 6))
        for name in Self.searchResources {
            _ = try await rig.store.fetchManifestResource(source: "catalog", resource: name)
            let ours = try #require(ItemsView(state: rig.store.snapshot.state, source: "catalog", resource: name))
            var theirs: [JSONValue] = []
            var seen = Set<String>()
            for item in read[name]?.arrayValue ?? [] where seen.insert(item["id"]?.canonicalText() ?? "?").inserted { theirs.append(item) }
            // Keys, values and member order, in dlt's order (first seen; the catalog's repeated item is the same body).
            #expect(ours.items.map { $0.canonicalText() } == theirs.map { $0.canonicalText() }, "\(name)")
            #expect(ours.items.map(\.memberNames) == theirs.map(\.memberNames), "\(name): member order")
        }
        let counts = Dictionary(uniqueKeysWithValues: Self.searchResources.map { ($0, (read[$0]?.arrayValue ?? []).count) })
        #expect(counts == ["search": 12, "formed": 4, "header_cursored": 13, "related": 13])
        // Fetchlog asked the same requests dlt did.
        let all = await rig.upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }.map { "\($0.method) \($0.path)" }
        #expect(Array(all.prefix(10)) == Array(all.dropFirst(10)))
        await ManifestTests().stop(rig)
    }

    /// Issue 24, item 3: dlt's incremental on its first run (no pipeline state) asks from
    /// `initial_value` and keeps what lies past it, as Fetchlog's first fetch does — the same
    /// requests, items and order, for `endpoint.incremental` and the `{type: incremental}` param.
    @Test func dltAndFetchlogAgreeOnAFirstIncrementalRun() async throws {
        let probe = try await runProcess("/usr/bin/env", ["python3", "-c", "import dlt; print(dlt.__version__)"])
        guard probe.status == 0 else {
            print("DltComparisonTests: skipped: Python's dlt is not installed (pip install 'dlt[duckdb]==1.31.*')")
            return
        }
        let rig = try await ManifestTests().start(try RestManifest(json: try JSONValue.parse(IncrementalTests.manifest)))
        try FileManager.default.createDirectory(atPath: rig.directory.path + "/dlt", withIntermediateDirectories: true)
        let file = rig.directory.path + "/dlt/incremental.json"
        try IncrementalTests.manifest.write(toFile: file, atomically: true, encoding: .utf8)
        let dlt = try await runProcess("/usr/bin/env", ["python3", Repo.root + "/Tools/dlt/rest-api-items.py", file, rig.upstream.base + "/catalog", "changes", "recent"],
                                       environment: ["RUNTIME__LOG_LEVEL": "WARNING", "DLT_DATA_DIR": rig.directory.path + "/dlt"])
        #expect(dlt.status == 0, "\(dlt.stderr)")
        let read = try JSONValue.parse(bytes: Array(dlt.stdout.utf8))
        let dltAsked = await rig.upstream.asked
        #expect(dltAsked == (1 ... 3).map { "/catalog/changes?\(IncrementalTests.since(1))&page=\($0)" }
                    + ["/catalog/changes?v=2&\(IncrementalTests.since(10))&page=1"], "\(dltAsked)")
        for name in ["changes", "recent"] {
            _ = try await rig.store.fetchManifestResource(source: "catalog", resource: name)
            let ours = try #require(ItemsView(state: rig.store.snapshot.state, source: "catalog", resource: name))
            #expect(ours.items.map { $0.canonicalText() } == (read[name]?.arrayValue ?? []).map { $0.canonicalText() }, "\(name)")
        }
        #expect((read["recent"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue } == [10, 11, 12])
        #expect(await rig.upstream.asked == dltAsked + dltAsked)
        await ManifestTests().stop(rig)
    }
}
