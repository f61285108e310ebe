import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// Issue 28, items 1 and 2: a manifest resource's items are those its own requests brought
/// (two resources on one path with other params do not share them), and `status` calls a
/// fetched manifest resource fresh until its TTL runs out.
@Suite struct ResourceIdentityTests {
    /// `two` and `five` ask the same path (`bulk`, one page) for pages of 2 and of 5 items.
    static let manifest = #"""
    {"name":"catalog","client":{"base_url":"https://catalog.example"},
     "resources":[
      {"name":"items","primary_key":"id","fetchlog":{"ttl":"15m"},
       "endpoint":{"path":"pages","data_selector":"data","paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}},
      {"name":"two","primary_key":"id","endpoint":{"path":"bulk","params":{"size":2,"pages":1},"data_selector":"data",
       "paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}},
      {"name":"five","primary_key":"id","fetchlog":{"ttl":"1h"},"endpoint":{"path":"bulk","params":{"size":5,"pages":1},"data_selector":"data",
       "paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}}]}
    """#

    /// Before the fix `two` held five's 5 items and `five` none (the path chose the first
    /// resource on it), and `status` called every resource stale at once (a manifest source
    /// had no rule, so it was "revalidate on every open").
    @Test func resourcesOnOnePathKeepTheirOwnItemsAndStayFreshForTheirTTL() async throws {
        // The manifest is held canonically (keys sorted), so its params ask `pages` before `size`.
        let rig = try await ManifestCLIRig.start("resource-identity", manifest: Self.manifest)
        let (upstream, store, file) = (rig.upstream, rig.store, rig.file)
        func env(_ now: String) -> [String: String] { ["FETCHLOG_NOW": now] }
        for resource in ["items", "two", "five"] {
            let fetch = try await rig.fetch([resource], environment: env("2026-11-22T08:00:00Z"))
            #expect(fetch.status == 0, "\(fetch.stderr)")
        }
        #expect(await upstream.asked == ["/catalog/pages?page=1", "/catalog/pages?page=2", "/catalog/pages?page=3",
                                         "/catalog/bulk?pages=1&size=2&page=1", "/catalog/bulk?pages=1&size=5&page=1"])

        #expect(try await rig.ids("two") == [1, 2])
        #expect(try await rig.ids("five") == [1, 2, 3, 4, 5])
        #expect(try await rig.ids("items") == Array(1 ... 12))
        // The past from the log alone agrees (the log holds requests, not resource names):
        // at seq 5 only two's page (seq 5) was held, five's came at seq 6.
        #expect(try await rig.ids("two", ["--at", "5"]) == [1, 2])
        #expect(try await rig.ids("five", ["--at", "5"]) == [])
        #expect(try await rig.ids("five", ["--at", "6"]) == [1, 2, 3, 4, 5])

        // `source try` with the same manifest reads the held pages the same way.
        let trial = try await runFetchlog(["--store", store, "source", "try", file, "--format", "json"])
        #expect(trial.status == 0, "\(trial.stderr)")
        let rows = try JSONValue.parse(bytes: Array(trial.stdout.utf8)).arrayValue ?? []
        #expect(rows.map { $0["resource"]?.stringValue ?? "" } == ["items", "two", "five"], "\(trial.stdout)")
        #expect(rows.map { $0["after"]?.intValue ?? -1 } == [12, 2, 5], "\(trial.stdout)")

        // Fresh for each resource's own TTL (items 15m, five 1h, two the source's shortest: 15m).
        func freshness(_ now: String) async throws -> [String: String] {
            let status = try await runFetchlog(["--store", store, "status", "--format", "json"], environment: env(now))
            #expect(status.status == 0, "\(status.stderr)")
            var levels: [String: String] = [:]
            for row in try JSONValue.parse(bytes: Array(status.stdout.utf8)).arrayValue ?? [] {
                levels[row["path"]?.stringValue ?? ""] = (row["freshness"]?.stringValue ?? "") + " " + (row["validUntil"]?.stringValue ?? "-")
            }
            return levels
        }
        let early = try await freshness("2026-11-22T08:10:00Z")
        #expect(early == [
            "/pages?page=1": "fresh 2026-11-22T08:15:00.000Z", "/pages?page=2": "fresh 2026-11-22T08:15:00.000Z",
            "/pages?page=3": "fresh 2026-11-22T08:15:00.000Z",
            "/bulk?pages=1&size=2&page=1": "fresh 2026-11-22T08:15:00.000Z",
            "/bulk?pages=1&size=5&page=1": "fresh 2026-11-22T09:00:00.000Z",
        ], "\(early)")
        let later = try await freshness("2026-11-22T08:20:00Z")
        #expect(later["/pages?page=1"] == "stale 2026-11-22T08:15:00.000Z")
        #expect(later["/bulk?pages=1&size=2&page=1"] == "stale 2026-11-22T08:15:00.000Z")
        #expect(later["/bulk?pages=1&size=5&page=1"] == "fresh 2026-11-22T09:00:00.000Z")
        await rig.stop()
    }

    /// A resource with a fixed param listed before one on the same path without it: a page
    /// asked without the param is the plain resource's. Before the fix the tie went to the
    /// first listed: `plain` held nothing and `flagged` held the 12 items it never asked for.
    @Test func aPageWithoutAResourcesFixedParamIsNotThatResources() async throws {
        let manifest = #"""
        {"name":"catalog","client":{"base_url":"https://catalog.example"},
         "resources":[
          {"name":"flagged","primary_key":"id","endpoint":{"path":"pages","params":{"v":2},"data_selector":"data",
           "paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}},
          {"name":"plain","primary_key":"id","endpoint":{"path":"pages","data_selector":"data",
           "paginator":{"type":"page_number","base_page":1,"total_path":"total_pages"}}}]}
        """#
        let rig = try await ManifestCLIRig.start("resource-identity-missing-param", manifest: manifest)
        let fetch = try await rig.fetch(["plain"])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(await rig.upstream.asked == ["/catalog/pages?page=1", "/catalog/pages?page=2", "/catalog/pages?page=3"])
        #expect(try await rig.ids("plain") == Array(1 ... 12))
        #expect(try await rig.ids("flagged") == [])
        await rig.stop()
    }
}
