import FetchlogCore
import Foundation
import Testing

/// Issue 34, item 1: configs generated for real APIs (from OpenAPI documents, as
/// dlt-init-openapi writes them) that dlt takes and Fetchlog refused, one case per cause.
/// Each is read by Fetchlog here and by dlt 1.31 itself (`rest_api_source`, no HTTP), the
/// oracle; literal secrets stay refused.
@Suite struct RealAPIConfigTests {
    static func config(_ resources: String) -> String {
        #"{"name":"real","client":{"base_url":"https://api.example.com/"},"resources":[\#(resources)]}"#
    }

    static func read(_ resources: String) throws -> RestManifest {
        try RestManifest(json: try JSONValue.parse(config(resources)))
    }

    static func refusal(_ resources: String) -> String? {
        do {
            _ = try read(resources)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The cases, as written in the generated configs.
    static let long = String(repeating: "repos_owner_repo_actions_runners_", count: 3) + "labels" // 105 characters
    static let cases: [String: String] = [
        "secretNamedParamUnfilled": #"{"name":"prefs","endpoint":{"path":"mypreferences","params":{"key":"FILL_ME_IN","token":""}}}"#,
        "longName": #"{"name":"\#(long)","endpoint":{"path":"runners"}}"#,
        "longTableName": #"{"name":"runners","table_name":"\#(long)_table","endpoint":{"path":"runners"}}"#,
        "emptyTableName": #"{"name":"runners","table_name":"","endpoint":{"path":"runners"}}"#,
        "emptyName": #"{"name":"","endpoint":{"path":"runners"}}"#,
        "secretNamedParamFillsPath": #"{"name":"attribute","endpoint":{"path":"custom-attributes/{key}","params":{"key":"colour"}}}"#,
        "tokenFillsPath": #"{"name":"token_info","endpoint":{"path":"v1/tokens/{token}","params":{"token":"FILL_ME_IN"}}}"#,
        "dotBracketTotalPath": #"{"name":"pages","endpoint":{"path":"pages","paginator":{"type":"page_number","total_path":"data.[*].total"}}}"#,
        "offsetLimitZero": #"{"name":"offsets","endpoint":{"path":"offsets","paginator":{"type":"offset","limit":0,"total_path":"total"}}}"#,
    ]

    @Test func eachCauseIsReadAsDltReadsIt() throws {
        let prefs = try #require(try Self.read(Self.cases["secretNamedParamUnfilled"]!).resource("prefs"))
        #expect(prefs.params.map { "\($0.0)=\($0.1)" } == ["key=FILL_ME_IN", "token="])

        #expect(try Self.read(Self.cases["longName"]!).resource(Self.long)?.name == Self.long)
        #expect(try Self.read(Self.cases["longTableName"]!).resource("runners")?.tableName == Self.long + "_table")
        #expect(try Self.read(Self.cases["emptyTableName"]!).resource("runners")?.tableName == nil)
        #expect(try Self.read(Self.cases["emptyName"]!).resources.map(\.name) == ["paginate_resource"])

        let attribute = try #require(try Self.read(Self.cases["secretNamedParamFillsPath"]!).resource("attribute"))
        #expect(attribute.path == "/custom-attributes/colour")
        #expect(attribute.params.isEmpty)
        #expect(try Self.read(Self.cases["tokenFillsPath"]!).resource("token_info")?.path == "/v1/tokens/FILL_ME_IN")

        // `data.[*].total` is jsonpath-ng's spelling of `data[*].total`.
        #expect(try Self.read(Self.cases["dotBracketTotalPath"]!).resource("pages") != nil)
        let document = try JSONValue.parse(#"{"data":[{"total":7},{"total":9}]}"#)
        #expect(try JSONPath("data.[*].total").values(in: document) == [.number(7), .number(9)])
        #expect(try JSONPath("data.[*].total").values(in: document) == (try JSONPath("data[*].total").values(in: document)))
        #expect(try JSONPath("$.data.[1]").values(in: document) == [try JSONValue.parse(#"{"total":9}"#)])
        #expect(try Self.read(Self.cases["offsetLimitZero"]!).resource("offsets") != nil)
    }

    /// The oracle: dlt 1.31 takes every one of these configs (what Fetchlog now does).
    @Test func dltTakesEachOfThem() async throws {
        let probe = try await runProcess("/usr/bin/env", ["python3", "-c", "import dlt; print(dlt.__version__)"])
        try #require(probe.status == 0 && probe.stdout.hasPrefix("1.31."), "dlt 1.31 is the oracle: pip install 'dlt[duckdb]==1.31.*'")
        let script = """
            import json, sys
            from dlt.sources.rest_api import rest_api_source
            cases = json.loads(sys.stdin.read())
            out = {}
            for name, config in sorted(cases.items()):
                config = dict(config); config.pop("name", None)
                try:
                    source = rest_api_source(config)
                    out[name] = sorted(source.resources.keys())
                except Exception as e:
                    out[name] = "refused: " + type(e).__name__
            print(json.dumps(out, sort_keys=True))
            """
        let input = JSONValue.object(try Self.cases.sorted { $0.key < $1.key }.map { ($0.key, try JSONValue.parse(Self.config($0.value))) })
        let stdin = input.canonicalText()
        let dlt = try await offPool { try runProcessBlocking("/usr/bin/env", ["python3", "-c", script], stdin: stdin) }
        #expect(dlt.status == 0, "\(dlt.stderr)")
        let verdicts = try JSONValue.parse(dlt.stdout)
        for (name, text) in Self.cases.sorted(by: { $0.key < $1.key }) {
            let fetchlog = try Self.read(text).resources.map(\.name)
            #expect(verdicts[name] == .array(fetchlog.map { .string($0) }), "\(name): dlt \(String(describing: verdicts[name])), Fetchlog \(fetchlog)")
        }
    }

    /// What stays refused: a literal secret, a name past the limit (the message names it),
    /// and `env:` filling a path (a path is recorded in every event).
    @Test func literalSecretsAndOverlongNamesAreStillRefused() {
        #expect(Self.refusal(#"{"name":"prefs","endpoint":{"path":"mypreferences","params":{"key":"s3cr3t-value"}}}"#)
            == #"resources[0].endpoint.params.key: the parameter key holds a secret: write "env:NAME" and set NAME in the environment, "#
            + "since a literal secret would be stored in the log with the manifest")
        let overlong = String(repeating: "a", count: 256)
        #expect(Self.refusal(#"{"name":"\#(overlong)","endpoint":{"path":"runners"}}"#)
            == "resources[0].name: is not a resource name: 256 characters, and at most 255 are taken")
        #expect(Self.refusal(#"{"name":"runners","table_name":"\#(overlong)","endpoint":{"path":"runners"}}"#)
            == "resources[0].table_name: is not a view name Fetchlog takes: 256 characters, and at most 255 are taken")
        #expect(Self.refusal(#"{"name":"attribute","endpoint":{"path":"custom-attributes/{key}","params":{"key":"env:ATTRIBUTE"}}}"#)
            == "resources[0].endpoint.params.key: fills {key} in the endpoint's path, and a path is recorded in every event of the resource "
            + "(its label), so it is not read from the environment: write the value itself (a path is an address, not a secret)")
        #expect(Self.refusal(#"{"name":"offsets","endpoint":{"path":"offsets","paginator":{"type":"offset","limit":-1}}}"#)
            == "resources[0].endpoint.paginator.limit: must be 0 or more")
    }
}
