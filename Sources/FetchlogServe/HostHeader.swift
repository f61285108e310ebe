/// A request's `Host` (RFC 9110 §7.2: `uri-host [ ":" port ]`), parsed strictly before the
/// host check compares its name: a lenient split at the first `:` read
/// `localhost:PORT@evil.example` as `localhost` and answered it. Only a bracketed IPv6
/// literal, or a name / IPv4 address of letters, digits, `.` and `-`, then an optional
/// `:` and 1 to 5 digits up to 65535, is a Host; anything else (userinfo, `@`, spaces,
/// `%`, a path, an empty or out-of-range port, two Host headers) is refused 400.
package struct HostHeader: Equatable, Sendable {
    /// Lower-cased, without brackets (`::1`, `localhost`, `127.0.0.1`).
    package let name: String
    package let port: Int?

    /// The Host as sent, or why it is not one (said after "Host '…' is malformed: ").
    package static func parse(_ authority: String) -> Result<HostHeader, Refusal> {
        let text = Substring(authority)
        guard !text.isEmpty else { return .failure(Refusal("it is empty")) }
        let nameEnd: Substring.Index
        let name: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return .failure(Refusal("its [ is not closed")) }
            name = text[text.index(after: text.startIndex)..<close]
            // An IPv6 literal: hex digits and colons (an IPv4 tail's dots too), nothing else.
            guard name.contains(":"), name.allSatisfy({ ($0.isASCII && $0.isHexDigit) || $0 == ":" || $0 == "." }) else {
                return .failure(Refusal("[\(name.prefix(60))] is not an IPv6 address"))
            }
            nameEnd = text.index(after: close)
        } else {
            nameEnd = text.firstIndex(of: ":") ?? text.endIndex
            name = text[..<nameEnd]
            guard !name.isEmpty else { return .failure(Refusal("it names no host")) }
            if let bad = name.first(where: { !(($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "." || $0 == "-") }) {
                return .failure(Refusal("it holds \(describe(bad)): a host is letters, digits, '.' and '-'"))
            }
        }
        return port(text[nameEnd...]).map { HostHeader(name: name.lowercased(), port: $0) }
    }

    /// What follows the name: nothing, or `:` and a port 0…65535 of 1 to 5 digits.
    private static func port(_ rest: Substring) -> Result<Int?, Refusal> {
        guard !rest.isEmpty else { return .success(nil) }
        guard rest.hasPrefix(":") else { return .failure(Refusal("'\(rest.prefix(40))' follows its host: only ':PORT' may")) }
        let digits = rest.dropFirst()
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(digits), port <= 65_535 else {
            return .failure(Refusal("its port '\(digits.prefix(40))' is not a port: give 0…65535"))
        }
        return .success(port)
    }

    private static func describe(_ character: Character) -> String {
        switch character {
        case " ": "a space"
        case "\t": "a tab"
        default: character.isASCII && !character.isWhitespace ? "'\(character)'" : "U+" + String(character.unicodeScalars.first!.value, radix: 16, uppercase: true)
        }
    }

    package struct Refusal: Error, Equatable, Sendable {
        package let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
