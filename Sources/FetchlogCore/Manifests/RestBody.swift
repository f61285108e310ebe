/// A manifest resource's request body, as dlt's `endpoint.json` and `endpoint.data` give
/// it. It is sent as written (placeholders filled for a child), recorded in every event of
/// the request and part of its label: a body is never a secret (`env:` has no meaning here).
package enum RestBody: Sendable, Equatable {
    /// `json`: sent as JSON (`application/json`), its canonical text.
    case json(JSONValue)
    /// `data` as an object, or a list of `[name, value]` pairs (Python's list of tuples,
    /// written in JSON; a name may repeat): a form (`application/x-www-form-urlencoded`), in
    /// the order given. An empty one sends no body at all, as requests does.
    case form([(String, String)])
    /// `data` as a string: sent as it is, with no Content-Type, as Python's requests sends a
    /// `str` (a JSON text written as a string stays byte for byte what was written).
    case text(String)

    package static func == (a: RestBody, b: RestBody) -> Bool {
        switch (a, b) {
        case let (.json(x), .json(y)): x == y
        case let (.form(x), .form(y)): x.elementsEqual(y, by: ==)
        case let (.text(x), .text(y)): x == y
        default: false
        }
    }

    /// The endpoint key it was written under (for messages).
    var key: String { if case .json = self { "json" } else { "data" } }

    /// The Content-Type it is sent with; nil sends none.
    var contentType: String? {
        switch self {
        case .json: "application/json"
        case .form: "application/x-www-form-urlencoded"
        case .text: nil
        }
    }

    /// `endpoint.json` / `endpoint.data`, at most one of them (dlt refuses both).
    init?(json: ManifestReader?, data: ManifestReader?, at path: String) throws(ManifestError) {
        if json != nil, data != nil {
            throw ManifestError(path: path + ".data", message: "give json or data, not both (dlt cannot send both)")
        }
        for given in [json, data].compactMap({ $0 }) { try Self.refuseSecrets(given.json, at: given.path) }
        if let json {
            guard case .object = json.json else {
                throw ManifestError(path: json.path, message: "expected an object (the JSON body dlt sends)")
            }
            self = .json(json.json)
        } else if let data {
            switch data.json {
            case .string(let text): self = .text(text)
            case .object(let members):
                var form: [(String, String)] = []
                for (key, value) in members { form.append((key, try Self.field(value, at: data.path + "." + key))) }
                self = .form(form)
            case .array(let pairs):
                var form: [(String, String)] = []
                for (index, pair) in pairs.enumerated() {
                    guard case .array(let parts) = pair, parts.count == 2, case .string(let key) = parts[0] else {
                        throw ManifestError(path: data.path + "[\(index)]", message: "expected a [name, value] pair (a form field)")
                    }
                    form.append((key, try Self.field(parts[1], at: data.path + "[\(index)][1]")))
                }
                self = .form(form)
            default:
                throw ManifestError(path: data.path, message: "expected an object or a list of [name, value] pairs (a form), or a string (sent as it is)")
            }
        } else {
            return nil
        }
    }

    /// Refuses an `env:` secret in a body: a body is sent as written and recorded in every
    /// event of its requests (a replay needs it), so it is never read from the environment.
    private static func refuseSecrets(_ value: JSONValue, at path: String) throws(ManifestError) {
        switch value {
        case .string(let text) where text.hasPrefix("env:"):
            throw ManifestError(path: path, message: "\"\(text)\": a request body is recorded in every event of its requests, so it never "
                + "holds a secret (env: is not read here); send credentials with client.auth or client.headers")
        case .array(let items):
            for (index, item) in items.enumerated() { try refuseSecrets(item, at: path + "[\(index)]") }
        case .object(let members):
            for (key, member) in members { try refuseSecrets(member, at: path + "." + key) }
        default: break
        }
    }

    /// A form field's value as Python's `str()` writes it, as requests encodes it.
    private static func field(_ value: JSONValue, at path: String) throws(ManifestError) -> String {
        switch value {
        case .string(let text): text
        case .number(let text): text
        case .bool(let flag): flag ? "True" : "False"
        default: throw ManifestError(path: path, message: "expected a string, a number or a boolean (a form field)")
        }
    }

    /// Every text a placeholder may sit in: keys and string values.
    var strings: [String] {
        switch self {
        case .json(let value): Self.strings(in: value)
        case .form(let fields): fields.flatMap { [$0.0, $0.1] }
        case .text(let text): [text]
        }
    }

    private static func strings(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): [text]
        case .array(let items): items.flatMap(strings(in:))
        case .object(let members): members.flatMap { [$0.0] + strings(in: $0.1) }
        default: []
        }
    }

    /// The body with `placeholder` (`{resources.PARENT.FIELD}`) filled from a parent item,
    /// as dlt expands it: in JSON a string that is the placeholder alone becomes the value
    /// itself, with its type; anywhere else the value's text (`text`) is put in its place.
    func filling(_ placeholder: String, with value: JSONValue, text: String) -> RestBody {
        func fill(_ json: JSONValue) -> JSONValue {
            switch json {
            case .string(let s) where s == placeholder: value
            case .string(let s): .string(s.replacingOccurrences(of: placeholder, with: text))
            case .array(let items): .array(items.map(fill))
            case .object(let members): .object(members.map { ($0.0.replacingOccurrences(of: placeholder, with: text), fill($0.1)) })
            default: json
            }
        }
        switch self {
        case .json(let body): return .json(fill(body))
        case .form(let fields):
            return .form(fields.map { ($0.0.replacingOccurrences(of: placeholder, with: text), $0.1.replacingOccurrences(of: placeholder, with: text)) })
        case .text(let body): return .text(body.replacingOccurrences(of: placeholder, with: text))
        }
    }

    /// The body's text as sent: JSON canonical (keys sorted), a form encoded, a text as it
    /// is. `written` (a paginator's values at their body paths: `cursor_body_path`,
    /// `page_body_path`, …) are set in the JSON body as dlt sets them — objects made on the
    /// way — into an empty one when there is no body.
    static func text(_ body: RestBody?, writing written: [([String], JSONValue)]) -> String? {
        switch body {
        case nil:
            guard !written.isEmpty else { return nil }
            return written.reduce(JSONValue.object([])) { setting($1.0[...], to: $1.1, in: $0) }.canonicalText()
        case .json(let json)?:
            return written.reduce(json) { setting($1.0[...], to: $1.1, in: $0) }.canonicalText()
        case .form(let fields)?:
            guard !fields.isEmpty else { return nil }
            return fields.map { formEscape($0.0) + "=" + formEscape($0.1) }.joined(separator: "&")
        case .text(let text)?:
            return text
        }
    }

    private static func setting(_ path: ArraySlice<String>, to value: JSONValue, in json: JSONValue) -> JSONValue {
        guard let key = path.first else { return value }
        var members: [(String, JSONValue)] = if case .object(let existing) = json { existing } else { [] }
        if let index = members.firstIndex(where: { $0.0 == key }) {
            members[index].1 = setting(path.dropFirst(), to: value, in: members[index].1)
        } else {
            members.append((key, setting(path.dropFirst(), to: value, in: .object([]))))
        }
        return .object(members)
    }

    /// `application/x-www-form-urlencoded` as Python's `urlencode` writes it: letters,
    /// digits and `_.-~` as they are, a space as `+`, every other byte `%XX`.
    static func formEscape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "): out += "+"
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
