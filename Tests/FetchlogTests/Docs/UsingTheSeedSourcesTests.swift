import FetchlogCore
import FetchlogSources
import Foundation
import SampleUpstream
import Testing

/// The code of `Sources/FetchlogSources/FetchlogSources.docc/UsingTheSeedSources.md`,
/// compiled and run against the bundled sample upstream (same statements, same order).
@Suite struct UsingTheSeedSourcesTests {
    static let article = Repo.root + "/Sources/FetchlogSources/FetchlogSources.docc/UsingTheSeedSources.md"

    @Test func theArticleRunsAsWritten() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let upstreamURL = try await upstream.start()
        let temporary = TemporaryDirectory("seed-article")
        let directory = URL(filePath: temporary.path)

        // Open a store
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: upstreamURL)
        let store = try await SeedSources.openStore(at: directory, configuration: configuration)

        // Fetch
        let report = try await store.fetch(.brastlewarkCensus)
        #expect(report.outcome == .fetched)
        #expect(try await store.fetch(.brastlewarkCensus).outcome == .notModified)

        // Read a snapshot
        let gnomes = GnomesView(state: store.snapshot.state).gnomes
        #expect(gnomes.count == 1337)

        // Filter with an intent, and watch a view
        var pinkTinkers = GnomeFilter()
        pinkTinkers.hairColor = "Pink"
        pinkTinkers.profession = "Tinker"
        let filters = try store.observe(view: "filters")
        do {
            var changes = filters.makeAsyncIterator()
            let before = await changes.next()
            try await store.sendIntent(GnomeFilterIntent.set(filter: pinkTinkers))
            let after = await changes.next()
            print(before?["matchingCount"] ?? "none", after?["matchingCount"] ?? "none")
            #expect(before?["active"]?["hairColor"] == .null)
            #expect(after?["active"]?["hairColor"] == .string("Pink"))
            #expect(after?["matchingCount"] == .number(38))
        }

        // Export
        let json = try ViewCatalog.export("filters", state: store.snapshot.state).canonicalText()
        await store.close()
        #expect(json.contains(#""hairColor":"Pink""#) && json.contains(#""matchingCount":38,"view":"filters"}"#), "\(json)")

        await upstream.stop()
    }

    /// The article's set-up that the tests do their own way: a temporary directory for the
    /// reader's `seed.fetchlog`, the sample upstream's address for `fetchlog upstream serve
    /// --port 8080`'s (as `codeLines` reads them: up to a `//`).
    static let replaced = [#"let directory = URL(filePath: "seed.fetchlog")"#, #"let upstreamURL = URL(string: "http:"#]

    /// Every statement of the article's code is in the test above (comments, imports and the
    /// replaced set-up apart), so the article cannot drift from code that compiles and runs.
    @Test func theArticlesCodeIsTheTests() throws {
        let lines = Self.codeLines(of: try String(contentsOfFile: Self.article, encoding: .utf8))
        #expect(lines.count == 20)
        #expect(Self.replaced.allSatisfy(lines.contains))
        let test = try String(contentsOfFile: Repo.root + "/Tests/FetchlogTests/Docs/UsingTheSeedSourcesTests.swift", encoding: .utf8)
        let missing = lines.filter { !test.contains($0) && !Self.replaced.contains($0) }
        #expect(missing == [])
        // The check can fail: a statement the test does not hold.
        let foreign = "```swift\nlet store = try Store.open(at: " + "elsewhere)\n```"
        let unheld = Self.codeLines(of: foreign).filter { !test.contains($0) }
        #expect(unheld.count == 1)
    }

    /// The trimmed statements of the ```swift blocks of `markdown`, without comments and imports.
    static func codeLines(of markdown: String) -> [String] {
        var inCode = false
        var lines: [String] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode = line == "```swift"; continue }
            guard inCode else { continue }
            let code = (line.range(of: "//").map { line[..<$0.lowerBound] } ?? line).trimmingCharacters(in: .whitespaces)
            if !code.isEmpty && !code.hasPrefix("import ") { lines.append(code) }
        }
        return lines
    }
}
