/// A JSON value that keeps what canonical output needs: object members in their
/// original order (sorted only when written canonically) and numbers as their
/// literal text, so no value is ever re-rounded.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's literal text as it appeared (or as produced by `number(_:)`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func number<I: BinaryInteger>(_ value: I) -> JSONValue { .number(String(value)) }

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.number(x), .number(y)): x == y
        case let (.string(x), .string(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var isNull: Bool { if case .null = self { true } else { false } }
    public var intValue: Int? {
        switch self {
        case .number(let text): Int(text) ?? Double(text).flatMap { $0 == $0.rounded() && abs($0) < 1e15 ? Int($0) : nil }
        default: nil
        }
    }
    public var doubleValue: Double? { if case .number(let text) = self { Double(text) } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
}

// MARK: Writing

extension JSONValue {
    /// Canonical text: object keys sorted by their UTF-8 bytes, no insignificant
    /// whitespace, numbers exactly as held, strings escaped minimally.
    public func canonicalText() -> String {
        var out = ""
        writeCanonical(into: &out)
        return out
    }

    public func writeCanonical(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): JSONValue.escape(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.writeCanonical(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, member) in members.sorted(by: { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }).enumerated() {
                if i > 0 { out += "," }
                JSONValue.escape(member.0, into: &out)
                out += ":"
                member.1.writeCanonical(into: &out)
            }
            out += "}"
        }
    }

    /// Indented text for people, keeping member order as received.
    public func prettyText(indent: String = "  ") -> String {
        var out = ""
        writePretty(into: &out, level: 0, indent: indent)
        return out
    }

    private func writePretty(into out: inout String, level: Int, indent: String) {
        let pad = String(repeating: indent, count: level + 1)
        let closePad = String(repeating: indent, count: level)
        switch self {
        case .array(let items) where !items.isEmpty:
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += pad
                item.writePretty(into: &out, level: level + 1, indent: indent)
                out += i == items.count - 1 ? "\n" : ",\n"
            }
            out += closePad + "]"
        case .object(let members) where !members.isEmpty:
            out += "{\n"
            for (i, member) in members.enumerated() {
                out += pad
                JSONValue.escape(member.0, into: &out)
                out += ": "
                member.1.writePretty(into: &out, level: level + 1, indent: indent)
                out += i == members.count - 1 ? "\n" : ",\n"
            }
            out += closePad + "}"
        default:
            writeCanonical(into: &out)
        }
    }

    static func escape(_ s: String, into out: inout String) {
        out += "\""
        var plainStart = s.unicodeScalars.startIndex
        var index = plainStart
        let scalars = s.unicodeScalars
        while index != scalars.endIndex {
            let c = scalars[index]
            let replacement: String?
            switch c {
            case "\"": replacement = "\\\""
            case "\\": replacement = "\\\\"
            case "\n": replacement = "\\n"
            case "\r": replacement = "\\r"
            case "\t": replacement = "\\t"
            case "\u{08}": replacement = "\\b"
            case "\u{0C}": replacement = "\\f"
            default:
                if c.value < 0x20 {
                    let hex = String(c.value, radix: 16)
                    replacement = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    replacement = nil
                }
            }
            if let replacement {
                out.unicodeScalars.append(contentsOf: scalars[plainStart ..< index])
                out += replacement
                plainStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        out.unicodeScalars.append(contentsOf: scalars[plainStart ..< scalars.endIndex])
        out += "\""
    }
}

// MARK: Parsing

/// Where and why a JSON text could not be parsed.
public struct JSONParseError: Error, Equatable, CustomStringConvertible, Sendable {
    public let offset: Int
    public let reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Throws `JSONParseError`.
    public static func parse(_ text: String) throws -> JSONValue {
        var copy = text
        return try copy.withUTF8 { try parse(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Throws `JSONParseError`.
    public static func parse(bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBytes { try parse(bytes: $0) }
    }

    public static func parse(bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        // A UTF-8 byte order mark is tolerated, as browsers and most parsers do.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { parser.index = 3 }
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.fail("unexpected text after the value") }
        return value
    }
}

struct JSONParser {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < 512 else { throw fail("nesting deeper than 512") }
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"): return .number(try number())
        default: throw fail("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    mutating func literal(_ word: String) throws(JSONParseError) {
        for byte in word.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw fail("expected \(word)") }
            index += 1
        }
    }

    mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var members: [(String, JSONValue)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            members.append((key, try value(depth: depth + 1)))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw fail("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw fail("expected ',' or ']'")
        }
    }

    mutating func number() throws(JSONParseError) -> String {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.index
            while p.index < p.bytes.count, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(p.bytes[p.index]) { p.index += 1 }
            return p.index - s
        }
        guard index < bytes.count else { throw fail("unterminated number") }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else if digits(&self) == 0 { throw fail("expected a digit") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw fail("expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw fail("expected a digit in the exponent") }
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start ..< index]), as: UTF8.self)
    }

    mutating func string() throws(JSONParseError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ p: JSONParser, _ end: Int, into scalars: inout String.UnicodeScalarView) throws(JSONParseError) {
            guard end > runStart else { return }
            guard let text = String(validating: UnsafeRawBufferPointer(rebasing: p.bytes[runStart ..< end]), as: UTF8.self) else {
                throw JSONParseError(offset: runStart, reason: "invalid UTF-8 in a string")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flushRun(self, index, into: &scalars)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw fail("control character in a string") }
            if byte != UInt8(ascii: "\\") { index += 1; continue }
            try flushRun(self, index, into: &scalars)
            index += 1
            guard index < bytes.count else { throw fail("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800 ... 0xDBFF).contains(code) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw fail("lone high surrogate")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00 ... 0xDFFF).contains(low) else { throw fail("invalid low surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("invalid code point") }
                scalars.append(scalar)
            default: throw fail("invalid escape")
            }
            runStart = index
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0 ..< 4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("invalid hex digit")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
