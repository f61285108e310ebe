import Foundation
import Testing
@testable import FetchlogCore
@testable import fetchlog

/// `items` says which page it answered, or answers all (issue 34, item 8): `--format json`
/// printed one page of 20 and said nothing of the rest. Now json, ndjson and csv keep stdout
/// for rows and say on stderr which items they are when not every item found; `--all`
/// answers every one. On the sample upstream's catalog (12 items) and the census (1,337 gnomes).
@Suite struct ItemsPagingTests {
    struct Rig {
        let dir: TemporaryDirectory
        let store: String
        let upstream: CatalogUpstream

        static func start() async throws -> Rig {
            let upstream = try await CatalogUpstream.start()
            let dir = TemporaryDirectory("items-paging")
            let store = dir.sub("store")
            for (manifest, resource) in [("catalog", "items"), ("census", "gnomes")] {
                let add = try await runFetchlog(["--store", store, "source", "add", Repo.root + "/docs/manifests/\(manifest).json"])
                #expect(add.status == 0, "\(add.stderr)")
                let fetch = try await runFetchlog(["--store", store, "--upstream", upstream.base, "--retries", "0", "fetch", manifest, resource])
                #expect(fetch.status == 0, "\(fetch.stderr)")
            }
            return Rig(dir: dir, store: store, upstream: upstream)
        }

        func items(_ arguments: [String]) async throws -> CommandResult {
            try await runFetchlog(["--store", store, "items"] + arguments)
        }
    }

    static func ids(_ json: String) throws -> [Int] {
        try (JSONValue.parse(json).arrayValue ?? []).map { try #require($0["id"]?.intValue) }
    }

    @Test func machineFormatsSayWhichItemsTheyAreAndAllAnswersEvery() async throws {
        let rig = try await Rig.start()
        defer { Task { await rig.upstream.stop() } }

        // Every item: 12, in the view's order, nothing on stderr.
        let all = try await rig.items(["catalog", "items", "--all", "--format", "json"])
        #expect(all.status == 0 && all.stderr == "", "\(all.stderr)")
        let every = try Self.ids(all.stdout)
        #expect(every.sorted() == Array(1 ... 12))
        // 20 a page by default: the 12 are all of them, so no warning.
        let whole = try await rig.items(["catalog", "items", "--format", "json"])
        #expect(try Self.ids(whole.stdout) == every && whole.stderr == "")

        // Pages of 5: rows on stdout (valid JSON), which they are on stderr.
        let first = try await rig.items(["catalog", "items", "--limit", "5", "--format", "json"])
        #expect(first.status == 0)
        #expect(try Self.ids(first.stdout) == Array(every[0 ..< 5]))
        #expect(first.stderr == "fetchlog: warning: items 1–5 of 12; --all for every item, --page 2 for the next\n")
        let second = try await rig.items(["catalog", "items", "--limit", "5", "--page", "2", "--format", "json"])
        #expect(try Self.ids(second.stdout) == Array(every[5 ..< 10]))
        #expect(second.stderr == "fetchlog: warning: items 6–10 of 12; --all for every item, --page 3 for the next\n")
        let last = try await rig.items(["catalog", "items", "--limit", "5", "--page", "3", "--format", "json"])
        #expect(try Self.ids(last.stdout) == Array(every[10 ..< 12]))
        #expect(last.stderr == "fetchlog: warning: items 11–12 of 12; --all for every item\n")

        // ndjson and csv alike; a table's footer already says it, so nothing on stderr.
        let ndjson = try await rig.items(["catalog", "items", "--limit", "5", "--format", "ndjson"])
        #expect(ndjson.stdout.split(separator: "\n").count == 5)
        #expect(ndjson.stderr == first.stderr)
        let csv = try await rig.items(["catalog", "items", "--limit", "5", "--format", "csv"])
        #expect(csv.stdout.hasPrefix("id,name,size\r\n") && csv.stdout.split(separator: "\r\n").count == 1 + 5)
        #expect(csv.stderr == first.stderr)
        let table = try await rig.items(["catalog", "items", "--limit", "5"])
        #expect(table.stdout.hasSuffix("page 1 of 3 · 12 of 12 items\n") && table.stderr == "", "\(table.stdout)\(table.stderr)")

        // Counts are of the items found by the search, not of all held.
        let search = try await rig.items(["catalog", "items", "item 1", "--limit", "2", "--format", "json"])
        #expect(try Self.ids(search.stdout).count == 2)
        #expect(search.stderr == "fetchlog: warning: items 1–2 of 4; --all for every item, --page 2 for the next\n")
        let searchAll = try await rig.items(["catalog", "items", "item 1", "--all", "--format", "json"])
        #expect(try Self.ids(searchAll.stdout).sorted() == [1, 10, 11, 12] && searchAll.stderr == "")

        // The census: 1,337 gnomes, 20 a page.
        let gnomes = try await rig.items(["census", "gnomes", "--format", "json"])
        #expect(try Self.ids(gnomes.stdout) == Array(0 ..< 20))
        #expect(gnomes.stderr == "fetchlog: warning: items 1–20 of 1337; --all for every item, --page 2 for the next\n")
        let allGnomes = try await rig.items(["census", "gnomes", "--all", "--format", "ndjson"])
        #expect(allGnomes.stdout.split(separator: "\n").count == 1337 && allGnomes.stderr == "")
        let lastGnomes = try await rig.items(["census", "gnomes", "--page", "67", "--format", "csv"])
        #expect(lastGnomes.stdout.split(separator: "\r\n").count == 1 + 17)
        #expect(lastGnomes.stderr == "fetchlog: warning: items 1321–1337 of 1337; --all for every item\n")

        // --all with a page or a limit is refused, not half obeyed.
        for extra in [["--page", "2"], ["--limit", "5"]] {
            let both = try await rig.items(["catalog", "items", "--all", "--format", "json"] + extra)
            #expect(both.status == 64)
            #expect(both.stdout == "" && both.stderr.contains("--all answers every item: give it without --limit and --page"), "\(both.stderr)")
        }
    }

    /// In the shell (here `query`, which runs one shell line) the same warning is a note on
    /// stderr; stdout holds the rows alone.
    @Test func theShellSaysItToo() async throws {
        let rig = try await Rig.start()
        defer { Task { await rig.upstream.stop() } }
        let line = try await runFetchlog(["--store", rig.store, "query", "items catalog items --limit 5 --format json"])
        #expect(line.status == 0)
        #expect(try Self.ids(line.stdout).count == 5)
        #expect(line.stderr == "warning: items 1–5 of 12; --all for every item, --page 2 for the next\n", "\(line.stderr)")
        let every = try await runFetchlog(["--store", rig.store, "query", "items catalog items --all --format json"])
        #expect(try Self.ids(every.stdout).count == 12 && every.stderr == "", "\(every.stderr)")
    }

    @Test func theWarningNamesTheRangeAndTheNextPage() {
        #expect(ItemsCommand.partWarning(found: 63, shown: 20, page: 1, limit: 20) == "items 1–20 of 63; --all for every item, --page 2 for the next")
        #expect(ItemsCommand.partWarning(found: 63, shown: 3, page: 4, limit: 20) == "items 61–63 of 63; --all for every item")
        #expect(ItemsCommand.partWarning(found: 63, shown: 63, page: 1, limit: nil) == nil)
        #expect(ItemsCommand.partWarning(found: 12, shown: 12, page: 1, limit: 20) == nil)
    }
}
