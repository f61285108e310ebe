import Foundation
import Testing

/// Issue 36, item 7: the code of the DocC articles (`Sources/*/*.docc/**/*.md`) and the
/// README's library example compiles where a newcomer pastes it — as the top-level code of
/// the `main.swift` of a package that depends on Fetchlog's library products.
///
/// An article is one program: its ```swift blocks in order, as a reader pastes them one
/// after another (a later block uses the `store` an earlier one opened). A block that opens
/// with `// swift-tools-version:` is a `Package.swift` and compiles against
/// PackageDescription instead. A block that is not Swift to paste (output, a transcript, a
/// shell session) is fenced ```text, ```json or ```sh and is not compiled.
///
/// How, and why this way: the compiler that built the package type-checks each program
/// against the modules that build left in `Modules/`, with the C module maps of the library
/// products' own compile commands (read from the build's llbuild manifest), and without
/// `-package-name`, so `package` declarations are out of reach as they are for a reader.
/// `-emit-sil` runs the type checker and the mandatory SIL diagnostics (definite
/// initialisation, Swift 6's data-race checks) and writes nothing: no second build of the
/// package, nothing linked — about a second a program. `#sourceLocation` makes each
/// diagnostic name the article's own line. (SwiftPM snippets were the other candidate: a
/// `Snippets/` file is built by `swift build --build-tests` as an executable of its own, a
/// link of the whole library graph each, and the README could not show one.)
@Suite(.serialized) struct PastedCodeTests {
    /// The documents whose Swift is checked, relative to the repository: every article with a
    /// ```swift block, then the README (its library example).
    static let documents: [String] = {
        let sources = Repo.root + "/Sources"
        let articles = (FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String } ?? [])
            .filter { $0.contains(".docc/") && $0.hasSuffix(".md") }
            .map { "Sources/" + $0 }
            .filter { (try? PastedProgram(document: $0))?.isEmpty == false }
            .sorted()
        return articles + ["README.md"]
    }()

    @Test func everyArticleWithCodeIsChecked() {
        // Exact, so that a catalog moved or a block fenced wrongly cannot leave code unchecked.
        #expect(Self.documents == [
            "Sources/FetchlogCore/FetchlogCore.docc/ConfiguringFetches.md",
            "Sources/FetchlogCore/FetchlogCore.docc/GettingStarted.md",
            "Sources/FetchlogCore/FetchlogCore.docc/LogsThatLiveForYears.md",
            "Sources/FetchlogCore/FetchlogCore.docc/SourcesFromManifests.md",
            "Sources/FetchlogCore/FetchlogCore.docc/WritingASource.md",
            "Sources/FetchlogCore/FetchlogCore.docc/WritingOffline.md",
            "Sources/FetchlogLMDB/FetchlogLMDB.docc/FetchlogLMDB.md",
            "Sources/FetchlogSQL/FetchlogSQL.docc/AskingWithSQL.md",
            "Sources/FetchlogSources/FetchlogSources.docc/UsingTheSeedSources.md",
            "Sources/FetchlogSync/FetchlogSync.docc/FetchlogSync.md",
            "Sources/FetchlogSync/FetchlogSync.docc/KeepingInSync.md",
            "README.md",
        ])
    }

    @Test(arguments: documents)
    func compilesAsPasted(_ document: String) async throws {
        let program = try PastedProgram(document: document)
        #expect(!program.isEmpty, "\(document): no Swift found")
        let compiler = try PastedCodeCompiler.shared.get()
        for problem in compiler.forbiddenImports(in: program) {
            Issue.record("\(document): \(problem)")
        }
        for result in try await compiler.compile(program) where result.status != 0 {
            Issue.record("\(document) does not compile as pasted (\(result.what)):\n\(result.errors.joined(separator: "\n"))")
        }
    }

    // MARK: The check can fail

    /// The errors of compiling `markdown` as the document `Control.md`, as
    /// `file:line:column: message` lines.
    static func errors(ofControl markdown: String) async throws -> [String] {
        let temporary = TemporaryDirectory("pasted-code")
        try FileManager.default.createDirectory(atPath: temporary.path, withIntermediateDirectories: true)
        try markdown.write(toFile: temporary.sub("Control.md"), atomically: true, encoding: .utf8)
        let program = try PastedProgram(document: "Control.md", root: temporary.path)
        let compiler = try PastedCodeCompiler.shared.get()
        let results = try await compiler.compile(program)
        return results.flatMap(\.errors) + compiler.forbiddenImports(in: program)
    }

    /// A type error and a fragment that leans on a name no block declares, each reported at
    /// its line of the article.
    @Test func aBrokenBlockIsReportedAtItsLine() async throws {
        let errors = try await Self.errors(ofControl: """
            # Control

            ```swift
            import FetchlogCore
            let count: Int = "three"
            ```

            Text between blocks.

            ```swift
            print(stor)
            ```

            ```text
            not Swift: never compiled
            ```
            """)
        #expect(errors == [
            "Control.md:5:18: error: cannot convert value of type 'String' to specified type 'Int'",
            "Control.md:11:7: error: cannot find 'stor' in scope",
        ])
    }

    /// What compiles inside this package but not in a reader's: a `package` declaration of
    /// the engine, a module that is no product.
    @Test func whatOnlyThisPackageSeesIsReported() async throws {
        let errors = try await Self.errors(ofControl: """
            ```swift
            import FetchlogCore
            import FetchlogShell
            let log = try EventLog.open(at: "/tmp/nowhere")
            ```
            """)
        #expect(errors == [
            "Control.md:4:15: error: cannot find 'EventLog' in scope",
            "import FetchlogShell: no library product of this package is that module (a reader can import FetchlogCore, FetchlogLMDB, FetchlogSQL, FetchlogSources, FetchlogSync)",
        ])
    }

    /// A data race is found after type checking, by a SIL pass: the check runs those too.
    @Test func aDataRaceIsReported() async throws {
        let errors = try await Self.errors(ofControl: """
            ```swift
            final class Counter { var count = 0 }
            func race() async {
                let counter = Counter()
                Task.detached { counter.count += 1 }
                counter.count += 1
            }
            ```
            """)
        #expect(errors == ["Control.md:5:10: error: sending value of non-Sendable type '() async -> ()' risks causing data races [#SendingRisksDataRace]"])
    }

    /// A `Package.swift` block compiles against PackageDescription.
    @Test func aBrokenManifestIsReported() async throws {
        let errors = try await Self.errors(ofControl: """
            ```swift
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(name: "MyApp", targets: [.executableTarget(nam: "MyApp")])
            ```
            """)
        #expect(errors == ["Control.md:5:65: error: incorrect argument label in call (have 'nam:', expected 'name:')"])
    }
}

/// A document's Swift as a reader pastes it: one `main.swift` of its blocks in order, and
/// each `Package.swift` block on its own. `#sourceLocation` lines map every line back to the
/// document.
struct PastedProgram {
    /// The document, relative to `root`: what diagnostics name.
    let document: String
    /// The blocks that are top-level code, joined; nil when there are none.
    let main: String?
    /// The `Package.swift` blocks, each with its tools version (`6.1`).
    let manifests: [(toolsVersion: String, text: String)]
    /// The modules the blocks import, in order.
    let imports: [String]

    var isEmpty: Bool { main == nil && manifests.isEmpty }

    /// The README's block that is its library example (the rest of its Swift is a fragment of
    /// a `Package.swift`, which `ReadmeLibraryExampleTests` holds to the letter).
    static let readmeMarker = "<!-- library example: Tests/FetchlogTests/Library/ReadmeLibraryExample.swift -->"

    init(document: String, root: String = Repo.root) throws {
        self.document = document
        let lines = try String(contentsOfFile: root + "/" + document, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let onlyAfterMarker = document == "README.md"
        var main: [String] = []
        var manifests: [(String, String)] = []
        var imports: [String] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index]
            index += 1
            guard fence.hasPrefix("```") else { continue }
            // The block runs to the next fence; only ```swift blocks are code to paste.
            let start = index
            while index < lines.count && !lines[index].hasPrefix("```") { index += 1 }
            let block = Array(lines[start ..< min(index, lines.count)])
            index += 1
            guard fence == "```swift" else { continue }
            if onlyAfterMarker && (start < 2 || lines[start - 2] != Self.readmeMarker) { continue }
            // `start` is the index of the block's first line; lines count from 1.
            let located = ["#sourceLocation(file: \"\(document)\", line: \(start + 1))"] + block + ["#sourceLocation()"]
            imports += block.compactMap { line in
                let words = line.split(separator: " ")
                return words.first == "import" && words.count > 1 ? String(words[1]) : nil
            }
            if let first = block.first, first.hasPrefix("// swift-tools-version:") {
                let version = first.dropFirst("// swift-tools-version:".count).trimmingCharacters(in: .whitespaces)
                manifests.append((version, located.joined(separator: "\n") + "\n"))
            } else {
                main += located
            }
        }
        self.main = main.isEmpty ? nil : main.joined(separator: "\n") + "\n"
        self.manifests = manifests
        self.imports = imports
    }
}

/// The compiler that built this package, with what a reader's package would give it: the
/// library products' modules and the C module maps their compile commands name.
struct PastedCodeCompiler: Sendable {
    /// The library products' modules (Package.swift's `.library(..., targets: [...])`).
    let products: [String]
    /// Every Swift module this build made (the package's and its dependencies'), from
    /// `Modules/`: of these, a reader can import only the products'.
    let built: Set<String>
    let swiftc: String
    /// `-I`, `-Xcc`, `-target` and `-module-cache-path` of the products' compile commands.
    let flags: [String]
    /// The toolchain's PackageDescription module, for `Package.swift` blocks.
    let manifestAPI: String

    struct Result: Sendable {
        /// What was compiled: `main.swift` or `Package.swift`.
        let what: String
        let status: Int32
        /// The compiler's `error:` lines, as `file:line:column: error: message`.
        let errors: [String]
    }

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    static let shared: Swift.Result<PastedCodeCompiler, Unavailable> = {
        do { return .success(try PastedCodeCompiler()) } catch let error as Unavailable { return .failure(error) } catch {
            return .failure(Unavailable(description: "\(error)"))
        }
    }()

    init() throws {
        let manifest = try String(contentsOfFile: Repo.root + "/Package.swift", encoding: .utf8)
        let library = try NSRegularExpression(pattern: #"\.library\(name: "[^"]+", targets: \[([^\]]*)\]\)"#)
        products = library.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)).flatMap { match in
            manifest[Range(match.range(at: 1), in: manifest)!].split(separator: ",").map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: " \""))
            }
        }.sorted()
        // The build products: beside the test runner, else the default debug folder.
        let candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                          Bundle.main.bundleURL.deletingLastPathComponent(),
                          URL(fileURLWithPath: Repo.root + "/.build/debug")].map { $0.resolvingSymlinksInPath() }
        guard let folder = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path + "/Modules/FetchlogCore.swiftmodule") }) else {
            throw Unavailable(description: "no build products with Modules/FetchlogCore.swiftmodule in \(candidates.map(\.path))")
        }
        built = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/Modules")
            .filter { $0.hasSuffix(".swiftmodule") }.map { String($0.dropLast(".swiftmodule".count)) })
        // SwiftPM's llbuild manifest (`debug.yaml`) sits in the scratch folder, two levels up
        // (`.build/x86_64-unknown-linux-gnu/debug` → `.build/debug.yaml`).
        let configuration = folder.lastPathComponent
        let scratch = folder.deletingLastPathComponent().deletingLastPathComponent()
        let yaml = try String(contentsOfFile: scratch.path + "/\(configuration).yaml", encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        var swiftc: String?
        var flags: [String] = []
        var clang: [[String]] = []
        for module in self.products {
            guard let key = yaml.firstIndex(where: { $0.hasPrefix("  \"C.\(module)-") && $0.hasSuffix(".module\":") }),
                  let argsLine = yaml[key...].dropFirst().first(where: { $0.hasPrefix("    args: ") }),
                  let args = try JSONSerialization.jsonObject(with: Data(argsLine.dropFirst("    args: ".count).utf8)) as? [String],
                  let tool = args.first else {
                throw Unavailable(description: "no compile command for \(module) in \(scratch.path)/\(configuration).yaml")
            }
            swiftc = tool
            var index = 1
            var group: [String] = []
            while index + 1 < args.count {
                let (flag, value) = (args[index], args[index + 1])
                switch flag {
                case "-I", "-target", "-module-cache-path":
                    if !flags.contains(value) { flags += [flag, value] }
                    index += 2
                case "-Xcc":
                    // Clang's own arguments, grouped (`-I` with its folder) so a repeat is dropped whole.
                    group.append(value)
                    index += 2
                    if value != "-I" && value != "-isystem" {
                        if !clang.contains(group) { clang.append(group) }
                        group = []
                    }
                default:
                    index += 1
                }
            }
        }
        guard let swiftc else { throw Unavailable(description: "no library product in Package.swift") }
        self.swiftc = swiftc
        self.flags = flags + clang.flatMap { $0.flatMap { ["-Xcc", $0] } }
        manifestAPI = URL(fileURLWithPath: swiftc).deletingLastPathComponent().deletingLastPathComponent().path + "/lib/swift/pm/ManifestAPI"
    }

    /// The imports of `program` that only this package can make: a module this build made that
    /// is no library product's (the shell, the sample upstream, a dependency's).
    func forbiddenImports(in program: PastedProgram) -> [String] {
        program.imports.filter { built.contains($0) && !products.contains($0) }.map {
            "import \($0): no library product of this package is that module (a reader can import \(products.joined(separator: ", ")))"
        }
    }

    /// Compiles the program's `main.swift` and each of its `Package.swift` blocks.
    func compile(_ program: PastedProgram) async throws -> [Result] {
        let temporary = TemporaryDirectory("pasted-code")
        try FileManager.default.createDirectory(atPath: temporary.path, withIntermediateDirectories: true)
        var results: [Result] = []
        if let main = program.main {
            let file = temporary.sub("main.swift")
            try main.write(toFile: file, atomically: true, encoding: .utf8)
            results.append(try await run("main.swift", ["-swift-version", "6", "-module-name", "PastedCode"] + flags + [file]))
        }
        for (number, manifest) in program.manifests.enumerated() {
            let file = temporary.sub("Package\(number).swift")
            try manifest.text.write(toFile: file, atomically: true, encoding: .utf8)
            results.append(try await run("Package.swift", ["-swift-version", "6", "-module-name", "PackageManifest", "-I", manifestAPI,
                                                           "-package-description-version", manifest.toolsVersion, file]))
        }
        return results
    }

    private func run(_ what: String, _ arguments: [String]) async throws -> Result {
        let result = try await runProcess(swiftc, ["-emit-sil", "-o", "/dev/null"] + arguments)
        // The first line of each diagnostic; the compiler repeats it under its excerpt.
        var errors: [String] = []
        for line in (result.stdout + result.stderr).split(separator: "\n").map(String.init)
        where line.contains(": error: ") && !line.hasPrefix(" ") && !errors.contains(line) {
            errors.append(line)
        }
        return Result(what: what, status: result.status, errors: errors)
    }
}
