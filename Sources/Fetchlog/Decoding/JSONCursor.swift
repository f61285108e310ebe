/// A JSON value together with the path that reached it, so every conversion that fails can
/// name the exact field (`$.Brastlewark[3].age`) in its `DecodeError`.
///
/// Conversions are lenient where the recorded APIs are loose: an integer may arrive as a
/// number literal or a numeric string, a double as either too. `null` and a missing member
/// are the same thing to every `optional…` accessor. Unknown members are never looked at.
struct JSONCursor: Sendable {
    let value: JSONValue
    let path: String

    init(_ value: JSONValue, path: String = "$") {
        self.value = value
        self.path = path
    }

    // MARK: Navigation

    /// The path of member `key` below this one: `$.name`, or `$["viaplay:sections"]` for keys
    /// that are not plain identifiers.
    func childPath(_ key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy {
            ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "_"
        }
        if plain { return path + "." + key }
        var quoted = ""
        JSONValue.escape(key, into: &quoted)
        return path + "[" + quoted + "]"
    }

    /// The members of this object; anything else is a `DecodeError` here.
    func members() throws(DecodeError) -> [(String, JSONValue)] {
        guard case .object(let members) = value else { throw mismatch("an object") }
        return members
    }

    /// Member `key`, which must be present (it may still be `null`; the typed accessor decides).
    func field(_ key: String) throws(DecodeError) -> JSONCursor {
        guard let child = try members().first(where: { $0.0 == key })?.1 else {
            throw DecodeError(path: childPath(key), reason: "missing required field")
        }
        return JSONCursor(child, path: childPath(key))
    }

    /// Member `key`, or nil when it is missing or `null`.
    func optionalField(_ key: String) throws(DecodeError) -> JSONCursor? {
        guard let child = try members().first(where: { $0.0 == key })?.1, !child.isNull else { return nil }
        return JSONCursor(child, path: childPath(key))
    }

    /// The elements of this array, each with its `[i]` path.
    func elements() throws(DecodeError) -> [JSONCursor] {
        guard case .array(let items) = value else { throw mismatch("an array") }
        var result: [JSONCursor] = []
        result.reserveCapacity(items.count)
        for (i, item) in items.enumerated() { result.append(JSONCursor(item, path: "\(path)[\(i)]")) }
        return result
    }

    /// Decodes every element of this array with `decode`.
    func map<T>(_ decode: (JSONCursor) throws(DecodeError) -> T) throws(DecodeError) -> [T] {
        var result: [T] = []
        for element in try elements() { result.append(try decode(element)) }
        return result
    }

    /// Member `key` as an array decoded element by element; missing or `null` is an empty array.
    func optionalArray<T>(_ key: String, _ decode: (JSONCursor) throws(DecodeError) -> T) throws(DecodeError) -> [T] {
        guard let child = try optionalField(key) else { return [] }
        return try child.map(decode)
    }

    // MARK: Conversions of this value

    func string() throws(DecodeError) -> String {
        guard case .string(let s) = value else { throw mismatch("a string") }
        return s
    }

    /// A string, or a number's literal text (for APIs that mix the two, e.g. ids).
    func looseString() throws(DecodeError) -> String {
        switch value {
        case .string(let s): return s
        case .number(let n): return n
        default: throw mismatch("a string")
        }
    }

    func int() throws(DecodeError) -> Int {
        if let n = lenientInt() { return n }
        throw mismatch("an integer")
    }

    func double() throws(DecodeError) -> Double {
        if let d = lenientDouble() { return d }
        throw mismatch("a number")
    }

    func bool() throws(DecodeError) -> Bool {
        switch value {
        case .bool(let b): return b
        case .string("true"): return true
        case .string("false"): return false
        default: throw mismatch("a boolean")
        }
    }

    /// An integer from a number literal (`7`, `7.0`) or a numeric string (`"7"`), else nil.
    func lenientInt() -> Int? {
        switch value {
        case .number: return value.intValue
        case .string(let s): return JSONValue.number(s.trimmedForDecoding()).intValue
        default: return nil
        }
    }

    /// A finite double from a number literal or a numeric string, else nil.
    func lenientDouble() -> Double? {
        let d: Double?
        switch value {
        case .number(let text): d = Double(text)
        case .string(let s): d = Double(s.trimmedForDecoding())
        default: d = nil
        }
        guard let d, d.isFinite else { return nil }
        return d
    }

    // MARK: Members by key

    func string(_ key: String) throws(DecodeError) -> String { try field(key).string() }
    func looseString(_ key: String) throws(DecodeError) -> String { try field(key).looseString() }
    func int(_ key: String) throws(DecodeError) -> Int { try field(key).int() }
    func double(_ key: String) throws(DecodeError) -> Double { try field(key).double() }

    func optionalString(_ key: String) throws(DecodeError) -> String? { try optionalField(key)?.string() }
    func optionalLooseString(_ key: String) throws(DecodeError) -> String? { try optionalField(key)?.looseString() }
    func optionalInt(_ key: String) throws(DecodeError) -> Int? { try optionalField(key)?.int() }
    func optionalDouble(_ key: String) throws(DecodeError) -> Double? { try optionalField(key)?.double() }
    func optionalBool(_ key: String) throws(DecodeError) -> Bool? { try optionalField(key)?.bool() }

    /// Member `key` as a list of strings; missing or `null` is an empty list.
    func stringArray(_ key: String) throws(DecodeError) -> [String] {
        try optionalArray(key) { element throws(DecodeError) in try element.string() }
    }

    // MARK: Errors

    /// "expected an integer, found string "abc"" at this path.
    func mismatch(_ expected: String) -> DecodeError {
        DecodeError(path: path, reason: "expected \(expected), found \(value.decodeErrorDescription)")
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
    func trimmedForDecoding() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) ?? first
        return String(scalars[first ... last])
    }
}
