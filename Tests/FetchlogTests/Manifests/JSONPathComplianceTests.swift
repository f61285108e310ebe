import FetchlogCore
import Foundation
import Testing

/// Issue 34, item 5: the one JSONPath reader against the JSONPath Compliance Test Suite
/// (RFC 9535; `JSONPathCTS/README.md` names its source, commit and licence). Filters and
/// their functions are not supported (refused by name), so their cases are left out; of the
/// others — basic, name, index and slice selectors, whitespace — a valid selector must give
/// the suite's nodelist (or one of its `results`, where member order is free) and an invalid
/// one must be refused: all 321 do. A departure the RFC would count as wrong (a spelling of
/// jsonpath-ng's that dlt's configs use) would be listed in `departures`, with why.
@Suite struct JSONPathComplianceTests {
    struct Case {
        let name: String
        let selector: String
        let document: JSONValue?
        let results: [JSONValue]
        let invalid: Bool
    }

    static func cases() throws -> [Case] {
        let text = try String(contentsOfFile: Repo.root + "/Tests/FetchlogTests/Manifests/JSONPathCTS/cts.json", encoding: .utf8)
        let suite = try JSONValue.parse(text)
        return try #require(suite["tests"]?.arrayValue).compactMap { test -> Case? in
            guard let name = test["name"]?.stringValue, let selector = test["selector"]?.stringValue else { return nil }
            let kind = name.split(separator: ",").first.map(String.init) ?? ""
            // Filters (and the functions only filters call) are not supported.
            if kind == "filter" || kind == "functions" || (kind == "whitespace" && selector.contains("?")) { return nil }
            var results: [JSONValue] = []
            if let one = test["result"] { results = [one] }
            if let many = test["results"]?.arrayValue { results = many }
            return Case(name: name, selector: selector, document: test["document"], results: results,
                        invalid: test["invalid_selector"] == .bool(true))
        }
    }

    /// Where Fetchlog departs from RFC 9535 on purpose: jsonpath-ng's spellings, which dlt's
    /// configs use, read as jsonpath-ng reads them.
    static let departures: [String: String] = [:]

    /// What Fetchlog did with one case, or nil when it agrees with the suite.
    static func disagreement(_ test: Case) -> String? {
        let path: JSONPath
        do {
            path = try JSONPath(test.selector)
        } catch {
            return test.invalid ? nil : "refused a valid selector: \(error)"
        }
        if test.invalid { return "read an invalid selector" }
        guard let document = test.document else { return "no document" }
        let got = JSONValue.array(path.values(in: document)).canonicalText()
        if test.results.contains(where: { $0.canonicalText() == got }) { return nil }
        return "selected \(got), expected \(test.results.map { $0.canonicalText() }.joined(separator: " or "))"
    }

    @Test func theFilterFreeCasesPassAsTheRFCSays() throws {
        let cases = try Self.cases()
        #expect(cases.count == 321)
        var passed: [String: (pass: Int, all: Int)] = [:]
        var failures: [String] = []
        for test in cases {
            let kind = test.name.split(separator: ",").first.map(String.init) ?? ""
            let wrong = Self.disagreement(test)
            passed[kind, default: (0, 0)].all += 1
            if let wrong {
                if Self.departures[test.name] == nil { failures.append("\(test.name) — \(test.selector): \(wrong)") }
            } else {
                passed[kind, default: (0, 0)].pass += 1
            }
        }
        let summary = passed.keys.sorted().map { "\($0) \(passed[$0]!.pass)/\(passed[$0]!.all)" }.joined(separator: ", ")
        print("JSONPath compliance (filter-free): \(summary)")
        #expect(failures.isEmpty, "\(failures.count) cases:\n\(failures.joined(separator: "\n"))")
    }

    /// jsonpath-ng's spellings dlt's configs use still read as before.
    @Test func dltsSpellingsStillRead() throws {
        let document = try JSONValue.parse(#"{"data":{"items":[{"id":1},{"id":2}],"total":2},"@odata.nextLink":"n","a-b":3}"#)
        #expect(try JSONPath("data.items").values(in: document).count == 1)
        #expect(try JSONPath("data.items[*].id").values(in: document) == [.number(1), .number(2)])
        #expect(try JSONPath("$.data.items.*.id").values(in: document) == [.number(1), .number(2)])
        #expect(try JSONPath("data.items.[*].id").values(in: document) == [.number(1), .number(2)])
        #expect(try JSONPath("$['@odata.nextLink']").values(in: document) == [.string("n")])
        #expect(try JSONPath("a-b").values(in: document) == [.number(3)])
        #expect(try JSONPath("$..id").values(in: document) == [.number(1), .number(2)])
        #expect(try JSONPath("$.data.items[::-1].id").values(in: document) == [.number(2), .number(1)])
        #expect(try JSONPath("$.data.items[0, -1].id").values(in: document) == [.number(1), .number(2)])
        #expect(try JSONPath("$").isRoot)
        #expect(try JSONPath("$.data.total").memberNames == ["data", "total"])
    }

    /// Filters are refused by name, and an invalid path with the position.
    @Test func filtersAndBadPathsAreRefusedWithWhere() {
        func refusal(_ text: String) -> String? {
            do { _ = try JSONPath(text); return nil } catch { return error.description }
        }
        #expect(refusal("$.items[?@.done]") == #""$.items[?@.done]" is not a JSONPath Fetchlog reads (at character 9: "#
            + "filter selectors ([?…]) are not supported: select with names, indexes, slices and *)")
        #expect(refusal("$.a[01]") == #""$.a[01]" is not a JSONPath Fetchlog reads (at character 5: an integer does not start with 0)"#)
        #expect(refusal(#"$["\q"]"#) == #""$["\q"]" is not a JSONPath Fetchlog reads (at character 5: \q is not an escape in a double-quoted name)"#)
    }
}
