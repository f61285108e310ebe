import Foundation
import Testing

/// Issue 33 (and 36's "one way out"): every request that leaves the machine goes through
/// `HTTPGateway`, under one policy. Nothing else in `Sources` imports AsyncHTTPClient or
/// names its client: a second door would be a request the address policy, the deadline,
/// the minimum rate and the body limit never see (as the push's and the token request's
/// own `client.execute` were).
@Suite struct GatewayBoundaryTests {
    static let pattern = try! NSRegularExpression(pattern: #"\bimport AsyncHTTPClient\b|\bHTTPClient(Request|Response|Error)?\b"#)

    /// The one file that may.
    static let gateway = "Sources/FetchlogCore/Fetching/HTTPGateway.swift"

    /// `file:line: text` of every Swift line under `folder` whose code (comments aside)
    /// names AsyncHTTPClient or its client, outside `excusing`.
    static func offendingLines(under folder: String, excusing: [String] = [gateway]) throws -> [String] {
        let root = Repo.root + "/" + folder
        guard let files = FileManager.default.enumerator(atPath: root) else { return ["\(folder): not found"] }
        var hits: [String] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let relative = folder + "/" + file
            if excusing.contains(relative) { continue }
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
                if pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                    hits.append("\(relative):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        return hits.sorted()
    }

    @Test func onlyTheGatewayNamesTheHTTPClient() throws {
        let hits = try Self.offendingLines(under: "Sources")
        #expect(hits.isEmpty, "\(hits.joined(separator: "\n"))")
    }

    /// The check itself can fail: the gateway, not excused, names the client.
    @Test func theCheckFindsTheClientWhereItIs() throws {
        let hits = try Self.offendingLines(under: "Sources/FetchlogCore/Fetching", excusing: [])
        #expect(hits.contains { $0.hasPrefix(Self.gateway + ":") && $0.hasSuffix("import AsyncHTTPClient") })
        #expect(hits.allSatisfy { $0.hasPrefix(Self.gateway + ":") }, "\(hits.joined(separator: "\n"))")
    }
}
