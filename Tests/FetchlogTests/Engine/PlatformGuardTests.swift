import Foundation
import Testing

/// Issue 25, item 6: the package declares macOS, so every platform call stands behind an
/// `#if` naming its platform — Glibc imported or named only under `#if canImport(Glibc)`
/// (or `os(Linux)`), with the Darwin counterpart beside it — and glibc's `<malloc.h>`
/// (`malloc_trim`, which only the benchmark needs) is not in the library.
@Suite struct PlatformGuardTests {
    static let glibc = try! NSRegularExpression(pattern: #"^\s*(@_exported\s+)?import\s+(Glibc|Musl)\b|\b(Glibc|Musl)\."#)
    static let guardCondition = try! NSRegularExpression(pattern: #"canImport\((Glibc|Musl)\)|os\(Linux\)"#)

    /// `line: text` of every line of `text` that imports or names Glibc outside an `#if`
    /// branch whose condition names Linux's C library (an `#else` of one does not count).
    static func unguardedLines(_ text: String) -> [String] {
        var branches: [Bool] = []  // per open #if: whether the current branch is Linux's
        var hits: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            let code = line.components(separatedBy: "//")[0]
            let trimmed = code.trimmingCharacters(in: .whitespaces)
            func linux(_ condition: String) -> Bool {
                !condition.contains("!") && guardCondition.firstMatch(in: condition, range: NSRange(condition.startIndex..., in: condition)) != nil
            }
            if trimmed.hasPrefix("#if ") {
                branches.append(linux(trimmed))
            } else if trimmed.hasPrefix("#elseif "), !branches.isEmpty {
                branches[branches.count - 1] = linux(trimmed)
            } else if trimmed.hasPrefix("#else"), !branches.isEmpty {
                branches[branches.count - 1] = false
            } else if trimmed.hasPrefix("#endif"), !branches.isEmpty {
                branches.removeLast()
            } else if !branches.contains(true), glibc.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                hits.append("\(number + 1): \(trimmed)")
            }
        }
        return hits
    }

    /// `path:line: text` of every unguarded Glibc line in the Swift files under `folder`.
    static func offendingLines(under folder: String, in base: String = Repo.root) throws -> [String] {
        let root = base + "/" + folder
        guard let files = FileManager.default.enumerator(atPath: root) else { return ["\(folder): not found"] }
        var hits: [String] = []
        for case let file as String in files where file.hasSuffix(".swift") && !file.contains(".build/") {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            hits += unguardedLines(text).map { "\(folder)/\(file):\($0)" }
        }
        return hits.sorted()
    }

    @Test(arguments: ["Sources", "Tools"])
    func glibcOnlyBehindIf(_ folder: String) throws {
        let hits = try Self.offendingLines(under: folder)
        #expect(hits.isEmpty, "\(hits.joined(separator: "\n"))")
    }

    /// The check can fail: Glibc imported or named outside its `#if` (or in its `#else`)
    /// is found; inside it, and in comments, it is not.
    @Test func theCheckFindsGlibcOutsideIf() throws {
        let text = """
        import Foundation
        import Glibc
        #if canImport(Glibc)
        import Glibc
        let a = Glibc.exit
        #elseif canImport(Darwin)
        import Darwin
        let b = Glibc.exit
        #endif
        #if os(Linux)
        #if DEBUG
        let c = Glibc.open
        #endif
        #else
        @_exported import Glibc
        #endif
        // Glibc.exit is not called here
        func f() { Glibc.exit(1) }
        """
        #expect(Self.unguardedLines(text) == ["2: import Glibc", "8: let b = Glibc.exit", "15: @_exported import Glibc", "18: func f() { Glibc.exit(1) }"])
        // And in a real folder, once its file is written.
        let dir = TemporaryDirectory("platform-guard")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.sub("Sources"), withIntermediateDirectories: true)
        try "import Foundation\nimport Glibc\n".write(toFile: dir.sub("Sources/Bad.swift"), atomically: true, encoding: .utf8)
        #expect(try Self.offendingLines(under: "Sources", in: dir.path) == ["Sources/Bad.swift:2: import Glibc"])
    }

    /// `<malloc.h>` and `malloc_trim` are glibc's: nowhere in the library's C or Swift.
    @Test func noMallocTrimInTheLibrary() throws {
        let root = Repo.root + "/Sources"
        let files = try #require(FileManager.default.enumerator(atPath: root))
        var hits: [String] = []
        for case let file as String in files where [".c", ".h", ".swift"].contains(where: file.hasSuffix) {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            if text.contains("malloc.h") || text.contains("malloc_trim") { hits.append(file) }
        }
        #expect(hits == [])
    }
}
