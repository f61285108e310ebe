import FetchlogCore
import Foundation
import Testing

/// Issue 36, item 4: `RestResource`'s `==` is synthesized, so a field added is compared
/// without anyone remembering to; a list of pairs is compared pair by pair, and writes by
/// what a manifest declares (routes and key), as the hand-written one did.
@Suite struct ResourceEqualityTests {
    static let resource = #"{"name":"notes","primary_key":"id","columns":{"size":{"data_type":"double"}},"#
        + #""endpoint":{"path":"notes","params":{"sort":"name","limit":10},"headers":{"X-Since":"{incremental.start_value}"},"#
        + #""incremental":{"cursor_path":"updated","initial_value":"2024-01-01"},"#
        + #""response_actions":[{"content":"gone","status_code":200,"action":"ignore"}]},"#
        + #""fetchlog":{"writes":{"create":{"method":"POST","path":"notes"}}}}"#

    static func read(_ json: String = resource) throws -> RestResource {
        try #require(ManifestTests.manifest(json).resources.first)
    }

    @Test func twoReadingsOfOneResourceAreEqual() throws {
        #expect(try Self.read() == Self.read())
    }

    @Test func everyPairListCounts() throws {
        let original = try Self.read()
        var params = original
        params.params.reverse()
        #expect(params != original)
        var columns = original
        columns.columnTypes = [("size", "bigint")]
        #expect(columns != original)
        var headers = original
        headers.headerTemplates = [("X-Since", "{incremental.initial_value}")]
        #expect(headers != original)
        var ignored = original
        ignored.ignoredContent = [IgnoredContent(content: "gone", status: nil)]
        #expect(ignored != original)
    }

    @Test func writesAreComparedByTheirRoutesAndKey() throws {
        let original = try Self.read()
        // A plug-in's `items` is code: never compared (a manifest's writes have none).
        var withItems = original
        withItems.writes?.items = { _ in nil }
        #expect(withItems == original)
        var otherRoute = original
        otherRoute.writes?.routes[.create] = ResourceWrites.Route(method: "PUT", path: "/notes")
        #expect(otherRoute != original)
        var none = original
        none.writes = nil
        #expect(none != original)
    }
}
