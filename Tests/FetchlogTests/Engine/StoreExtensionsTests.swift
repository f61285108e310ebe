import Foundation
import Testing

/// Issue 36: paging and pushing are clients of the store, not extensions of it. In the
/// engine, `extension Store` is written only in the store layer's `Store/` folder; another
/// module that gives the store a door of its own (SQL, replication, the seed sources' lists)
/// writes it in a file named `Store+WHAT.swift`, where a reader looks for it. Anything else
/// — a paging loop, a push, a source's filter — is a type of its own that uses the store.
@Suite struct StoreExtensionsTests {
    static let pattern = try! NSRegularExpression(pattern: #"\bextension Store\b(?![\w.])"#)

    /// `file:line: text` of every `extension Store` under `folder` in a file where it does
    /// not belong.
    static func misplaced(under folder: String) throws -> [String] {
        try StoreLayerBoundaryTests.offendingLines(under: folder, excusing: ["Sources/FetchlogCore/Store/"], pattern: pattern).filter { hit in
            let file = String(hit.prefix { $0 != ":" })
            let name = file.split(separator: "/").last.map(String.init) ?? file
            return file.hasPrefix("Sources/FetchlogCore/") || !name.hasPrefix("Store+")
        }
    }

    @Test func storeExtensionsLiveWhereTheStoreIs() throws {
        let hits = try Self.misplaced(under: "Sources")
        #expect(hits.isEmpty, "\(hits.joined(separator: "\n"))")
    }

    /// The check can fail: the store layer's own files, not excused, are full of them, and
    /// a `Store+` name does not excuse a file inside the engine outside `Store/`.
    @Test func theCheckFindsExtensionsWhereTheyAre() throws {
        let inStore = try StoreLayerBoundaryTests.offendingLines(under: "Sources/FetchlogCore/Store", excusing: [], pattern: Self.pattern)
        #expect(inStore.contains { $0.hasPrefix("Sources/FetchlogCore/Store/Store+Push.swift:") }, "\(inStore.joined(separator: "\n"))")
        #expect(inStore.contains { $0.hasPrefix("Sources/FetchlogCore/Store/Store+Define.swift:") })
        // A folder the scan reads by its path under the repository (the build folder, ignored by git).
        let relative = ".build/store-extensions-check-\(getpid())"
        let folder = URL(fileURLWithPath: Repo.root + "/" + relative)
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "extension Store {\n}\n".write(to: folder.appendingPathComponent("Pager.swift"), atomically: true, encoding: .utf8)
        try "extension StoreAction {}\nextension Store.Configuration {}\n".write(to: folder.appendingPathComponent("Other.swift"), atomically: true, encoding: .utf8)
        let hits = try StoreLayerBoundaryTests.offendingLines(under: relative, excusing: [], pattern: Self.pattern)
        #expect(hits.count == 1 && hits[0].hasSuffix("/Pager.swift:1: extension Store {"), "\(hits)")
    }
}
