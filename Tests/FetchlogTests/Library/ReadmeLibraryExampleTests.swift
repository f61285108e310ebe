import FetchlogCore
import Foundation
import Testing

/// The README's library example is `ReadmeLibraryExample.swift`, byte for byte: this target
/// compiles it, and the example runs against the sample upstream's catalog routes.
@Suite struct ReadmeLibraryExampleTests {
    static let examplePath = "Tests/FetchlogTests/Library/ReadmeLibraryExample.swift"

    /// The ```swift block after `marker` in the README.
    static func readmeBlock(after marker: String) throws -> String {
        let readme = try String(contentsOfFile: Repo.root + "/README.md", encoding: .utf8)
        let anchor = try #require(readme.range(of: marker), "no \(marker) in the README")
        let start = try #require(readme.range(of: "```swift\n", range: anchor.upperBound ..< readme.endIndex))
        let end = try #require(readme.range(of: "\n```\n", range: start.upperBound ..< readme.endIndex))
        return String(readme[start.upperBound ..< end.lowerBound]) + "\n"
    }

    @Test func theReadmeShowsTheExampleThisTargetCompiles() throws {
        let code = try String(contentsOfFile: Repo.root + "/" + Self.examplePath, encoding: .utf8)
        let block = try Self.readmeBlock(after: "<!-- library example: \(Self.examplePath) -->")
        #expect(block == code)
        // With the lines that add the package, under 25 lines.
        let package = try Self.readmeBlock(after: "<!-- library example: Package.swift -->")
        #expect(package == """
            .package(path: "../Fetchlog"),                    // your package's dependencies (a clone beside it)
            .product(name: "Fetchlog", package: "Fetchlog"),  // your target's dependencies: import FetchlogCore

            """)
        #expect(code.split(separator: "\n", omittingEmptySubsequences: false).count - 1 + 2 == 24)
        // The product those lines name is this package's library, and the package is named as they say.
        let manifest = try String(contentsOfFile: Repo.root + "/Package.swift", encoding: .utf8)
        #expect(manifest.contains(#"name: "Fetchlog","#) && manifest.contains(#".library(name: "Fetchlog", targets: ["FetchlogCore""#))
    }

    @Test func theExampleRunsAgainstTheSampleUpstream() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("readme-library")
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: upstream.base)
        configuration.fetching.retry.retries = 0
        let result = try await syncItems(in: URL(filePath: dir.path), configuration: configuration)
        let asked = await upstream.asked
        await upstream.stop()

        // Page 2 repeats item 5: twelve items, in first-seen order, numbers decoded as numbers.
        let expected = (1 ... 12).map { Item(id: $0, name: "item \($0)", size: $0 * 10) }
        #expect(result.items == expected)
        #expect(result.observed == expected)
        // The definition is seq 1, the three pages seqs 2 to 4.
        let items = (1 ... 12).map(CatalogUpstream.item).joined(separator: ",")
        #expect(result.export == #"{"asOf":4,"count":12,"items":[\#(items)],"resource":"items","source":"catalog","view":"items"}"#)
        #expect(asked == ["/catalog/pages?page=1", "/catalog/pages?page=2", "/catalog/pages?page=3"])
    }
}
