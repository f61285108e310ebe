import Foundation
import Testing

/// Issue 14: the engine and the command line name no source — every source, the five seed
/// apps included, arrives as a plug-in. (The seed sources' names live in
/// Sources/FetchlogSources; the shipped sample log is data.)
@Suite struct NoSourceNamesTests {
    static let pattern = try! NSRegularExpression(pattern: #"tvmaze|gnome|viaplay|thmanyah|\bartic\b|brastlewark"#, options: [.caseInsensitive])

    /// `file:line: text` of every Swift line under `folder` that names a seed source.
    static func offendingLines(under folder: String) throws -> [String] {
        let root = Repo.root + "/" + folder
        guard let files = FileManager.default.enumerator(atPath: root) else { return ["\(folder): not found"] }
        var hits: [String] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    hits.append("\(folder)/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        return hits.sorted()
    }

    @Test(arguments: ["Sources/FetchlogCore", "Sources/FetchlogShell", "Sources/fetchlog", "Sources/FetchlogSQL"])
    func namesNoSource(_ folder: String) throws {
        let hits = try Self.offendingLines(under: folder)
        #expect(hits.isEmpty, "\(hits.joined(separator: "\n"))")
    }

    /// The check itself can fail: the seed sources' own folder is full of their names.
    @Test func theCheckFindsNamesWhereTheyAre() throws {
        #expect(try Self.offendingLines(under: "Sources/FetchlogSources/Brastlewark").count > 10)
    }
}
