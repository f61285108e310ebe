import Foundation
import Testing

/// Issue 25: the store is the one door. The log and the fetcher are the store layer's
/// (Log, Store, Fetching, StoreDirectory) and replication's; every other file — the command
/// line, the views, the policy, the sources — goes through `Store` and `StoreMaintenance`.
@Suite struct StoreLayerBoundaryTests {
    static let pattern = try! NSRegularExpression(pattern: #"\bEventLog\b|\bFetcher\b"#)

    /// Where the names belong.
    static let storeLayer = ["Sources/FetchlogCore/Log/", "Sources/FetchlogCore/Store/", "Sources/FetchlogCore/Fetching/",
                             "Sources/FetchlogCore/StoreDirectory/", "Sources/FetchlogReplication/"]

    /// Files that may still name them, each with why. The test fails both when a file
    /// outside this list names them and when a listed file no longer does (then take it off
    /// the list): the list only shrinks. Empty: every part of the issue has landed.
    static let awaiting: [String: String] = [:]

    /// `file:line: text` of every Swift line under `folder` (relative to the repository)
    /// whose code — comments aside — matches `pattern` (by default: names `EventLog` or
    /// `Fetcher`), outside the files and folders `excusing` starts.
    static func offendingLines(under folder: String, excusing: [String] = storeLayer, pattern: NSRegularExpression = pattern) throws -> [String] {
        let root = Repo.root + "/" + folder
        guard let files = FileManager.default.enumerator(atPath: root) else { return ["\(folder): not found"] }
        var hits: [String] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let relative = folder + "/" + file
            if excusing.contains(where: { relative.hasPrefix($0) }) { continue }
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                // What a comment mentions is documentation, not a way around the store.
                let code = line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
                if pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                    hits.append("\(relative):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        return hits.sorted()
    }

    @Test func onlyTheStoreLayerNamesTheLogOrTheFetcher() throws {
        let hits = try Self.offendingLines(under: "Sources")
        let unexpected = hits.filter { hit in !Self.awaiting.keys.contains { hit.hasPrefix($0 + ":") } }
        #expect(unexpected.isEmpty, "\(unexpected.joined(separator: "\n"))")
        for file in Self.awaiting.keys.sorted() {
            #expect(hits.contains { $0.hasPrefix(file + ":") }, "\(file) no longer names EventLog or Fetcher: take it off `awaiting`")
        }
    }

    /// The check itself can fail: the store layer, not excused, is full of both names.
    @Test func theCheckFindsTheNamesWhereTheyAre() throws {
        let hits = try Self.offendingLines(under: "Sources/FetchlogCore/Store", excusing: [])
        #expect(hits.count > 10, "\(hits.joined(separator: "\n"))")
        #expect(hits.contains { $0.hasPrefix("Sources/FetchlogCore/Store/Store+Open.swift:") })
    }
}
