import Foundation
import Testing
import FetchlogCore

/// Issue 36: `--pages` is one grammar (`PageSelection`: N, A-B, all) with one meaning in every
/// place — page N, pages A to B, every page — for a manifest's source as for a seed source,
/// on the command line, in the shell and through `POST /api/fetch`'s words. (Before, a
/// manifest read `--pages N` as "the first N pages" and a seed source as "page N".)
@Suite struct PagesOptionTests {
    static let manifest = """
        {"name": "catalog", "client": {"base_url": "https://catalog.example"}, "resource_defaults": {"primary_key": "id"},
         "resources": [{"name": "items", "endpoint": {"path": "pages", "data_selector": "data",
                        "paginator": {"type": "page_number", "base_page": 1, "total_path": "total_pages"}}}]}
        """

    @Test func pagesNIsPageNOnTheCommandLineAndInTheShell() async throws {
        let rig = try await ManifestCLIRig.start("pages-option", manifest: Self.manifest)
        // The command line: page 2 alone (items 5…10).
        let two = try await rig.fetch(["items", "--pages", "2"])
        #expect(two.status == 0, "\(two.stderr)")
        #expect(await rig.upstream.asked == ["/catalog/pages?page=2"])
        #expect(try await rig.ids("items") == [5, 6, 7, 8, 9, 10])
        // The shell (`fetchlog query`, the shell's own `fetch`): page 3 alone.
        let shell = try await runFetchlog(["--store", rig.store, "--upstream", rig.upstream.base, "--retries", "0", "query", "fetch catalog items --pages 3"])
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(await rig.upstream.asked == ["/catalog/pages?page=2", "/catalog/pages?page=3"])
        // A range, as a seed source takes it: pages 1 to 2.
        #expect(try await rig.fetch(["items", "--pages", "1-2"]).status == 0)
        #expect(await rig.upstream.asked.suffix(2) == ["/catalog/pages?page=1", "/catalog/pages?page=2"])
        // A manifest counts its pages from 1: page 0 is refused, with what to give.
        let zero = try await rig.fetch(["items", "--pages", "0-2"])
        #expect(zero.status == 64)
        #expect(zero.stderr.contains("--pages counts catalog's pages from 1, not 0: give 1-2"), "\(zero.stderr)")
        // The one grammar's own refusal, for every source.
        let bad = try await rig.fetch(["items", "--pages", "two"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--pages takes N, A-B or all, not 'two'"), "\(bad.stderr)")
        #expect(await rig.upstream.asked.count == 4)
        // `POST /api/fetch` with {"pages": "3"}: page 3 alone, as everywhere.
        let server = try await ServeProcess(store: rig.store, arguments: ["--upstream", rig.upstream.base, "--retries", "0"], readsActionToken: true)
        let fetched = try await server.get("/api/fetch", method: .POST,
                                           headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(server.actionToken)"), ("Origin", server.base)],
                                           body: #"{"source":"catalog","resource":"items","pages":"3"}"#)
        #expect(fetched.status == 200, "\(fetched.body)")
        #expect(await rig.upstream.asked.suffix(1) == ["/catalog/pages?page=3"])
        #expect(await rig.upstream.asked.count == 5)
        try await server.stop()
        await rig.upstream.stop()
    }
}
