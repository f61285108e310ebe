/// The project's one JSON parser. It validates a text completely (grammar, escapes, UTF-8)
/// in a single pass and records its structure as a flat "tape" of entries — offsets into
/// the bytes, never copies — in the manner of simdjson. Nothing is allocated per value:
/// strings and numbers are read from the bytes only when a reader asks for them.
///
/// Two readers sit on it: `JSONValue.parse` (the whole tree, for small documents and
/// canonical output) and `JSONCursor` (the endpoint decoders, which read only the fields
/// their DTOs name — the hot path of replay).
///
/// Layout: values in document order; an object's entries are its members as key, value,
/// key, value…; a container's entry holds the index just past its last descendant, so a
/// reader skips a whole subtree in one step.
struct JSONTape: Sendable {
    enum Kind: UInt8, Sendable {
        case object, array, string, number, `true`, `false`, null
    }

    struct Entry: Sendable {
        var kind: Kind
        /// Strings only: the raw text holds at least one backslash escape.
        var escaped: Bool
        /// Containers: the index of the entry after the container's last descendant.
        /// Strings and numbers: the byte offset of the first byte (inside the quotes).
        var a: UInt32
        /// Containers: the number of elements or members. Strings and numbers: byte length.
        var b: UInt32
    }

    var entries: [Entry]

    /// Deepest nesting accepted; deeper input is refused rather than risking the stack.
    static let maximumDepth = 512

    /// Throws `JSONParseError` naming the byte offset and what was wrong there.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONTape {
        guard bytes.count < Int(UInt32.max) else { throw JSONParseError(offset: 0, reason: "text larger than 4 GiB") }
        var builder = TapeBuilder(bytes: bytes)
        builder.skipWhitespace()
        // A UTF-8 byte order mark is tolerated, as browsers and most parsers do.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { builder.index = 3 }
        try builder.value(depth: 0)
        builder.skipWhitespace()
        guard builder.index == bytes.count else { throw builder.fail("unexpected text after the value") }
        return JSONTape(entries: builder.entries)
    }
}

// MARK: Building

private struct TapeBuilder {
    let bytes: UnsafeRawBufferPointer
    var index = 0
    var entries: [JSONTape.Entry] = []

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        // Typical API bodies hold a value per 8–16 bytes; one reservation avoids most regrowth.
        entries.reserveCapacity(bytes.count / 8 + 16)
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    mutating func value(depth: Int) throws(JSONParseError) {
        guard depth < JSONTape.maximumDepth else { throw fail("nesting deeper than \(JSONTape.maximumDepth)") }
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try object(depth: depth)
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true", .true)
        case UInt8(ascii: "f"): try literal("false", .false)
        case UInt8(ascii: "n"): try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"): try number()
        default: throw fail("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    mutating func literal(_ word: StaticString, _ kind: JSONTape.Kind) throws(JSONParseError) {
        let start = index
        for i in 0 ..< word.utf8CodeUnitCount {
            guard index < bytes.count, bytes[index] == word.utf8Start[i] else { throw fail("expected \(word)") }
            index += 1
        }
        entries.append(.init(kind: kind, escaped: false, a: UInt32(start), b: UInt32(word.utf8CodeUnitCount)))
    }

    mutating func object(depth: Int) throws(JSONParseError) {
        let slot = entries.count
        entries.append(.init(kind: .object, escaped: false, a: 0, b: 0))
        index += 1
        var count: UInt32 = 0
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            entries[slot].a = UInt32(entries.count)
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            try value(depth: depth + 1)
            count += 1
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                entries[slot].a = UInt32(entries.count)
                entries[slot].b = count
                return
            }
            throw fail("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(JSONParseError) {
        let slot = entries.count
        entries.append(.init(kind: .array, escaped: false, a: 0, b: 0))
        index += 1
        var count: UInt32 = 0
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            entries[slot].a = UInt32(entries.count)
            return
        }
        while true {
            try value(depth: depth + 1)
            count += 1
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                entries[slot].a = UInt32(entries.count)
                entries[slot].b = count
                return
            }
            throw fail("expected ',' or ']'")
        }
    }

    @inline(__always)
    mutating func digits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        return index - start
    }

    mutating func number() throws(JSONParseError) {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw fail("unterminated number") }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else if digits() == 0 { throw fail("expected a digit") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw fail("expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw fail("expected a digit in the exponent") }
        }
        entries.append(.init(kind: .number, escaped: false, a: UInt32(start), b: UInt32(index - start)))
    }

    /// Scans a string eight bytes at a time until a quote, a backslash, a control character
    /// or the end is near; escapes and non-ASCII runs are checked as they are met.
    mutating func string() throws(JSONParseError) {
        index += 1
        let start = index
        var escaped = false
        var runStart = index
        var runHasHighBytes = false
        while true {
            // Eight bytes at a time up to the first quote, backslash or control byte.
            while index + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let attention = JSONTape.attention(word)
                if attention == 0 {
                    if word & 0x8080_8080_8080_8080 != 0 { runHasHighBytes = true }
                    index += 8
                    continue
                }
                // The lowest flagged byte is exact (little-endian: the first in the text).
                let plain = attention.trailingZeroBitCount / 8
                let before: UInt64 = plain == 0 ? 0 : (1 << UInt64(plain * 8)) &- 1
                if word & before & 0x8080_8080_8080_8080 != 0 { runHasHighBytes = true }
                index += plain
                break
            }
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try checkRun(from: runStart, hasHighBytes: runHasHighBytes)
                entries.append(.init(kind: .string, escaped: escaped, a: UInt32(start), b: UInt32(index - start)))
                index += 1
                return
            }
            if byte < 0x20 { throw fail("control character in a string") }
            if byte >= 0x80 { runHasHighBytes = true; index += 1; continue }
            if byte != UInt8(ascii: "\\") { index += 1; continue }
            try checkRun(from: runStart, hasHighBytes: runHasHighBytes)
            escaped = true
            try escape()
            runStart = index
            runHasHighBytes = false
        }
    }

    /// The bytes from `start` to `index` (no escapes among them) must be UTF-8.
    @inline(__always)
    func checkRun(from start: Int, hasHighBytes: Bool) throws(JSONParseError) {
        guard hasHighBytes, !JSONTape.isValidUTF8(bytes, start, index) else { return }
        throw JSONParseError(offset: start, reason: "invalid UTF-8 in a string")
    }

    /// Validates one escape sequence starting at the backslash and moves past it.
    mutating func escape() throws(JSONParseError) {
        index += 1
        guard index < bytes.count else { throw fail("unterminated escape") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return
        case UInt8(ascii: "u"):
            let code = try hex4()
            if (0xD800 ... 0xDBFF).contains(code) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fail("lone high surrogate")
                }
                index += 2
                guard (0xDC00 ... 0xDFFF).contains(try hex4()) else { throw fail("invalid low surrogate") }
            } else if (0xDC00 ... 0xDFFF).contains(code) {
                throw fail("invalid code point")
            }
        default:
            throw fail("invalid escape")
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0 ..< 4 {
            guard let digit = JSONTape.hexDigit(bytes[index]) else { throw fail("invalid hex digit") }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}

// MARK: Byte-level helpers

extension JSONTape {
    /// A mask with the high bit set in each byte of `word` that is a quote, a backslash
    /// or below 0x20, read as a little-endian load of the text (SWAR: a few integer
    /// operations test eight bytes). Bytes after a flagged one may be flagged falsely
    /// (a borrow runs upward), but the lowest flag is always exact, so the caller jumps
    /// straight to the first byte that needs a decision and decides it byte by byte.
    @inline(__always)
    static func attention(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
        let quote = zeroBytes(word ^ (ones &* 0x22))
        let backslash = zeroBytes(word ^ (ones &* 0x5C))
        let control = (word &- ones &* 0x20) & ~word & highs
        return quote | backslash | control
    }

    @inline(__always)
    static func hexDigit(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): UInt32(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): UInt32(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): UInt32(c - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// Well-formed UTF-8 per RFC 3629 / Unicode table 3-7: no overlong forms, no
    /// surrogates, nothing above U+10FFFF, no truncated sequence.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Bool {
        var i = start
        @inline(__always) func continuation(_ at: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            at < end && bytes[at] >= low && bytes[at] <= high
        }
        while i < end {
            let b = bytes[i]
            switch b {
            case 0x00 ... 0x7F: i += 1
            case 0xC2 ... 0xDF:
                guard continuation(i + 1) else { return false }
                i += 2
            case 0xE0:
                guard continuation(i + 1, 0xA0), continuation(i + 2) else { return false }
                i += 3
            case 0xE1 ... 0xEC, 0xEE ... 0xEF:
                guard continuation(i + 1), continuation(i + 2) else { return false }
                i += 3
            case 0xED:
                guard continuation(i + 1, 0x80, 0x9F), continuation(i + 2) else { return false }
                i += 3
            case 0xF0:
                guard continuation(i + 1, 0x90), continuation(i + 2), continuation(i + 3) else { return false }
                i += 4
            case 0xF1 ... 0xF3:
                guard continuation(i + 1), continuation(i + 2), continuation(i + 3) else { return false }
                i += 4
            case 0xF4:
                guard continuation(i + 1, 0x80, 0x8F), continuation(i + 2), continuation(i + 3) else { return false }
                i += 4
            default: return false
            }
        }
        return true
    }
}

// MARK: Reading

extension JSONTape {
    /// The index of the entry after `index`'s value (its whole subtree).
    @inline(__always)
    static func next(_ entries: UnsafeBufferPointer<Entry>, after index: Int) -> Int {
        let entry = entries[index]
        return entry.kind == .object || entry.kind == .array ? Int(entry.a) : index + 1
    }

    /// The text of string entry `entry`, escapes decoded. The tape was validated when built,
    /// so this cannot fail.
    static func string(_ entry: Entry, in bytes: UnsafeRawBufferPointer) -> String {
        let raw = UnsafeRawBufferPointer(rebasing: bytes[Int(entry.a) ..< Int(entry.a + entry.b)])
        guard entry.escaped else { return String(decoding: raw, as: UTF8.self) }
        // Every escape is at least as long as the UTF-8 it stands for.
        return String(unsafeUninitializedCapacity: raw.count) { out in
            var i = 0, n = 0
            func put(_ byte: UInt8) { out[n] = byte; n += 1 }
            func put(scalar code: UInt32) {
                switch code {
                case 0 ..< 0x80: put(UInt8(code))
                case 0x80 ..< 0x800:
                    put(UInt8(0xC0 | code >> 6)); put(UInt8(0x80 | code & 0x3F))
                case 0x800 ..< 0x10000:
                    put(UInt8(0xE0 | code >> 12)); put(UInt8(0x80 | code >> 6 & 0x3F)); put(UInt8(0x80 | code & 0x3F))
                default:
                    put(UInt8(0xF0 | code >> 18)); put(UInt8(0x80 | code >> 12 & 0x3F))
                    put(UInt8(0x80 | code >> 6 & 0x3F)); put(UInt8(0x80 | code & 0x3F))
                }
            }
            func hex4(_ at: Int) -> UInt32 {
                var value: UInt32 = 0
                for k in 0 ..< 4 { value = value << 4 | (hexDigit(raw[at + k]) ?? 0) }
                return value
            }
            while i < raw.count {
                let byte = raw[i]
                guard byte == UInt8(ascii: "\\") else { put(byte); i += 1; continue }
                let kind = raw[i + 1]
                i += 2
                switch kind {
                case UInt8(ascii: "b"): put(0x08)
                case UInt8(ascii: "f"): put(0x0C)
                case UInt8(ascii: "n"): put(0x0A)
                case UInt8(ascii: "r"): put(0x0D)
                case UInt8(ascii: "t"): put(0x09)
                case UInt8(ascii: "u"):
                    var code = hex4(i)
                    i += 4
                    if (0xD800 ... 0xDBFF).contains(code) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (hex4(i + 2) - 0xDC00)
                        i += 6
                    }
                    put(scalar: code)
                default: put(kind) // \" \\ \/
                }
            }
            return n
        }
    }

    /// The literal text of number entry `entry`.
    static func numberText(_ entry: Entry, in bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[Int(entry.a) ..< Int(entry.a + entry.b)]), as: UTF8.self)
    }

    /// The whole subtree at `index` as a `JSONValue`.
    static func value(at index: Int, _ entries: UnsafeBufferPointer<Entry>, _ bytes: UnsafeRawBufferPointer) -> JSONValue {
        let entry = entries[index]
        switch entry.kind {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .number: return .number(numberText(entry, in: bytes))
        case .string: return .string(string(entry, in: bytes))
        case .array:
            var items: [JSONValue] = []
            items.reserveCapacity(Int(entry.b))
            var i = index + 1
            while i < Int(entry.a) {
                items.append(value(at: i, entries, bytes))
                i = next(entries, after: i)
            }
            return .array(items)
        case .object:
            var members: [(String, JSONValue)] = []
            members.reserveCapacity(Int(entry.b))
            var i = index + 1
            while i < Int(entry.a) {
                members.append((string(entries[i], in: bytes), value(at: i + 1, entries, bytes)))
                i = next(entries, after: i + 1)
            }
            return .object(Self.lastValueWins(members))
        }
    }

    /// An object's members with each repeated name once, where it first stood, holding its
    /// last value: what Python's `json` (and so dlt) makes of `{"id":1,"id":2}`, and the
    /// member `JSONCursor` finds. A name is repeated when its UTF-8 bytes are: "é" (U+00E9)
    /// and "e\u{301}" are two members, as they are to Python and to `JSONCursor`
    /// (`String ==` and `Set<String>` would merge them by canonical equivalence).
    static func lastValueWins(_ members: [(String, JSONValue)]) -> [(String, JSONValue)] {
        guard members.count > 1 else { return members }
        var repeated = false
        if members.count <= 12 {
            // Small objects (nearly all): comparing names costs less than hashing them.
            search: for i in 1 ..< members.count {
                for j in 0 ..< i where members[j].0.hasSameUTF8(as: members[i].0) {
                    repeated = true
                    break search
                }
            }
        } else {
            var seen = Set<UTF8Key>(minimumCapacity: members.count)
            repeated = members.contains { !seen.insert(UTF8Key(text: $0.0)).inserted }
        }
        guard repeated else { return members }
        var kept: [(String, JSONValue)] = []
        var position: [UTF8Key: Int] = [:]
        for (name, value) in members {
            if let at = position[UTF8Key(text: name)] {
                kept[at].1 = value
            } else {
                position[UTF8Key(text: name)] = kept.count
                kept.append((name, value))
            }
        }
        return kept
    }
}
