import Foundation

/// RFC 8288 `Link` headers: `<https://api.example/items?page=2>; rel="next", <…>; rel="last"`.
///
/// Read as the RFC writes them, not by splitting on commas: a target may hold commas
/// (`<…&fields=a,b>`) and so may a quoted parameter; a response may send several `Link`
/// lines, or one line that an HTTP layer joined from several with `, ` — the same list of
/// link-values either way. A link's relations are its first `rel` parameter (quoted or
/// not), a space-separated list (`rel="next last"`), compared ignoring case (RFC 8288 §3.3).
/// Targets are returned as written: resolving them (RFC 3986 §5, against the request's
/// URL) is the caller's part.
package enum LinkHeader {
    /// One link-value: its target as written and its relations, lowercased.
    package struct Link: Equatable {
        package let target: String
        package let relations: [String]
    }

    /// The target of the `next` relation, nil when there is none.
    package static func next(_ header: String) -> String? { target([header], relation: "next") }

    /// The target of the first link of `relation` across every `Link` line of a response,
    /// nil when there is none: a manifest's `links_next_key`.
    package static func target(_ lines: [String], relation: String) -> String? {
        let relation = relation.lowercased()
        return lines.lazy.flatMap(links).first { $0.relations.contains(relation) }?.target
    }

    /// The target of `relation` in one header value.
    package static func target(_ header: String, relation: String) -> String? { target([header], relation: relation) }

    /// Every link-value of one header value, in order. A malformed link-value is skipped up
    /// to the next one (a `,` before a `<`), so one bad link does not hide the others.
    package static func links(_ header: String) -> [Link] {
        let text = Array(header.unicodeScalars)
        var links: [Link] = []
        var i = 0
        func skipSpace() { while i < text.count, text[i] == " " || text[i] == "\t" { i += 1 } }
        /// To the next link-value: past a `,` (outside quotes and brackets) followed by `<`.
        func recover() {
            var quoted = false
            while i < text.count {
                let c = text[i]
                if quoted {
                    if c == "\\" { i += 1 } else if c == "\"" { quoted = false }
                } else if c == "\"" {
                    quoted = true
                } else if c == "," {
                    var j = i + 1
                    while j < text.count, text[j] == " " || text[j] == "\t" { j += 1 }
                    if j < text.count, text[j] == "<" { i = j; return }
                }
                i += 1
            }
        }
        while i < text.count {
            skipSpace()
            while i < text.count, text[i] == "," || text[i] == " " || text[i] == "\t" { i += 1 }
            guard i < text.count else { break }
            guard text[i] == "<" else { recover(); continue }
            // The target: everything up to `>` (a URI reference holds no `>`, but commas and
            // semicolons it may).
            guard let close = text[(i + 1)...].firstIndex(of: ">") else { break }
            let target = String(String.UnicodeScalarView(text[(i + 1) ..< close])).trimmingCharacters(in: .whitespaces)
            i = close + 1
            var relations: [String]?
            var malformed = false
            // Parameters: `; name[=value]`, the value a token or a quoted string.
            while true {
                skipSpace()
                guard i < text.count, text[i] == ";" else { break }
                i += 1
                skipSpace()
                var name = ""
                while i < text.count, !"=;, \t".unicodeScalars.contains(text[i]) { name.unicodeScalars.append(text[i]); i += 1 }
                skipSpace()
                var value = ""
                if i < text.count, text[i] == "=" {
                    i += 1
                    skipSpace()
                    if i < text.count, text[i] == "\"" {
                        i += 1
                        var closed = false
                        while i < text.count {
                            if text[i] == "\\", i + 1 < text.count { value.unicodeScalars.append(text[i + 1]); i += 2; continue }
                            if text[i] == "\"" { i += 1; closed = true; break }
                            value.unicodeScalars.append(text[i])
                            i += 1
                        }
                        if !closed { malformed = true }
                    } else {
                        while i < text.count, !";, \t".unicodeScalars.contains(text[i]) { value.unicodeScalars.append(text[i]); i += 1 }
                    }
                }
                // Only the first `rel` counts (RFC 8288 §3.3).
                if name.lowercased() == "rel", relations == nil {
                    relations = value.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
                }
            }
            skipSpace()
            if i < text.count, text[i] != "," { malformed = true }
            if malformed {
                recover()
                continue
            }
            links.append(Link(target: target, relations: relations ?? []))
        }
        return links
    }
}
