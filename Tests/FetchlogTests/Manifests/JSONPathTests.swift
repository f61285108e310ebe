@testable import FetchlogCore
import Foundation
import Testing

/// Issue 24, item 1: one JSONPath reader, as dlt (jsonpath-ng) reads paths, for every path
/// a manifest takes.
@Suite struct JSONPathTests {
    static let document = try! JSONValue.parse(#"""
    {"data":{"items":[{"id":1,"tags":["a"]},{"id":2,"tags":["b","c"]}]},
     "paging":{"next":"https://x/2","@odata.nextLink":"https://x/odata"},
     "@odata.nextLink":"https://x/top","total":3,"a b":{"c":true}}
    """#)

    func select(_ path: String) throws -> String {
        try JSONValue.array(JSONPath(path).values(in: Self.document)).canonicalText()
    }

    @Test func everySpellingDltTakesSelectsWhatJsonpathNgSelects() throws {
        #expect(try select("$.paging.next") == #"["https://x/2"]"#)
        #expect(try select("paging.next") == #"["https://x/2"]"#)
        #expect(try select("$['paging']['next']") == #"["https://x/2"]"#)
        #expect(try select(#"$["paging"].next"#) == #"["https://x/2"]"#)
        #expect(try select("$['@odata.nextLink']") == #"["https://x/top"]"#)
        #expect(try select("$.paging['@odata.nextLink']") == #"["https://x/odata"]"#)
        #expect(try select("@odata.nextLink") == "[]") // unquoted, the dots split it
        #expect(try select("$.total") == "[3]")
        #expect(try select("total") == "[3]")
        #expect(try select("$['a b'].c") == "[true]")
        #expect(try select("$.data.items[*].id") == "[1,2]")
        #expect(try select("$.data.items.*.id") == "[1,2]")
        #expect(try select("$.data.items[1].tags[0]") == #"["b"]"#)
        #expect(try select("$.data.items[-1].id") == "[2]")
        #expect(try select("$.data.items[0:1].id") == "[1]")
        #expect(try select("$..id") == "[1,2]")
        #expect(try select("$..tags[*]") == #"["a","b","c"]"#)
        #expect(try select("$.missing.next") == "[]")
        #expect(try select("$['total','missing','a b']") == #"[3,{"c":true}]"#)
        #expect(try select("$['missing','paging'].next") == #"["https://x/2"]"#)
        #expect(try JSONPath("$").isRoot)
        #expect(try JSONPath("$.a.b").memberNames == ["a", "b"])
        #expect(try JSONPath("$.a[0]").memberNames == nil)
    }

    @Test func aPathItCannotReadIsNamedWithWhere() {
        #expect(throws: JSONPathError(path: "$.a[", offset: 4, reason: "expected *, a quoted name, an index or a slice inside [ ]")) { try JSONPath("$.a[") }
        #expect(throws: JSONPathError(path: "$['a", offset: 4, reason: "the quoted name is not closed")) { try JSONPath("$['a") }
        #expect(throws: JSONPathError(path: "$.", offset: 2, reason: "expected a member name")) { try JSONPath("$.") }
        let manifest = #"{"name":"c","client":{"base_url":"https://c.example"},"resources":[{"name":"r","endpoint":{"path":"r","data_selector":"$.a[","paginator":{"type":"json_link","next_url_path":"$.b["}}}]}"#
        #expect(throws: ManifestError(path: "resources[0].endpoint.data_selector", message: "\"$.a[\" is not a JSONPath Fetchlog reads (at character 5: expected *, a quoted name, an index or a slice inside [ ])")) {
            try RestManifest(json: try JSONValue.parse(manifest))
        }
    }

    /// Before: `$.paging.next` and `$.total_pages` were split on dots with the `$` kept, so
    /// `json_link` stopped after page 1 and `total_path` asked an empty fourth page. Two
    /// resources on one path (`v=2` tells them apart, their next links do not) keep their own
    /// pages: the followed link's label names its resource in a fragment, which is not sent.
    @Test func paginatorPathsInDltsSpellingPageToTheEnd() async throws {
        let manifest = #"""
        {"name":"catalog","client":{"base_url":"https://catalog.example"},
         "resources":[
          {"name":"linked","primary_key":"id","endpoint":{"path":"linked","data_selector":"$.results",
           "paginator":{"type":"json_link","next_url_path":"$.paging.next"}}},
          {"name":"bracketed","primary_key":"id","endpoint":{"path":"linked","params":{"v":"2"},"data_selector":"$['results'][*]",
           "paginator":{"type":"json_link","next_url_path":"$['paging']['next']"}}},
          {"name":"pages","primary_key":"id","endpoint":{"path":"pages","data_selector":"data",
           "paginator":{"type":"page_number","base_page":1,"total_path":"$.total_pages"}}}]}
        """#
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("jsonpath-paging")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let store = dir.sub("store"), file = dir.sub("catalog.json")
        try manifest.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await runFetchlog(["--store", store, "source", "add", file]).status == 0)
        for resource in ["linked", "bracketed", "pages"] {
            let fetch = try await runFetchlog(["--store", store, "--upstream", upstream.base, "fetch", "catalog", resource])
            #expect(fetch.status == 0, "\(fetch.stderr)")
            let export = try await runFetchlog(["--store", store, "export", "items/catalog/" + resource])
            let ids = (try JSONValue.parse(bytes: Array(export.stdout.utf8))["items"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue }
            #expect(ids == Array(1 ... 12), "\(resource): \(export.stdout)")
        }
        #expect(await upstream.asked == ["/catalog/linked", "/catalog/linked?page=2", "/catalog/linked?page=3",
                                         "/catalog/linked?v=2", "/catalog/linked?page=2", "/catalog/linked?page=3",
                                         "/catalog/pages?page=1", "/catalog/pages?page=2", "/catalog/pages?page=3"])
        await upstream.stop()
    }
}
