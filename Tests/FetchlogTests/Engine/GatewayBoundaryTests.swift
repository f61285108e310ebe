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
    /// names AsyncHTTPClient or its client, outside `excusing` (the store layer test's scan).
    static func offendingLines(under folder: String, excusing: [String] = [gateway]) throws -> [String] {
        try StoreLayerBoundaryTests.offendingLines(under: folder, excusing: excusing, pattern: pattern)
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
