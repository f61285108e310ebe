import FetchlogCore

/// `--format csv` (and the shell's `.mode csv`): the one CSV writer, RFC 4180 for every
/// character. Every output shape (`Renderer`: tables, records, messages) writes through it.
///
/// - A header row always comes first (the renderer's columns or labels).
/// - Every record, the last too, ends with CR LF (RFC 4180 §2.1), whatever the platform.
/// - A field is quoted when it holds a quote, a comma, a CR or an LF anywhere (alone or
///   together); when it begins or ends with a space or a tab (RFC 4180 §2.4 keeps spaces,
///   but spreadsheet imports and readers told to trim drop them unless quoted); and when it
///   is the only field of its record and empty (an empty line reads as no record at all to
///   Python's `csv` and to readers that skip blank lines). Quotes inside are doubled.
///
/// Decisions are made on UTF-8 bytes, never on `Character`s: CR LF is one `Character`, as is
/// a quote or a line break followed by a combining mark, so a test like `$0 == "\n"` misses
/// them and `replacingOccurrences(of: "\"", …)` leaves such a quote single.
enum CSVWriter {
    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

    /// One record: the fields, quoted as needed, joined by commas and ended by CR LF.
    static func record(_ fields: [String]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(fields.reduce(2) { $0 + $1.utf8.count + 3 })
        for (i, field) in fields.enumerated() {
            if i > 0 { out.append(comma) }
            append(field, alone: fields.count == 1, to: &out)
        }
        out.append(cr)
        out.append(lf)
        return String(decoding: out, as: UTF8.self)
    }

    /// A header and its rows.
    static func table(_ columns: [String], _ rows: [[String]]) -> String {
        record(columns) + rows.map(record).joined()
    }

    /// A JSON object as a header of its member names and one row of its values (strings as
    /// they are, anything else as canonical JSON text); any other value under `value`.
    static func object(_ json: JSONValue) -> String {
        guard case .object(let members) = json else { return record(["value"]) + record([json.canonicalText()]) }
        let cells = members.map { member -> String in
            if case .string(let s) = member.1 { return s }
            return member.1.canonicalText()
        }
        return record(members.map(\.0)) + record(cells)
    }

    /// True when `field` must be quoted to read back as itself (see the type's rules).
    static func needsQuotes(_ field: String, alone: Bool) -> Bool {
        let bytes = field.utf8
        guard let first = bytes.first, let last = bytes.last else { return alone }
        if first == space || first == tab || last == space || last == tab { return true }
        return bytes.contains { $0 == quote || $0 == comma || $0 == cr || $0 == lf }
    }

    private static func append(_ field: String, alone: Bool, to out: inout [UInt8]) {
        guard needsQuotes(field, alone: alone) else {
            out.append(contentsOf: field.utf8)
            return
        }
        out.append(quote)
        for byte in field.utf8 {
            if byte == quote { out.append(quote) }
            out.append(byte)
        }
        out.append(quote)
    }
}
