/// A position in a parsed body (`JSONTape`) from which the endpoint decoders read their
/// DTOs. Only what a DTO names is ever turned into Swift values; everything else stays bytes.
///
/// A cursor is the tape, the bytes and an index — no path. The path (`$.items[3].age`)
/// is worked out from the tape only when a `DecodeError` needs it, so a document that
/// decodes costs nothing for the errors it did not have.
///
/// Cursors point into buffers that live only for one `DocumentDecoder.decode` call; they
/// are never stored or sent anywhere.
///
/// Conversions are lenient where the recorded APIs are loose: an integer may arrive as a
/// number literal or a numeric string, a double as either too. `null` and a missing member
/// are the same thing to every `optional…` accessor. Unknown members are never looked at.
public struct JSONCursor {
    let bytes: UnsafeRawBufferPointer
    let entries: UnsafeBufferPointer<JSONTape.Entry>
    let index: Int

    init(bytes: UnsafeRawBufferPointer, entries: UnsafeBufferPointer<JSONTape.Entry>, index: Int = 0) {
        self.bytes = bytes
        self.entries = entries
        self.index = index
    }

    private var entry: JSONTape.Entry { entries[index] }
    private func at(_ index: Int) -> JSONCursor { JSONCursor(bytes: bytes, entries: entries, index: index) }

    /// True for `null`: an optional field's way of saying "none".
    public var isNull: Bool { entry.kind == .null }
    /// True for a string, for DTOs whose field is a string or something else.
    package var isString: Bool { entry.kind == .string }
    /// True for an object, for DTOs whose field is an object or something else.
    package var isObject: Bool { entry.kind == .object }

    /// The value here as a tree (for callers that need all of it; decoders seldom do).
    public var value: JSONValue { JSONTape.value(at: index, entries, bytes) }

    // MARK: Paths, built only for errors

    /// Where this value sits: `$`, `$.name`, `$["ns:sections"][2]`.
    package var path: String {
        var path = "$"
        var container = 0
        descent: while container != index {
            let parent = entries[container]
            guard parent.kind == .object || parent.kind == .array else { break }
            var child = container + 1
            var position = 0
            while child < Int(parent.a) {
                let valueIndex = parent.kind == .object ? child + 1 : child
                let end = JSONTape.next(entries, after: valueIndex)
                if index >= valueIndex, index < end {
                    if parent.kind == .object {
                        path = JSONCursor.path(path, member: JSONTape.string(entries[child], in: bytes))
                    } else {
                        path += "[\(position)]"
                    }
                    container = valueIndex
                    continue descent
                }
                child = end
                position += 1
            }
            break
        }
        return path
    }

    /// `path` extended by member `key`: `.key` for plain identifiers, else `["key"]`.
    package static func path(_ path: String, member key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy {
            ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "_"
        }
        if plain { return path + "." + key }
        var quoted = ""
        JSONValue.escape(key, into: &quoted)
        return path + "[" + quoted + "]"
    }

    /// The path of member `key` below this one.
    package func childPath(_ key: String) -> String { JSONCursor.path(path, member: key) }

    // MARK: Navigation

    /// The value of member `key` (the last, if repeated: as Python's `json` reads it, and
    /// `JSONValue.parse`), or nil when absent. Names match by their UTF-8 bytes, as in
    /// `JSONValue` (`hasSameUTF8`): never by canonical equivalence.
    private func member(_ key: String) throws(DecodeError) -> JSONCursor? {
        let object = entry
        guard object.kind == .object else { throw mismatch("an object") }
        let end = Int(object.a)
        var key = key
        let found: Int? = key.withUTF8 { wanted in
            var child = index + 1
            var last: Int?
            while child < end {
                if keyMatches(entries[child], wanted) { last = child + 1 }
                child = JSONTape.next(entries, after: child + 1)
            }
            return last
        }
        return found.map(at)
    }

    @inline(__always)
    private func keyMatches(_ key: JSONTape.Entry, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        if key.escaped { return JSONTape.string(key, in: bytes).utf8.elementsEqual(wanted) }
        guard Int(key.b) == wanted.count else { return false }
        let start = Int(key.a)
        for i in 0 ..< wanted.count where bytes[start + i] != wanted[i] { return false }
        return true
    }

    /// Member `key`, which must be present (it may still be `null`; the typed accessor decides).
    public func field(_ key: String) throws(DecodeError) -> JSONCursor {
        guard let child = try member(key) else { throw DecodeError(path: childPath(key), reason: "missing required field") }
        return child
    }

    /// Member `key`, or nil when it is missing or `null`.
    public func optionalField(_ key: String) throws(DecodeError) -> JSONCursor? {
        guard let child = try member(key), !child.isNull else { return nil }
        return child
    }

    /// The elements of this array.
    public func elements() throws(DecodeError) -> [JSONCursor] {
        var result: [JSONCursor] = []
        try forEachElement { result.append($0) }
        return result
    }

    private func forEachElement(_ body: (JSONCursor) throws(DecodeError) -> Void) throws(DecodeError) {
        let array = entry
        guard array.kind == .array else { throw mismatch("an array") }
        var child = index + 1
        while child < Int(array.a) {
            try body(at(child))
            child = JSONTape.next(entries, after: child)
        }
    }

    /// Decodes every element of this array with `decode`.
    public func map<T>(_ decode: (JSONCursor) throws(DecodeError) -> T) throws(DecodeError) -> [T] {
        var result: [T] = []
        result.reserveCapacity(entry.kind == .array ? Int(entry.b) : 0)
        try forEachElement { (element) throws(DecodeError) in result.append(try decode(element)) }
        return result
    }

    /// Member `key` as an array decoded element by element; missing or `null` is an empty array.
    package func optionalArray<T>(_ key: String, _ decode: (JSONCursor) throws(DecodeError) -> T) throws(DecodeError) -> [T] {
        guard let child = try optionalField(key) else { return [] }
        return try child.map(decode)
    }

    // MARK: Conversions of this value

    /// The string here; a `DecodeError` naming this path for anything else.
    public func string() throws(DecodeError) -> String {
        guard entry.kind == .string else { throw mismatch("a string") }
        return JSONTape.string(entry, in: bytes)
    }

    /// A string, or a number's literal text (for APIs that mix the two, e.g. ids).
    package func looseString() throws(DecodeError) -> String {
        switch entry.kind {
        case .string: return JSONTape.string(entry, in: bytes)
        case .number: return JSONTape.numberText(entry, in: bytes)
        default: throw mismatch("a string")
        }
    }

    /// The integer here, from a number literal or a numeric string; else a `DecodeError` naming this path.
    public func int() throws(DecodeError) -> Int {
        if let n = lenientInt() { return n }
        throw mismatch("an integer")
    }

    /// The number here, from a number literal or a numeric string; else a `DecodeError` naming this path.
    public func double() throws(DecodeError) -> Double {
        if let d = lenientDouble() { return d }
        throw mismatch("a number")
    }

    /// The Boolean here (or the string `true`/`false`); else a `DecodeError` naming this path.
    public func bool() throws(DecodeError) -> Bool {
        switch entry.kind {
        case .true: return true
        case .false: return false
        case .string where !entry.escaped && entry.b == 4 && rawEquals("true"): return true
        case .string where !entry.escaped && entry.b == 5 && rawEquals("false"): return false
        case .string where entry.escaped:
            switch JSONTape.string(entry, in: bytes) {
            case "true": return true
            case "false": return false
            default: throw mismatch("a boolean")
            }
        default: throw mismatch("a boolean")
        }
    }

    private func rawEquals(_ text: StaticString) -> Bool {
        guard Int(entry.b) == text.utf8CodeUnitCount else { return false }
        for i in 0 ..< text.utf8CodeUnitCount where bytes[Int(entry.a) + i] != text.utf8Start[i] { return false }
        return true
    }

    /// An integer from a number literal (`7`, `7.0`) or a numeric string (`"7"`), else nil.
    package func lenientInt() -> Int? {
        switch entry.kind {
        case .number:
            if let n = JSONNumberScan.int(entry, bytes) { return n }
            return JSONValue.number(JSONTape.numberText(entry, in: bytes)).intValue
        case .string: return JSONValue.number(JSONTape.string(entry, in: bytes).trimmedForDecoding()).intValue
        default: return nil
        }
    }

    /// A finite double from a number literal or a numeric string, else nil.
    package func lenientDouble() -> Double? {
        let d: Double?
        switch entry.kind {
        case .number: d = JSONNumberScan.double(entry, bytes) ?? Double(JSONTape.numberText(entry, in: bytes))
        case .string: d = Double(JSONTape.string(entry, in: bytes).trimmedForDecoding())
        default: d = nil
        }
        guard let d, d.isFinite else { return nil }
        return d
    }

    // MARK: Members by key

    /// Member `key` as a string: `field(key).string()`.
    public func string(_ key: String) throws(DecodeError) -> String { try field(key).string() }
    /// Member `key` as a string or a number's text: `field(key).looseString()`.
    package func looseString(_ key: String) throws(DecodeError) -> String { try field(key).looseString() }
    /// Member `key` as an integer: `field(key).int()`.
    public func int(_ key: String) throws(DecodeError) -> Int { try field(key).int() }
    /// Member `key` as a number: `field(key).double()`.
    public func double(_ key: String) throws(DecodeError) -> Double { try field(key).double() }

    /// Member `key` as a string, or nil when it is missing or `null`.
    public func optionalString(_ key: String) throws(DecodeError) -> String? { try optionalField(key)?.string() }
    package func optionalLooseString(_ key: String) throws(DecodeError) -> String? { try optionalField(key)?.looseString() }
    /// Member `key` as an integer, or nil when it is missing or `null`.
    public func optionalInt(_ key: String) throws(DecodeError) -> Int? { try optionalField(key)?.int() }
    /// Member `key` as a number, or nil when it is missing or `null`.
    package func optionalDouble(_ key: String) throws(DecodeError) -> Double? { try optionalField(key)?.double() }
    /// Member `key` as a Boolean, or nil when it is missing or `null`.
    package func optionalBool(_ key: String) throws(DecodeError) -> Bool? { try optionalField(key)?.bool() }

    /// Member `key` as a list of strings; missing or `null` is an empty list.
    package func stringArray(_ key: String) throws(DecodeError) -> [String] {
        try optionalArray(key) { element throws(DecodeError) in try element.string() }
    }

    // MARK: Errors

    /// "expected an integer, found string "abc"" at this path.
    package func mismatch(_ expected: String) -> DecodeError {
        let found: String
        switch entry.kind {
        case .array: found = "an array of \(entry.b)"
        case .object: found = "an object"
        default: found = value.decodeErrorDescription
        }
        return DecodeError(path: path, reason: "expected \(expected), found \(found)")
    }
}

/// Fast conversions of the common number literals, straight from the bytes. Each returns
/// nil when the literal is outside its exact fast case; the caller then takes the general
/// (slower, equally exact) route.
enum JSONNumberScan {
    /// `-?[0-9]{1,18}`: always fits an `Int`.
    @inline(__always)
    static func int(_ entry: JSONTape.Entry, _ bytes: UnsafeRawBufferPointer) -> Int? {
        var i = Int(entry.a)
        let end = i + Int(entry.b)
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard end - i <= 18 else { return nil }
        var value = 0
        while i < end {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int(digit)
            i += 1
        }
        return negative ? -value : value
    }

    private static let powersOfTen: [Double] = (0 ... 22).map { exponent in
        var p = 1.0
        for _ in 0 ..< exponent { p *= 10 }
        return p
    }

    /// `-?digits(.digits)?` with at most 15 digits in all: the digits as an integer are exact
    /// in a `Double`, so is 10^k for k ≤ 22, and one IEEE division rounds correctly — the
    /// same double `strtod` gives.
    @inline(__always)
    static func double(_ entry: JSONTape.Entry, _ bytes: UnsafeRawBufferPointer) -> Double? {
        var i = Int(entry.a)
        let end = i + Int(entry.b)
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa: UInt64 = 0
        var digitCount = 0
        var fractionDigits = 0
        var inFraction = false
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { return nil } // an exponent: general route
                mantissa = mantissa &* 10 &+ UInt64(digit)
                digitCount += 1
                if inFraction { fractionDigits += 1 }
            }
            i += 1
        }
        guard digitCount <= 15 else { return nil }
        let magnitude = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -magnitude : magnitude
    }
}

extension JSONValue {
    /// What a value is, briefly, for error messages.
    var decodeErrorDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return "number \(n)"
        case .string(let s):
            var quoted = ""
            JSONValue.escape(s.count > 40 ? String(s.prefix(40)) + "…" : s, into: &quoted)
            return "string \(quoted)"
        case .array(let items): return "an array of \(items.count)"
        case .object: return "an object"
        }
    }
}

extension String {
    /// The string without leading and trailing whitespace (no Foundation needed).
    package func trimmedForDecoding() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) ?? first
        return String(scalars[first ... last])
    }
}
