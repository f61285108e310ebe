import Foundation
import Testing

/// Issue 25: the library's public surface is what a Swift developer using Fetchlog needs —
/// the store, its values, configuration, manifests and the plug-in protocol — and nothing of
/// the engine's insides, which are `package` (the CLI, the seed sources, replication, the
/// benches and these tests are all in this package and still see them). Each public
/// declaration carries a `///` comment, so the DocC catalog and a reader's editor explain it.
@Suite struct PublicSurfaceTests {
    /// The ceiling from the issue's acceptance line.
    static let budget = 450

    /// Folders of Core that are not counted: none since the shell's files moved to their own
    /// module, FetchlogShell (issue 25, item 3).
    static let movingOut: Set<String> = []

    /// One public (or open) declaration found by the scan.
    struct Declaration: Equatable {
        let file: String
        let line: Int
        let text: String
        let documented: Bool
    }

    /// A line declares something public when, after its attributes (and any modifiers
    /// written first, `static public`), comes `public` or `open` followed by a declaration or
    /// modifier — `public import` re-exports a module and declares nothing. Line-based on
    /// purpose: the team writes one declaration a line.
    static let declaration = try! NSRegularExpression(
        pattern: #"^(@[\w.]+(\([^)]*\))?\s+)*((static|final|nonisolated|override|required|convenience|mutating|indirect|lazy)\s+)*(public|open)\s+(?!import\b)[A-Za-z_(]"#)

    /// `public extension` makes every member public without a keyword the scan could count.
    static let publicExtension = try! NSRegularExpression(pattern: #"^(@[\w.]+(\([^)]*\))?\s+)*public\s+extension\b"#)

    /// The public declarations in `text`, each with whether a `///` comment (or the end of a
    /// `/** */` block) sits right above it; attribute lines in between are allowed.
    static func declarations(in text: String, file: String) -> [Declaration] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        var found: [Declaration] = []
        for (index, line) in lines.enumerated()
        where declaration.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
            var above = index - 1
            while above >= 0, lines[above].hasPrefix("@") { above -= 1 }
            let documented = above >= 0 && (lines[above].hasPrefix("///") || lines[above].hasSuffix("*/"))
            found.append(Declaration(file: file, line: index + 1, text: line, documented: documented))
        }
        return found
    }

    /// Every public declaration in the Swift files under `folder` (relative to the repository).
    static func declarations(under folder: String, skipping: Set<String> = []) throws -> [Declaration] {
        let root = Repo.root + "/" + folder
        guard let files = FileManager.default.enumerator(atPath: root) else {
            Issue.record("\(folder): not found")
            return []
        }
        var found: [Declaration] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            if let top = file.split(separator: "/").first, skipping.contains(String(top)) { continue }
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            found += declarations(in: text, file: folder + "/" + file)
        }
        return found.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
    }

    @Test func coreKeepsItsPublicSurfaceWithinBudget() throws {
        let found = try Self.declarations(under: "Sources/FetchlogCore", skipping: Self.movingOut)
        // The per-folder counts say where to look when the budget is exceeded.
        let perFolder = Dictionary(grouping: found) { $0.file.split(separator: "/").dropFirst(2).first.map(String.init) ?? "" }
            .map { "\($0.key): \($0.value.count)" }.sorted().joined(separator: ", ")
        let extensions = found.filter { Self.publicExtension.firstMatch(in: $0.text, range: NSRange($0.text.startIndex..., in: $0.text)) != nil }
        #expect(extensions.isEmpty,
                "write public on each member instead, so the count sees it:\n\(extensions.map { "\($0.file):\($0.line): \($0.text)" }.joined(separator: "\n"))")
        #expect(found.count <= Self.budget,
                "FetchlogCore declares \(found.count) public declarations (at most \(Self.budget)): \(perFolder). Make what is not library API `package`.")
    }

    /// The modules documented in full: the engine, and the LMDB binding under it, which is a
    /// product of its own (`FetchlogLMDB`) that an app may use without the engine (issue 36).
    static let documentedModules = ["Sources/FetchlogCore", "Sources/FetchlogLMDB"]

    @Test(arguments: documentedModules)
    func everyPublicDeclarationIsDocumented(module: String) throws {
        let found = try Self.declarations(under: module, skipping: module == "Sources/FetchlogCore" ? Self.movingOut : [])
        // A moved or renamed folder must not pass as a module with nothing undocumented.
        #expect(!found.isEmpty, "\(module): no public declaration found")
        let extensions = found.filter { Self.publicExtension.firstMatch(in: $0.text, range: NSRange($0.text.startIndex..., in: $0.text)) != nil }
        #expect(extensions.isEmpty,
                "write public on each member instead, so the scan sees it:\n\(extensions.map { "\($0.file):\($0.line): \($0.text)" }.joined(separator: "\n"))")
        let undocumented = found.filter { !$0.documented }
        #expect(undocumented.isEmpty,
                "public declarations without a /// comment:\n\(undocumented.map { "\($0.file):\($0.line): \($0.text)" }.joined(separator: "\n"))")
    }

    /// The scan itself can fail: it counts what is public and no more, and it sees a missing comment.
    @Test func theScanCountsPublicDeclarationsAndSeesMissingComments() {
        let text = """
            public import Foundation
            /// Documented, with an attribute between comment and declaration.
            @available(macOS 15, *)
            public struct Kept {
                public let undocumented: Int
                /// Documented.
                @discardableResult public func run() -> Int { 1 }
                package var inside = 0
                // A plain comment is not documentation.
                public static var alsoUndocumented = 2
                /** A block comment is. */
                open class Base {}
                let open = "public struct InAString"
                static public let reordered = 3
            }
            /// Documented, but its members are public unseen.
            public extension Kept {}
            """
        let found = Self.declarations(in: text, file: "Control.swift")
        #expect(found.map(\.line) == [4, 5, 7, 10, 12, 14, 17])
        #expect(found.filter { !$0.documented }.map(\.line) == [5, 10, 14])
        #expect(found.filter { Self.publicExtension.firstMatch(in: $0.text, range: NSRange($0.text.startIndex..., in: $0.text)) != nil }.map(\.line) == [17])
    }
}
