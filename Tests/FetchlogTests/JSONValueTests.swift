import Testing
@testable import Fetchlog

@Suite struct JSONValueTests {
    @Test func canonicalTextSortsKeysAndKeepsNumberLiterals() throws {
        let value = try JSONValue.parse(#"{"b": [1.50, -0, 2e10], "a": {"z": null, "y": true}, "é": "x\"\n\u00e9\ud83d\ude00"}"#)
        #expect(value.canonicalText() == #"{"a":{"y":true,"z":null},"b":[1.50,-0,2e10],"é":"x\"\né😀"}"#)
    }

    @Test func controlCharactersAreEscaped() {
        #expect(JSONValue.string("a\u{01}\t").canonicalText() == #""a\u0001\t""#)
    }

    @Test func errorsSayWhere() {
        #expect(throws: JSONParseError(offset: 8, reason: "expected ',' or '}'")) { try JSONValue.parse(#"{"a": 1 "b": 2}"#) }
        #expect(throws: JSONParseError(offset: 6, reason: "unexpected end of input")) { try JSONValue.parse(#"{"a": "#) }
        #expect(throws: JSONParseError(offset: 2, reason: "unexpected text after the value")) { try JSONValue.parse("1 2") }
    }

    @Test func prettyTextKeepsMemberOrder() throws {
        let value = try JSONValue.parse(#"{"b":1,"a":[true,{}]}"#)
        #expect(value.prettyText() == "{\n  \"b\": 1,\n  \"a\": [\n    true,\n    {}\n  ]\n}")
    }
}
