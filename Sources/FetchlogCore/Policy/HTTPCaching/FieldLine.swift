/// One field line of an HTTP message: its name and value as received — the log's own
/// `Header`, so the caching rules read recorded headers as they are.
///
/// The caching rules read fields as an ordered list of lines, not a dictionary, because
/// order and repetition carry meaning: the first `Age` or `Expires` line wins, `Cache-Control`
/// lines add up, a 304 replaces stored lines by name and keeps the rest in place.
package typealias FieldLine = Header

extension Array where Element == FieldLine {
    /// The value of every line named `name` (field names are case-insensitive), in order.
    func fieldValues(_ name: String) -> [String] {
        filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// The first line named `name`: for singleton fields (`Date`, `Expires`, `Age`,
    /// `Last-Modified`, `ETag`), where RFC 9111 §4.2.1 lets a cache use the first occurrence.
    func firstFieldValue(_ name: String) -> String? {
        first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every member of a list field across all its lines (RFC 9110 §5.3: lines of a list
    /// field combine in order, as if joined by commas).
    func listMembers(_ name: String) -> [String] {
        fieldValues(name).flatMap(HTTPList.members)
    }

    func containsField(_ name: String) -> Bool {
        contains { $0.name.caseInsensitiveEquals(name) }
    }
}

/// RFC 9110 §5.6.1 lists (`#element`): members split at commas outside quoted strings,
/// optional whitespace around them dropped, empty members ignored (the grammar lets a
/// recipient skip them: `, *` is the list `*`).
enum HTTPList {
    static func members(_ value: String) -> [String] {
        var members: [String] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        for character in value {
            if inQuotes {
                current.append(character)
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inQuotes = false
                }
            } else if character == "," {
                members.append(current)
                current = ""
            } else {
                if character == "\"" { inQuotes = true }
                current.append(character)
            }
        }
        members.append(current)
        return members.map { $0.trimmingOWS() }.filter { !$0.isEmpty }
    }
}

extension String {
    /// Without leading and trailing optional whitespace (RFC 9110 §5.6.3: SP and HTAB only).
    func trimmingOWS() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }

    /// ASCII case-insensitive equality: field names, directive names and date words are
    /// ASCII, and this avoids building lowercased copies on every comparison.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in asciiLower(x) == asciiLower(y) }
    }

    /// Lowercased in ASCII only (field and directive names are tokens).
    var asciiLowercased: String {
        String(decoding: utf8.map(asciiLower), as: UTF8.self)
    }
}

private func asciiLower(_ byte: UInt8) -> UInt8 {
    (byte >= 65 && byte <= 90) ? byte + 32 : byte
}

/// RFC 9110 §5.6.2 `tchar`: what a token (a directive name, an unquoted argument) may hold.
func isTokenCharacter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0") ... UInt8(ascii: "9"), UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"):
        return true
    default:
        return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}
