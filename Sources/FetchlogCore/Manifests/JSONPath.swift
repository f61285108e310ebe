/// A JSONPath: RFC 9535's syntax and meaning (filters aside), read as dlt's `jsonpath-ng`
/// also reads its forms. Every path a manifest takes — `data_selector`, `total_path`,
/// `next_url_path`, `cursor_path` — goes through this one reader, so `$.paging.next`,
/// `paging.next` and `$['paging']['next']` mean the same.
///
/// RFC 9535: `$`, then segments — `.name`, `.*`, `[selectors]` and `..` before any of them
/// (the descendants, in document order) — where a bracket holds one or more selectors
/// separated by commas: quoted names with the RFC's escapes (`['@odata.nextLink']`,
/// `["\u263A"]`), `*`, indexes (`[0]`, `[-1]`) and slices with a step (`[1:10:2]`,
/// `[::-1]`); blank space where the RFC allows it, and nowhere else. Filters (`[?…]`) are
/// refused by name. Beyond the RFC, for dlt's paths as jsonpath-ng reads them: a bare
/// first name (`data.items`, a member of the root), `.[…]` (`data.[*].total`), and `-` or
/// `@` inside a member name. A path that is neither is refused with the position.
package struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    enum Selector: Sendable, Hashable {
        case name(String)
        case wildcard
        case index(Int)
        case slice(Int?, Int?, Int?)
    }

    /// One segment: its selectors, applied to each input node's children, or to the node
    /// and every node below it (`..`).
    struct Segment: Sendable, Hashable {
        var descendants: Bool
        var selectors: [Selector]
    }

    /// As written in the manifest.
    package let text: String
    let segments: [Segment]

    package var description: String { text }

    /// True for `$` (or an empty path): the whole document.
    package var isRoot: Bool { segments.isEmpty }

    /// The plain member names of a path made only of them (`$.a.b` → `["a", "b"]`), else nil.
    package var memberNames: [String]? {
        var names: [String] = []
        for segment in segments {
            guard !segment.descendants, segment.selectors.count == 1, case .name(let one) = segment.selectors[0] else { return nil }
            names.append(one)
        }
        return names
    }

    package init(_ text: String) throws(JSONPathError) {
        self.text = text
        var parser = Parser(text)
        segments = try parser.parse()
    }

    /// Every value the path selects in `json`, in document order (RFC 9535's nodelist).
    package func values(in json: JSONValue) -> [JSONValue] {
        var current = [json]
        for segment in segments {
            var next: [JSONValue] = []
            for node in current {
                if segment.descendants {
                    var all: [JSONValue] = []
                    Self.collect(node, into: &all)
                    for each in all { for selector in segment.selectors { Self.apply(selector, to: each, into: &next) } }
                } else {
                    for selector in segment.selectors { Self.apply(selector, to: node, into: &next) }
                }
            }
            current = next
        }
        return current
    }

    /// The first value selected, as dlt's paginators take one (`find_values(...)[0]`).
    package func first(in json: JSONValue) -> JSONValue? { values(in: json).first }

    /// The node and its descendants: a node before what is below it, arrays in order.
    private static func collect(_ value: JSONValue, into all: inout [JSONValue]) {
        all.append(value)
        switch value {
        case .array(let items): for item in items { collect(item, into: &all) }
        case .object(let members): for (_, member) in members { collect(member, into: &all) }
        default: break
        }
    }

    private static func apply(_ selector: Selector, to value: JSONValue, into out: inout [JSONValue]) {
        switch selector {
        case .name(let name):
            guard case .object = value, let member = value[name] else { return }
            out.append(member)
        case .wildcard:
            switch value {
            case .array(let items): out.append(contentsOf: items)
            case .object(let members): out.append(contentsOf: members.map(\.1))
            default: break
            }
        case .index(let i):
            guard case .array(let items) = value else { return }
            let at = i < 0 ? items.count + i : i
            if items.indices.contains(at) { out.append(items[at]) }
        case .slice(let start, let end, let stepGiven):
            guard case .array(let items) = value else { return }
            for i in slice(count: items.count, start: start, end: end, step: stepGiven ?? 1) { out.append(items[i]) }
        }
    }

    /// The indexes a slice selects (RFC 9535 §2.3.4.2.2), in its order.
    static func slice(count: Int, start: Int?, end: Int?, step: Int) -> [Int] {
        guard step != 0, count > 0 else { return [] }
        func normalized(_ i: Int) -> Int { i >= 0 ? i : count + i }
        var indexes: [Int] = []
        if step > 0 {
            let lower = min(max(normalized(start ?? 0), 0), count)
            let upper = min(max(normalized(end ?? count), 0), count)
            var i = lower
            while i < upper { indexes.append(i); i += step }
        } else {
            let upper = min(max(start.map(normalized) ?? count - 1, -1), count - 1)
            let lower = min(max(end.map(normalized) ?? -1, -1), count - 1)
            var i = upper
            while lower < i { indexes.append(i); i += step }
        }
        return indexes
    }

    /// A hand-written reader over the path's code points: the grammar is small, and its
    /// errors should say where.
    private struct Parser {
        let scalars: [Unicode.Scalar]
        let text: String
        var at = 0

        init(_ text: String) {
            self.text = text
            scalars = Array(text.unicodeScalars)
        }

        /// I-JSON's exact integers (RFC 9535 §2.1): an index or a slice bound beyond them is refused.
        static let largest = (1 << 53) - 1

        func fail(_ reason: String) -> JSONPathError { JSONPathError(path: text, offset: at, reason: reason) }

        var peek: Unicode.Scalar? { at < scalars.count ? scalars[at] : nil }

        func peek(_ ahead: Int) -> Unicode.Scalar? { at + ahead < scalars.count ? scalars[at + ahead] : nil }

        static func isBlank(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }

        mutating func skipBlanks() { while let c = peek, Self.isBlank(c) { at += 1 } }

        static func isNameFirst(_ c: Unicode.Scalar) -> Bool {
            (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" || c.value >= 0x80
        }

        static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }

        /// jsonpath-ng's names also hold `-` and `@` (dlt's paths are written for it).
        static func isNameChar(_ c: Unicode.Scalar) -> Bool { isNameFirst(c) || isDigit(c) || c == "-" || c == "@" }

        mutating func parse() throws(JSONPathError) -> [Segment] {
            var segments: [Segment] = []
            if let c = peek, Self.isBlank(c) { throw fail("a path does not start with blank space") }
            if peek == "$" {
                at += 1
            } else if let c = peek, Self.isNameFirst(c) || c == "@" {
                // A bare first name (`data.items`) is a member of the root, as in jsonpath-ng.
                segments.append(Segment(descendants: false, selectors: [.name(try shorthandName())]))
            } else if peek != nil {
                throw fail("a path starts with $ (or, as dlt writes it, a member name)")
            }
            while true {
                let before = at
                skipBlanks()
                guard let c = peek else {
                    if at > before { at = before; throw fail("a path does not end with blank space") }
                    break
                }
                switch c {
                case ".":
                    at += 1
                    if peek == "." {
                        at += 1
                        segments.append(Segment(descendants: true, selectors: try afterDot(descendant: true)))
                    } else {
                        segments.append(Segment(descendants: false, selectors: try afterDot(descendant: false)))
                    }
                case "[":
                    segments.append(Segment(descendants: false, selectors: try bracket()))
                default:
                    throw fail(at > before ? "expected . or [ after blank space" : "expected . or [ here")
                }
            }
            return segments
        }

        /// What follows `.` or `..`: a member name, `*`, or (jsonpath-ng's `.[`, and `..[`)
        /// a bracket.
        mutating func afterDot(descendant: Bool) throws(JSONPathError) -> [Selector] {
            guard let c = peek else { throw fail("expected a member name") }
            if c == "*" {
                at += 1
                return [.wildcard]
            }
            if c == "[" { return try bracket() }
            guard Self.isNameFirst(c) || c == "@" else {
                throw fail(Self.isBlank(c) ? "no blank space after \(descendant ? ".." : ".")" : "expected a member name, * or [")
            }
            return [.name(try shorthandName())]
        }

        mutating func shorthandName() throws(JSONPathError) -> String {
            let start = at
            while let c = peek, Self.isNameChar(c) { at += 1 }
            guard at > start else { throw fail("expected a member name") }
            var name = String.UnicodeScalarView()
            name.append(contentsOf: scalars[start ..< at])
            return String(name)
        }

        /// `[selector, …]`, at the `[`.
        mutating func bracket() throws(JSONPathError) -> [Selector] {
            at += 1
            var selectors: [Selector] = []
            while true {
                skipBlanks()
                selectors.append(try selector())
                skipBlanks()
                guard let c = peek else { throw fail("expected , or ] to close the [") }
                if c == "]" {
                    at += 1
                    return selectors
                }
                guard c == "," else { throw fail("expected , or ] here") }
                at += 1
            }
        }

        mutating func selector() throws(JSONPathError) -> Selector {
            guard let c = peek else { throw fail("expected *, a quoted name, an index or a slice inside [ ]") }
            switch c {
            case "*":
                at += 1
                return .wildcard
            case "'", "\"":
                return .name(try quoted())
            case "?":
                throw fail("filter selectors ([?…]) are not supported: select with names, indexes, slices and *")
            default:
                let first = try integer(optional: true)
                skipBlanksInSlice()
                guard peek == ":" else {
                    guard let first else { throw fail("expected *, a quoted name, an index or a slice inside [ ]") }
                    return .index(first)
                }
                at += 1
                skipBlanksInSlice()
                let end = try integer(optional: true)
                skipBlanksInSlice()
                var step: Int?
                if peek == ":" {
                    at += 1
                    skipBlanksInSlice()
                    step = try integer(optional: true)
                }
                return .slice(first, end, step)
            }
        }

        /// Blank space between a slice's parts, as the RFC allows.
        mutating func skipBlanksInSlice() { skipBlanks() }

        /// An integer as RFC 9535 writes one: `0`, or an optional `-` and digits not
        /// starting with 0; never `-0`; within I-JSON's range.
        mutating func integer(optional: Bool) throws(JSONPathError) -> Int? {
            let start = at
            if peek == "-" { at += 1 }
            let digits = at
            while let c = peek, Self.isDigit(c) { at += 1 }
            if at == digits {
                guard at == start else { throw fail("expected digits after -") }
                if optional { return nil }
                throw fail("expected an integer")
            }
            var textView = String.UnicodeScalarView()
            textView.append(contentsOf: scalars[start ..< at])
            let text = String(textView)
            if scalars[digits] == "0", at - digits > 1 { at = start; throw fail("an integer does not start with 0") }
            if text == "-0" { at = start; throw fail("-0 is not an index") }
            guard let value = Int(text), abs(value) <= Self.largest else { at = start; throw fail("\(text) is beyond the exact integers (±2^53−1)") }
            return value
        }

        /// A quoted name with RFC 9535's escapes, at its opening quote.
        mutating func quoted() throws(JSONPathError) -> String {
            let quote = peek!
            at += 1
            var name = String.UnicodeScalarView()
            while true {
                guard let c = peek else { throw fail("the quoted name is not closed") }
                if c == quote {
                    at += 1
                    return String(name)
                }
                if c.value < 0x20 { throw fail("a control character must be escaped in a quoted name") }
                guard c == "\\" else {
                    name.append(c)
                    at += 1
                    continue
                }
                at += 1
                guard let e = peek else { throw fail("the quoted name is not closed") }
                at += 1
                switch e {
                case "b": name.append("\u{08}")
                case "f": name.append("\u{0C}")
                case "n": name.append("\n")
                case "r": name.append("\r")
                case "t": name.append("\t")
                case "/": name.append("/")
                case "\\": name.append("\\")
                case "'" where quote == "'": name.append("'")
                case "\"" where quote == "\"": name.append("\"")
                case "u": name.append(try unicodeEscape())
                default:
                    at -= 1
                    throw fail("\\\(e) is not an escape in a \(quote == "'" ? "single" : "double")-quoted name")
                }
            }
        }

        /// `XXXX` after `\u`, and a low surrogate's `\uXXXX` after a high one.
        mutating func unicodeEscape() throws(JSONPathError) -> Unicode.Scalar {
            let high = try hex4()
            if (0xDC00 ... 0xDFFF).contains(high) { throw fail("a low surrogate without a high one") }
            guard (0xD800 ... 0xDBFF).contains(high) else { return Unicode.Scalar(high)! }
            guard peek == "\\", peek(1) == "u" else { throw fail("a high surrogate without its low one") }
            at += 2
            let low = try hex4()
            guard (0xDC00 ... 0xDFFF).contains(low) else { throw fail("a high surrogate without its low one") }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
        }

        mutating func hex4() throws(JSONPathError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0 ..< 4 {
                guard let c = peek, let digit = Int(String(c), radix: 16) else { throw fail("expected four hex digits after \\u") }
                value = value * 16 + UInt32(digit)
                at += 1
            }
            return value
        }
    }
}

/// A path a manifest gave that is not a JSONPath this reader takes.
package struct JSONPathError: Error, Sendable, Equatable, CustomStringConvertible {
    package let path: String
    /// Code points from the start where reading stopped.
    package let offset: Int
    package let reason: String
    package var description: String { "\"\(path)\" is not a JSONPath Fetchlog reads (at character \(offset + 1): \(reason))" }
}
