import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// The one JSON parser (`JSONTape`) and the cursor the decoders read through, checked
/// against independent oracles: Python's `json` for every recorded body, the standard
/// library's UTF-8 validation and `Double(String)` for generated inputs.
@Suite struct JSONTapeTests {
    /// A deterministic generator, so a failure names a case that reproduces.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func tape(_ text: String) throws -> JSONTape {
        var copy = text
        return try copy.withUTF8 { try JSONTape.parse(UnsafeRawBufferPointer($0)) }
    }

    static func parseError(_ bytes: [UInt8]) -> JSONParseError? {
        do {
            _ = try JSONValue.parse(bytes: bytes)
            return nil
        } catch let error as JSONParseError {
            return error
        } catch {
            return JSONParseError(offset: -1, reason: "\(error)")
        }
    }

    /// Runs `body` with a cursor at the root of `text`.
    static func withRoot<T>(_ text: String, _ body: (JSONCursor) throws -> T) throws -> T {
        let bytes = Array(text.utf8)
        let tape = try bytes.withUnsafeBytes { try JSONTape.parse($0) }
        return try bytes.withUnsafeBytes { raw in
            try tape.entries.withUnsafeBufferPointer { try body(JSONCursor(bytes: raw, entries: $0)) }
        }
    }

    @Test func everyRecordedBodyCanonicalizesExactlyAsPythonDoes() async throws {
        let folder = DecodingFixtures.folder
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count == 39)
        let arguments = ["python3", Repo.root + "/Tools/canonical-json.py"] + files.map { folder + $0 }
        let python = try await offPool { try runProcessBlocking("/usr/bin/env", arguments) }
        #expect(python.status == 0, "\(python.stderr)")
        let expected = python.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(expected.count == files.count)
        for (file, oracle) in zip(files, expected) {
            let ours = try JSONValue.parse(bytes: try DecodingFixtures.bytes(file)).canonicalText()
            #expect(ours == oracle, "canonical text of \(file) differs from Python's")
        }
    }

    @Test func tapeRecordsStructureAsOffsets() throws {
        let text = #"{"a":[1,2,{"b":null}],"c":"x\n"}"#
        let tape = try Self.tape(text)
        #expect(tape.entries.map(\.kind) == [.object, .string, .array, .number, .number, .object, .string, .null, .string, .string])
        #expect(tape.entries[0].a == 10 && tape.entries[0].b == 2)   // root: ends after entry 9, two members
        #expect(tape.entries[2].a == 8 && tape.entries[2].b == 3)    // the array: three elements
        #expect(tape.entries[5].a == 8 && tape.entries[5].b == 1)
        #expect(tape.entries[9].a == 27 && tape.entries[9].b == 3 && tape.entries[9].escaped) // `x\n` raw
        #expect(tape.entries[1].escaped == false && tape.entries[1].a == 2 && tape.entries[1].b == 1)
    }

    @Test func escapesDecodeToTheirCharacters() throws {
        let value = try JSONValue.parse(#""q\"b\\s\/\b\f\n\r\t\u00e9\u4e2d\ud83d\ude00\u0000z""#)
        #expect(value == .string("q\"b\\s/\u{08}\u{0C}\n\r\té中😀\u{0}z"))
    }

    @Test func everyMalformedTextIsRefusedAtItsOffset() {
        let cases: [(String, Int, String)] = [
            ("", 0, "unexpected end of input"),
            ("  ", 2, "unexpected end of input"),
            ("{", 1, "expected a member name"),
            ("{\"a\" 1}", 5, "expected ':'"),
            ("{\"a\":1", 6, "unterminated object"),
            ("{\"a\":1]", 6, "expected ',' or '}'"),
            ("{\"a\":1,}", 7, "expected a member name"),
            ("[1", 2, "unterminated array"),
            ("[1}", 2, "expected ',' or ']'"),
            ("[1,]", 3, "unexpected character ']'"),
            ("-", 1, "unterminated number"),
            ("-a", 1, "expected a digit"),
            ("1.", 2, "expected a digit after '.'"),
            ("1e+", 3, "expected a digit in the exponent"),
            ("01", 1, "unexpected text after the value"),
            ("\"abc", 4, "unterminated string"),
            ("\"abcdefghijklmnop", 17, "unterminated string"),
            ("\"ab\u{01}\"", 3, "control character in a string"),
            ("\"\\", 2, "unterminated escape"),
            ("\"\\x\"", 3, "invalid escape"),
            ("\"\\u12\"", 3, "short \\u escape"),
            ("\"\\u12g4\"", 5, "invalid hex digit"),
            ("\"\\ud83d\"", 7, "lone high surrogate"),
            ("\"\\ud83d\\u0041\"", 13, "invalid low surrogate"),
            ("\"\\ude00\"", 7, "invalid code point"),
            ("tru", 3, "expected true"),
            ("nul", 3, "expected null"),
            ("fals", 4, "expected false"),
            ("[true false]", 6, "expected ',' or ']'"),
            ("'a'", 0, "unexpected character '''"),
            (String(repeating: "[", count: 513), 512, "nesting deeper than 512"),
        ]
        for (text, offset, reason) in cases {
            #expect(Self.parseError(Array(text.utf8)) == JSONParseError(offset: offset, reason: reason), "\(text.debugDescription)")
        }
        #expect(Self.parseError(Array((String(repeating: "[", count: 512) + String(repeating: "]", count: 512)).utf8)) == nil)
    }

    /// The eight-byte scan must stop at a quote, a backslash or a control byte wherever it
    /// falls relative to the word boundaries.
    @Test func stringScanStopsAtEveryPosition() throws {
        for prefix in 0 ..< 20 {
            let a = String(repeating: "a", count: prefix)
            #expect(try JSONValue.parse("\"\(a)\"") == .string(a))
            #expect(try JSONValue.parse("\"\(a)\\n\(a)\"") == .string(a + "\n" + a))
            #expect(try JSONValue.parse("\"\(a)é\(a)\"") == .string(a + "é" + a))
            #expect(Self.parseError(Array("\"\(a)\u{1F}bbbbbbbbbb\"".utf8)) == JSONParseError(offset: 1 + prefix, reason: "control character in a string"))
            // An invalid byte after an escape is reported at the start of its run, as before.
            let bad = Array("\"\\t\(a)".utf8) + [0xC0, 0x80] + Array("\"".utf8)
            #expect(Self.parseError(bad) == JSONParseError(offset: 3, reason: "invalid UTF-8 in a string"))
        }
    }

    @Test func utf8IsValidatedExactlyAsTheStandardLibraryDoes() {
        var random = SplitMix(state: 4)
        let interesting: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
                                    0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        var valid = 0, invalid = 0
        for _ in 0 ..< 20_000 {
            // Mostly well-formed scalars (of every encoded length) with a stray byte now and then.
            var content: [UInt8] = []
            for _ in 0 ..< Int.random(in: 1 ... 5, using: &random) {
                if Int.random(in: 0 ..< 5, using: &random) == 0 {
                    content.append(interesting.randomElement(using: &random)!)
                    continue
                }
                let ranges: [ClosedRange<UInt32>] = [0x23 ... 0x5B, 0x80 ... 0x7FF, 0xE000 ... 0xFFFF, 0x800 ... 0xD7FF, 0x10000 ... 0x10FFFF]
                let scalar = Unicode.Scalar(UInt32.random(in: ranges.randomElement(using: &random)!, using: &random))!
                content += Array(String(Character(scalar)).utf8)
            }
            // Text after the string, so its closing quote is met inside an eight-byte word.
            let text = Array("[\"".utf8) + content + Array("\",\"abcdefghijk\"]".utf8)
            let reference = String(validating: content, as: UTF8.self)
            let error = Self.parseError(text)
            if let reference {
                valid += 1
                #expect(error == nil, "\(content)")
                #expect((try? JSONValue.parse(bytes: text)) == .array([.string(reference), .string("abcdefghijk")]))
            } else {
                invalid += 1
                #expect(error == JSONParseError(offset: 2, reason: "invalid UTF-8 in a string"), "\(content)")
            }
        }
        // Both outcomes are exercised many times (the split is fixed by the seed).
        #expect(valid > 1_000 && invalid > 1_000)
    }

    @Test func fastNumberPathsGiveTheSameValuesAsTheGeneralRoute() throws {
        var random = SplitMix(state: 7)
        var fastDoubles = 0
        for _ in 0 ..< 20_000 {
            let integerDigits = Int.random(in: 1 ... 12, using: &random)
            let fractionDigits = Int.random(in: 0 ... 8, using: &random)
            var text = Bool.random(using: &random) ? "-" : ""
            text += String(Int.random(in: 1 ... 9, using: &random))
            for _ in 1 ..< integerDigits { text += String(Int.random(in: 0 ... 9, using: &random)) }
            if fractionDigits > 0 {
                text += "."
                for _ in 0 ..< fractionDigits { text += String(Int.random(in: 0 ... 9, using: &random)) }
            }
            try Self.withRoot(text) { root in
                let general = Double(text)!
                #expect(root.lenientDouble()?.bitPattern == general.bitPattern, "\(text)")
                let fast = JSONNumberScan.double(root.entries[0], root.bytes)
                #expect((fast != nil) == (integerDigits + fractionDigits <= 15), "\(text)")
                if let fast { fastDoubles += 1; #expect(fast.bitPattern == general.bitPattern, "\(text)") }
                if fractionDigits == 0 { #expect(root.lenientInt() == Int(text), "\(text)") }
            }
        }
        #expect(fastDoubles > 10_000)
        let edges: [(String, Int?, Double?)] = [
            ("-0", 0, -0.0), ("0", 0, 0), ("7.0", 7, 7), ("1e2", 100, 100), ("-1.5E-3", nil, -0.0015),
            ("9223372036854775807", Int.max, 9223372036854775807), ("9223372036854775808", nil, 9223372036854775808),
            ("123456789012345678", 123456789012345678, 123456789012345678), ("0.1", nil, 0.1), ("1e400", nil, nil),
        ]
        for (text, int, double) in edges {
            try Self.withRoot(text) { root in
                #expect(root.lenientInt() == int, "\(text)")
                #expect(root.lenientDouble()?.bitPattern == double?.bitPattern, "\(text)")
            }
        }
        try Self.withRoot("-0") { #expect(JSONNumberScan.double($0.entries[0], $0.bytes)?.sign == .minus) }
    }

    @Test func pathsAreWorkedOutFromTheTapeWhenAsked() throws {
        let text = #"{"a":{"b c":[0,{"d":true},[{"e":1},{"f":{"g":"x"}}]]},"n\u0061me":"Ada"}"#
        try Self.withRoot(text) { root in
            let list = try root.field("a").field("b c")
            let elements = try list.elements()
            #expect(elements.count == 3)
            #expect(elements[1].path == #"$.a["b c"][1]"#)
            let g = try elements[2].elements()[1].field("f").field("g")
            #expect(g.path == #"$.a["b c"][2][1].f.g"#)
            #expect(try g.string() == "x")
            // A key sent with an escape still matches.
            #expect(try root.string("name") == "Ada")
            #expect(throws: DecodeError(path: #"$.a["b c"][2][1].f.h"#, reason: "missing required field")) { try elements[2].elements()[1].field("f").field("h") }
            #expect(throws: DecodeError(path: #"$.a["b c"][1].d"#, reason: "expected an integer, found true")) { try elements[1].int("d") }
            #expect(throws: DecodeError(path: #"$.a["b c"]"#, reason: "expected an object, found an array of 3")) { try list.field("x") }
        }
    }

    /// Issue 28: a repeated name is read as Python's `json` (and so dlt) reads it — once,
    /// where it first stood, with its last value (both readers; it was the first before).
    @Test func repeatedMembersResolveToTheLast() throws {
        try Self.withRoot(#"{"id":1,"id":2}"#) { root throws in #expect(try root.int("id") == 2) }
        #expect(try JSONValue.parse(#"{"id":1,"id":2}"#) == .object([("id", .number("2"))]))
        #expect(try JSONValue.parse(#"{"a":1,"b":2,"a":3}"#) == .object([("a", .number("3")), ("b", .number("2"))]))
        // Past twelve members the names are hashed: the same answer.
        let many = (0 ..< 20).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        #expect(try JSONValue.parse("{" + many + #","k3":"last"}"#)["k3"] == .string("last"))
        #expect(try JSONValue.parse("{" + many + #","k3":"last"}"#).memberNames.count == 20)
    }
}
