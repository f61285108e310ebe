import FetchlogCore
import FetchlogSources
import Foundation
import Testing

/// Issue 34, item 2: `Link` headers as real servers send them (`LinkRoutes`), each list
/// read by `header_link` from the sample upstream and by dlt 1.31 from the same server.
/// Every list is pages 1–3 of the catalog (items 1–5, 5–10, 11–12): fully read, it holds
/// items 1–12; dlt's extract repeats item 5 (13 items).
@Suite struct LinkPagingTests {
    /// (resource, path under the catalog).
    static let scenarios = [
        ("comma", "links/comma"), ("lines", "links/lines"), ("absolute_path", "links/absolute-path"), ("relative", "links/relative"),
        ("dots", "links/dots"), ("query", "links/query"), ("unquoted", "links/unquoted"), ("rels", "links/rels"),
    ]

    static func resource(_ name: String, _ path: String, extra: String = "") -> String {
        #"{"name":"\#(name)","primary_key":"id","endpoint":{"path":"\#(path)","paginator":"header_link"\#(extra)}}"#
    }

    /// A manifest of `resources` on `base`, written where dlt reads it too.
    static func manifest(_ base: String, _ resources: [String], file: String) throws -> RestManifest {
        let text = #"{"name":"catalog","client":{"base_url":"\#(base)"},"resources":[\#(resources.joined(separator: ","))]}"#
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return try RestManifest(json: try JSONValue.parse(bytes: Array(text.utf8)))
    }

    /// dlt's items of `names` from the manifest in `file`, asked at `base`; nil when dlt is
    /// not installed (the test says so and skips).
    static func dlt(_ file: String, base: String, _ names: [String], directory: String, environment: [String: String] = [:]) async throws -> JSONValue? {
        let probe = try await runProcess("/usr/bin/env", ["python3", "-c", "import dlt; print(dlt.__version__)"])
        guard probe.status == 0 else {
            print("LinkPagingTests: skipped: Python's dlt is not installed (pip install 'dlt[duckdb]==1.31.*')")
            return nil
        }
        let run = try await runProcess("/usr/bin/env", ["python3", Repo.root + "/Tools/dlt/rest-api-items.py", file, base] + names,
                                       environment: environment.merging(["RUNTIME__LOG_LEVEL": "WARNING", "DLT_DATA_DIR": directory + "/dlt"]) { $1 })
        #expect(run.status == 0, "\(run.stderr)")
        return try JSONValue.parse(bytes: Array(run.stdout.utf8))
    }

    static let everyPage = [1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12]

    @Test func everyLinkFormReadsEveryPageAsDltDoes() async throws {
        let upstream = try await CatalogUpstream.start()
        let directory = TemporaryDirectory("link-paging")
        try FileManager.default.createDirectory(atPath: directory.path + "/dlt", withIntermediateDirectories: true)
        let file = directory.path + "/dlt/links.json"
        let manifest = try Self.manifest("https://catalog.example", Self.scenarios.map { Self.resource($0.0, $0.1) }, file: file)
        guard let read = try await Self.dlt(file, base: upstream.base + "/catalog", Self.scenarios.map(\.0), directory: directory.path) else {
            await upstream.stop()
            return
        }
        let log = try EventLog.open(at: directory.sub("store"))
        let sources = SourceRegistry(SeedSources.plugins + [ManifestSource(manifest)], views: SeedSources.views)
        let fetcher = Fetcher(sources: sources, configuration: FetchHarness.patientConfiguration(base: upstream.base))
        let store = try Store(log: log, sources: sources, fetcher: fetcher)
        for (name, path) in Self.scenarios {
            let before = await upstream.asked.count
            let reports = try await store.fetchManifestResource(source: "catalog", resource: name)
            #expect(reports.flatMap(\.notices).isEmpty, "\(name): \(reports.flatMap(\.notices))")
            // Three pages, each asked once, at the URL the link names.
            let asked = await Array(upstream.asked.dropFirst(before))
            #expect(asked.map { String($0.split(separator: "&")[0]) } == ["/catalog/\(path)", "/catalog/\(path)?page=2", "/catalog/\(path)?page=3"], "\(name): \(asked)")
            let ours = try #require(ItemsView(state: store.snapshot.state, source: "catalog", resource: name)).items
            #expect(ours.compactMap { $0["id"]?.intValue } == Array(1 ... 12), "\(name)")
            let theirs = (read[name]?.arrayValue ?? []).compactMap { $0["id"]?.intValue }
            if name == "rels" {
                // dlt (requests' `links`) keys a link by its whole `rel` text ("Next prefetch"),
                // so it finds no `next` and stops after page 1.
                #expect(theirs == [1, 2, 3, 4, 5], "dlt: \(theirs)")
            } else {
                #expect(theirs == Self.everyPage, "\(name): dlt read \(theirs)")
                // The same items, value for value (dlt's last of each id).
                var byID: [Int: String] = [:]
                for item in read[name]?.arrayValue ?? [] { byID[item["id"]?.intValue ?? 0] = item.canonicalText() }
                #expect(ours.map { byID[$0["id"]?.intValue ?? 0] } == ours.map { $0.canonicalText() }, "\(name)")
            }
        }
        // The comma scenario's links kept their `fields=id,name`.
        #expect(await upstream.asked.contains("/catalog/links/comma?page=2&fields=id,name"))
        // Replayed from the log, the state holds the same pages (the second `Link` line was
        // recorded, and a new fetch pages from what is held as it did).
        let replayed = try Store(log: log, sources: sources, fetcher: fetcher)
        #expect(try #require(ItemsView(state: replayed.snapshot.state, source: "catalog", resource: "lines")).items.count == 12)
        let lines = replayed.snapshot.state.status[ResourceKey(source: "catalog", path: "/links/lines")]
        #expect(lines?.linkNext == upstream.base + "/catalog/links/lines?page=2")
        await fetcher.shutdown()
        log.close()
        await upstream.stop()
    }

    /// A next link to another origin (the same server as `localhost`): dlt follows it, with
    /// the resource's key; Fetchlog stops there and says so, the key sent to its origin only.
    @Test func aNextLinkToAnotherOriginStopsAndSaysSo() async throws {
        let upstream = try await CatalogUpstream.start()
        let directory = TemporaryDirectory("link-away")
        try FileManager.default.createDirectory(atPath: directory.path + "/dlt", withIntermediateDirectories: true)
        let file = directory.path + "/dlt/away.json"
        let auth = #","auth":{"type":"api_key","name":"X-Token","api_key":"env:LINK_TOKEN"}"#
        let manifest = try Self.manifest("https://catalog.example", [Self.resource("away", "links/away", extra: auth)], file: file)
        guard let read = try await Self.dlt(file, base: upstream.base + "/catalog", ["away"], directory: directory.path,
                                            environment: ["LINK_TOKEN": "t0ken"]) else {
            await upstream.stop()
            return
        }
        #expect((read["away"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue } == Self.everyPage)
        let dltAsked = await upstream.asked
        #expect(dltAsked == ["/catalog/links/away", "/catalog/links/away?page=2", "/catalog/links/away?page=3"])
        let log = try EventLog.open(at: directory.sub("store"))
        let sources = SourceRegistry(SeedSources.plugins + [ManifestSource(manifest)], views: SeedSources.views)
        var configuration = FetchHarness.patientConfiguration(base: upstream.base)
        configuration.environment = ["LINK_TOKEN": "t0ken"]
        let fetcher = Fetcher(sources: sources, configuration: configuration)
        let store = try Store(log: log, sources: sources, fetcher: fetcher)
        let reports = try await store.fetchManifestResource(source: "catalog", resource: "away")
        #expect(await upstream.asked == dltAsked + ["/catalog/links/away"])
        let host = upstream.base.dropFirst("http://127.0.0.1".count)
        #expect(reports.flatMap(\.notices) == [FetchNotice(.linkNotFollowed, "the next link http://localhost\(host)/catalog/links/away?page=2 "
            + "is outside catalog's base https://catalog.example: not followed, so paging stopped "
            + "(Fetchlog sends a source's requests, and its credentials, to its base's origin only)")])
        #expect(try #require(ItemsView(state: store.snapshot.state, source: "catalog", resource: "away")).items.compactMap { $0["id"]?.intValue } == [1, 2, 3, 4, 5])
        await fetcher.shutdown()
        log.close()
        await upstream.stop()
    }

    /// GitHub's issues: a base under `/repos/OWNER/REPO`, the next pages under
    /// `/repositories/ID` — another path of the same origin, followed as dlt follows it.
    /// Asked at the server itself (no `--upstream`, which maps the base's path away).
    @Test func aNextLinkToAnotherPathOfTheOriginIsFollowed() async throws {
        let upstream = try await CatalogUpstream.start()
        let directory = TemporaryDirectory("link-github")
        try FileManager.default.createDirectory(atPath: directory.path + "/dlt", withIntermediateDirectories: true)
        let file = directory.path + "/dlt/github.json"
        let base = upstream.base + "/catalog/repos/acme/widgets"
        let manifest = try Self.manifest(base, [Self.resource("issues", "issues")], file: file)
        guard let read = try await Self.dlt(file, base: base, ["issues"], directory: directory.path) else {
            await upstream.stop()
            return
        }
        #expect((read["issues"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue } == Self.everyPage)
        let dltAsked = await upstream.asked
        #expect(dltAsked == ["/catalog/repos/acme/widgets/issues", "/catalog/repositories/42/issues?page=2", "/catalog/repositories/42/issues?page=3"])
        let log = try EventLog.open(at: directory.sub("store"))
        let sources = SourceRegistry(SeedSources.plugins + [ManifestSource(manifest)], views: SeedSources.views)
        var configuration = FetchHarness.patientConfiguration(base: upstream.base)
        configuration.upstream = .real
        configuration.allowPrivateHosts = true
        let fetcher = Fetcher(sources: sources, configuration: configuration)
        let store = try Store(log: log, sources: sources, fetcher: fetcher)
        let reports = try await store.fetchManifestResource(source: "catalog", resource: "issues")
        #expect(reports.flatMap(\.notices).isEmpty, "\(reports.flatMap(\.notices))")
        #expect(await upstream.asked == dltAsked + dltAsked)
        // The pages outside the base are held under labels climbing out of it.
        #expect(reports.map(\.resource.path) == ["/issues", "/../../../repositories/42/issues?page=2#issues", "/../../../repositories/42/issues?page=3#issues"])
        #expect(try #require(ItemsView(state: store.snapshot.state, source: "catalog", resource: "issues")).items.compactMap { $0["id"]?.intValue } == Array(1 ... 12))
        await fetcher.shutdown()
        log.close()
        await upstream.stop()
    }
}
