import Testing
@testable import FetchlogCore
@testable import FetchlogSources

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

@Suite struct SHA256Tests {
    @Test func knownVectors() {
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(String(repeating: "a", count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
