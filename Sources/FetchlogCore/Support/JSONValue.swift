/// A JSON value that keeps what canonical output needs: object members in their
/// original order (sorted only when written canonically) and numbers as their
/// literal text, so no value is ever re-rounded.
public indirect enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// The number's literal text as it appeared (or as produced by `number(_:)`).
    case number(String)
    /// A string, unescaped.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object's members, in the order written.
    case object([(String, JSONValue)])

    /// An integer as a number, written as its exact decimal text.
    public static func number<I: BinaryInteger>(_ value: I) -> JSONValue { .number(String(value)) }

    /// Equal when of the same case with equal contents; object members compared in order.
    /// Names and strings are equal when their UTF-8 bytes are (`hasSameUTF8`), never by
    /// canonical equivalence: equal values have the same canonical text.
    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.number(x), .number(y)): x == y
        case let (.string(x), .string(y)): x.hasSameUTF8(as: y)
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0.hasSameUTF8(as: $1.0) && $0.1 == $1.1 }
        default: false
        }
    }

    /// An object's member `key` (the first, if repeated); nil for a missing member or a non-object.
    /// Names match by their UTF-8 bytes, as `JSONCursor` matches them: "é" (U+00E9) never finds "e\u{301}".
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0.hasSameUTF8(as: key) }?.1
    }

    /// The string, for a string; else nil.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The elements, for an array; else nil.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    /// An object's member names in order (empty for anything else).
    public var memberNames: [String] { if case .object(let members) = self { members.map(\.0) } else { [] } }
    /// True for `null`.
    public var isNull: Bool { if case .null = self { true } else { false } }
    /// The number as an `Int` when it is integral and fits; else nil.
    public var intValue: Int? {
        switch self {
        case .number(let text): Int(text) ?? Double(text).flatMap { $0 == $0.rounded() && abs($0) < 1e15 ? Int($0) : nil }
        default: nil
        }
    }
    /// The number as a `Double`; else nil.
    public var doubleValue: Double? { if case .number(let text) = self { Double(text) } else { nil } }
    /// The Boolean, for a Boolean; else nil.
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

    package func writeCanonical(into out: inout String) { write(into: &out, sortingMembers: true) }

    /// Compact text keeping member order as held (not canonical): what SQL answers print,
    /// whose row objects keep the query's column order.
    package func orderedText() -> String {
        var out = ""
        write(into: &out, sortingMembers: false)
        return out
    }

    /// Compact text; object members sorted by their UTF-8 bytes (canonical) or as held.
    private func write(into out: inout String, sortingMembers: Bool) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): JSONValue.escape(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out, sortingMembers: sortingMembers)
            }
            out += "]"
        case .object(let members):
            out += "{"
            let ordered = sortingMembers ? members.sorted(by: { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }) : members
            for (i, member) in ordered.enumerated() {
                if i > 0 { out += "," }
                JSONValue.escape(member.0, into: &out)
                out += ":"
                member.1.write(into: &out, sortingMembers: sortingMembers)
            }
            out += "}"
        }
    }

    /// Indented text for people, keeping member order as received.
    package func prettyText(indent: String = "  ") -> String {
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
        // Most strings need no escape: one pass over their bytes, then appended whole.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out += s
            out += "\""
            return
        }
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
                // `out += String(…)`, not `out.unicodeScalars.append`: appending through the
                // view copied all of `out` each time (quadratic on a 10 MB export).
                out += String(scalars[plainStart ..< index])
                out += replacement
                plainStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        out += String(scalars[plainStart ..< scalars.endIndex])
        out += "\""
    }
}

// MARK: Parsing

/// Where and why a JSON text could not be parsed.
public struct JSONParseError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The byte offset where parsing stopped.
    public let offset: Int
    /// What was wrong there.
    public let reason: String
    /// The offset and the reason, as a user reads them.
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

    /// The value of the JSON text in `bytes`; throws `JSONParseError` naming the offset.
    public static func parse(bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        let tape = try JSONTape.parse(bytes)
        return tape.entries.withUnsafeBufferPointer { JSONTape.value(at: 0, $0, bytes) }
    }
}
