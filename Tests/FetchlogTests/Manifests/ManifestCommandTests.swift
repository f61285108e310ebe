import FetchlogCore
import Foundation
import Testing

/// Issue 15: a source from a manifest on the command line — `source add` appends it to the
/// log, `fetch SOURCE RESOURCE` pages through it, `export items/SOURCE/RESOURCE` reads it,
/// and a new definition changes the reading without fetching again.
@Suite struct ManifestCommandTests {
    static let manifest = #"""
    {"name":"catalog","client":{"base_url":"https://catalog.example"},
     "resources":[{"name":"pages","primary_key":"id",
                   "endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}}]}
    """#

    func write(_ text: String, _ dir: TemporaryDirectory, _ name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let file = dir.sub(name)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func addFetchExportRedefineAndReplay() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("manifest-cli")
        let store = dir.sub("store")
        let file = try write(Self.manifest, dir, "catalog.json")
        let add = try await runFetchlog(["--store", store, "source", "add", file])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout == "defined source catalog (1 resource: pages) at seq 1\n")

        let fetch = try await runFetchlog(["--store", store, "--upstream", upstream.base, "--retries", "0", "fetch", "catalog", "pages"])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(await upstream.asked == ["/catalog/pages?page=1", "/catalog/pages?page=2", "/catalog/pages?page=3"])
        let export = try await runFetchlog(["--store", store, "export", "items/catalog/pages"])
        #expect(export.status == 0, "\(export.stderr)")
        let json = try JSONValue.parse(bytes: Array(export.stdout.utf8))
        #expect(json["count"] == .number(12))
        #expect((json["items"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue } == Array(1 ... 12))

        // Change the reading: no primary key now, so the repeated item 5 is kept twice.
        let second = try write(Self.manifest.replacingOccurrences(of: #""primary_key":"id","#, with: ""), dir, "catalog-2.json")
        let redefine = try await runFetchlog(["--store", store, "source", "add", second])
        #expect(redefine.stdout == "redefined source catalog (1 resource: pages) at seq 5\n", "\(redefine.stderr)")
        let after = try JSONValue.parse(bytes: Array(try await runFetchlog(["--store", store, "export", "items/catalog/pages"]).stdout.utf8))
        #expect(after["count"] == .number(13))
        #expect(await upstream.asked.count == 3) // nothing fetched again
        // The first definition still answers for the past.
        let past = try JSONValue.parse(bytes: Array(try await runFetchlog(["--store", store, "export", "items/catalog/pages", "--at", "4"]).stdout.utf8))
        #expect(past["count"] == .number(12))

        // items and item: search, exact conditions, pages; one item by its key.
        let search = try await runFetchlog(["--store", store, "items", "catalog", "pages", "item 1", "--format", "json"])
        #expect(search.stdout == #"[{"id":1,"name":"item 1","size":10},{"id":10,"name":"item 10","size":100},{"id":11,"name":"item 11","size":110},{"id":12,"name":"item 12","size":120}]"# + "\n",
                "\(search.stdout)\(search.stderr)")
        let table = try await runFetchlog(["--store", store, "items", "catalog", "pages", "--where", "size=50", "--limit", "5"])
        #expect(table.stdout.contains("5   item 5  50\n"), "\(table.stdout)")
        #expect(table.stdout.contains("page 1 of 1 · 2 of 13 items"), "\(table.stdout)") // item 5 twice: no primary key now
        let one = try await runFetchlog(["--store", store, "items", "catalog", "pages", "--page", "3", "--limit", "6", "--format", "ndjson"])
        #expect(one.stdout == #"{"id":12,"name":"item 12","size":120}"# + "\n", "\(one.stdout)")
        let missing = try await runFetchlog(["--store", store, "items", "catalog", "pagez"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("catalog has no resource 'pagez' (did you mean 'pages'?): use pages"), "\(missing.stderr)")

        let verify = try await runFetchlog(["--store", store, "replay", "--verify"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let list = try await runFetchlog(["--store", store, "source", "list", "--format", "json"])
        #expect(list.stdout == #"[{"base":"https://catalog.example","resources":["pages"],"seq":5,"source":"catalog"}]"# + "\n", "\(list.stdout)")
        await upstream.stop()
    }

    @Test func aBadManifestIsRefusedWithItsKeyPathAndNothingIsWritten() async throws {
        let dir = TemporaryDirectory("manifest-bad")
        let store = dir.sub("store")
        let file = try write(Self.manifest.replacingOccurrences(of: "page_number", with: "pages"), dir, "bad.json")
        let add = try await runFetchlog(["--store", store, "source", "add", file])
        #expect(add.status == 1)
        #expect(add.stderr.contains("bad.json: resources[0].endpoint.paginator.type: \"pages\" is not one of single_page, page_number, offset, json_link, header_link, cursor, header_cursor, auto"), "\(add.stderr)")
        let taken = try write(Self.manifest.replacingOccurrences(of: #""name":"catalog""#, with: #""name":"tvmaze""#), dir, "taken.json")
        let clash = try await runFetchlog(["--store", store, "source", "add", taken])
        #expect(clash.status == 1)
        #expect(clash.stderr.contains("taken.json: name: \"tvmaze\" is taken by a source of this engine; choose another name"), "\(clash.stderr)")
        let list = try await runFetchlog(["--store", store, "source", "list", "--format", "json"])
        #expect(list.stdout == "[]\n")
        let unknown = try await runFetchlog(["--store", store, "fetch", "catalog", "pages"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("unknown source 'catalog'"), "\(unknown.stderr)")
    }
}

/// `source try`: an edited manifest applied to the held bodies, nothing fetched or written.
@Suite struct ManifestTrialTests {
    static let manifest = #"""
    {"name":"catalog","client":{"base_url":"https://catalog.example"},
     "resources":[{"name":"versions","primary_key":"id","endpoint":{"path":"versions","data_selector":"data","paginator":"single_page"}}]}
    """#

    @Test func aChangedDataSelectorListsExactlyTheChangedItemsAndSendsNoRequest() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("manifest-try")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let store = dir.sub("store")
        let first = dir.sub("v1.json"), second = dir.sub("v2.json")
        try Self.manifest.write(toFile: first, atomically: true, encoding: .utf8)
        try Self.manifest.replacingOccurrences(of: #""data_selector":"data""#, with: #""data_selector":"detailed""#)
            .write(toFile: second, atomically: true, encoding: .utf8)
        #expect(try await runFetchlog(["--store", store, "source", "add", first]).status == 0)
        let fetch = try await runFetchlog(["--store", store, "--upstream", upstream.base, "fetch", "catalog", "versions"])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(await upstream.asked == ["/catalog/versions"])

        let item = try await runFetchlog(["--store", store, "item", "catalog", "versions", "2", "--format", "json"])
        #expect(item.stdout == #"{"id":2,"name":"b"}"# + "\n", "\(item.stdout)\(item.stderr)")
        let none = try await runFetchlog(["--store", store, "item", "catalog", "versions", "9"])
        #expect(none.status == 1 && none.stderr.contains("no versions item with id 9 is held"), "\(none.stderr)")

        let trial = try await runFetchlog(["--store", store, "source", "try", second, "--format", "json"])
        #expect(trial.status == 0, "\(trial.stderr)")
        #expect(trial.stdout == #"[{"added":["[4]"],"after":3,"before":3,"changed":[{"fields":["name","size"],"key":"[2]"}],"removed":["[3]"],"resource":"versions"}]"# + "\n",
                "\(trial.stdout)")
        let table = try await runFetchlog(["--store", store, "source", "try", second])
        #expect(table.stdout.contains("versions  3 → 3  1      1        1        [2]: name,size"), "\(table.stdout)")
        #expect(table.stdout.contains("nothing was fetched or written; source add \(second) to apply it"), "\(table.stdout)")
        // The same manifest again: nothing would change.
        let same = try await runFetchlog(["--store", store, "source", "try", first])
        #expect(same.stdout.contains("no item would change; nothing was fetched or written"), "\(same.stdout)")
        // No request, no event.
        #expect(await upstream.asked == ["/catalog/versions"])
        let log = try EventLog.open(at: store)
        #expect(try log.lastSeq() == 2)
        log.close()
        await upstream.stop()
    }
}

/// Secrets in manifests are `env:NAME`: read at fetch time, sent, and never written — not
/// in an event, an export, a log line or the store's file.
@Suite struct ManifestSecretTests {
    static let manifest = #"""
    {"name":"catalog","client":{"base_url":"https://catalog.example","headers":{"X-Token":"env:CATALOG_TOKEN"},
                                "auth":{"type":"api_key","name":"key","api_key":"env:CATALOG_KEY","location":"query"}},
     "resources":[{"name":"private","primary_key":"id","endpoint":{"path":"private","paginator":"single_page"}}]}
    """#

    @Test func aSecretFromTheEnvironmentIsSentAndWrittenNowhere() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("manifest-secret")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let store = dir.sub("store")
        let file = dir.sub("private.json")
        try Self.manifest.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await runFetchlog(["--store", store, "source", "add", file]).status == 0)

        // Without the environment: refused before any request, naming the variable.
        let missing = try await runFetchlog(["--store", store, "--upstream", upstream.base, "--retries", "0", "fetch", "catalog", "private"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("client.headers.X-Token reads the environment variable CATALOG_TOKEN, which is not set: set it and fetch again"),
                "\(missing.stderr)")
        #expect(await upstream.asked.isEmpty)
        // Nothing was sent, so nothing is recorded and no request is counted (issue 28, item 16).
        #expect(missing.stdout == "0 requests; 0 events appended; 0 B of bodies\n", "\(missing.stdout)")
        let unsent = try EventLog.open(at: store)
        #expect(try unsent.lastSeq() == 1) // the source.defined event only
        unsent.close()

        let secrets = ["CATALOG_TOKEN": "t0ken-s3cret", "CATALOG_KEY": "k3y-s3cret"]
        let fetch = try await runFetchlog(["--store", store, "--upstream", upstream.base, "-v", "fetch", "catalog", "private"], environment: secrets)
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(await upstream.asked == ["/catalog/private?key=k3y-s3cret"])
        let export = try await runFetchlog(["--store", store, "export", "items/catalog/private"])
        #expect(export.stdout.contains(#""count":2"#), "\(export.stdout)")
        let logExport = try await runFetchlog(["--store", store, "log", "export"])
        #expect(logExport.stdout.contains(#""url":"http://127.0.0.1:"#) && logExport.stdout.contains("/catalog/private?key=***"), "\(logExport.stdout)")
        #expect(logExport.stdout.contains(#"{"name":"X-Token","value":"***"}"#), "\(logExport.stdout)")
        let data = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
        for secret in secrets.values {
            for text in [fetch.stdout, fetch.stderr, export.stdout, logExport.stdout, missing.stderr] { #expect(!text.contains(secret)) }
            #expect(data.range(of: Data(secret.utf8)) == nil, "\(secret) is in data.mdb")
        }
        await upstream.stop()
    }
}
