/// Plain text from the small HTML fragments the APIs send as descriptions (show
/// summaries, podcast descriptions, artist biographies). Not an HTML parser: it only
/// needs to be right for `<p>`, `<b>`, `<i>`, `<br />`, `<a href>` and entities, and to be
/// deterministic so views rebuilt from the log are byte-identical.
package enum HTMLText {
    /// Tags removed (block boundaries such as `<br>` and `<p>` become a space, inline tags
    /// nothing), entities decoded (unknown ones left as written), every run of whitespace
    /// (no-break spaces included) made one space, ends trimmed.
    package static func clean(_ html: String) -> String {
        let input = Array(html.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < input.count {
            let c = input[i]
            if c == "<", let end = tagEnd(input, from: i) {
                if isBlockBoundary(input, tagStart: i) { out.append(" ") }
                i = end
            } else if c == "&", let (decoded, end) = entity(input, from: i) {
                out.append(contentsOf: decoded.unicodeScalars)
                i = end
            } else {
                out.append(c)
                i += 1
            }
        }
        return collapseWhitespace(out)
    }

    /// The index just past the tag or comment starting at `start`, or nil when the `<` does
    /// not open one (as in "a < b") or is never closed.
    static func tagEnd(_ s: [Unicode.Scalar], from start: Int) -> Int? {
        guard start + 1 < s.count else { return nil }
        let next = s[start + 1]
        if next == "!", start + 3 < s.count, s[start + 2] == "-", s[start + 3] == "-" {
            var j = start + 4
            while j + 2 < s.count {
                if s[j] == "-", s[j + 1] == "-", s[j + 2] == ">" { return j + 3 }
                j += 1
            }
            return nil
        }
        guard next == "/" || next == "!" || next.properties.isAlphabetic else { return nil }
        var j = start + 1
        while j < s.count {
            if s[j] == ">" { return j + 1 }
            j += 1
        }
        return nil
    }

    static let blockTags: Set<String> = [
        "br", "p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th",
        "table", "blockquote", "hr", "section", "article", "header", "footer", "dd", "dt",
    ]

    static func isBlockBoundary(_ s: [Unicode.Scalar], tagStart: Int) -> Bool {
        var j = tagStart + 1
        if j < s.count, s[j] == "/" { j += 1 }
        var name = ""
        while j < s.count, s[j].properties.isAlphabetic || ("0" ... "9").contains(s[j]) {
            name.unicodeScalars.append(s[j])
            j += 1
        }
        return blockTags.contains(name.lowercased())
    }

    /// The text and the index past `&…;` at `start`, or nil when it is not a known entity.
    static func entity(_ s: [Unicode.Scalar], from start: Int) -> (String, Int)? {
        var j = start + 1
        var name = ""
        while j < s.count, j - start <= 32, s[j] != ";" {
            let c = s[j]
            guard c.properties.isAlphabetic || ("0" ... "9").contains(c) || c == "#" else { return nil }
            name.unicodeScalars.append(c)
            j += 1
        }
        guard j < s.count, s[j] == ";", !name.isEmpty else { return nil }
        if name.hasPrefix("#") {
            let digits = name.dropFirst()
            let code: UInt32?
            if digits.hasPrefix("x") || digits.hasPrefix("X") {
                code = UInt32(digits.dropFirst(), radix: 16)
            } else {
                code = UInt32(digits, radix: 10)
            }
            guard let code, code != 0, let scalar = Unicode.Scalar(code) else { return nil }
            return (String(Character(scalar)), j + 1)
        }
        guard let text = named[name] else { return nil }
        return (text, j + 1)
    }

    static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
        "hellip": "…", "mdash": "—", "ndash": "–", "rsquo": "’", "lsquo": "‘", "ldquo": "“", "rdquo": "”",
        "laquo": "«", "raquo": "»", "bull": "•", "middot": "·", "copy": "©", "reg": "®", "trade": "™",
        "deg": "°", "euro": "€", "pound": "£", "times": "×", "shy": "\u{AD}",
        "aacute": "á", "Aacute": "Á", "agrave": "à", "Agrave": "À", "acirc": "â", "Acirc": "Â",
        "auml": "ä", "Auml": "Ä", "aring": "å", "Aring": "Å", "atilde": "ã", "Atilde": "Ã",
        "aelig": "æ", "AElig": "Æ", "ccedil": "ç", "Ccedil": "Ç",
        "eacute": "é", "Eacute": "É", "egrave": "è", "Egrave": "È", "ecirc": "ê", "Ecirc": "Ê",
        "euml": "ë", "Euml": "Ë", "iacute": "í", "Iacute": "Í", "igrave": "ì", "Igrave": "Ì",
        "icirc": "î", "Icirc": "Î", "iuml": "ï", "Iuml": "Ï", "ntilde": "ñ", "Ntilde": "Ñ",
        "oacute": "ó", "Oacute": "Ó", "ograve": "ò", "Ograve": "Ò", "ocirc": "ô", "Ocirc": "Ô",
        "ouml": "ö", "Ouml": "Ö", "otilde": "õ", "Otilde": "Õ", "oslash": "ø", "Oslash": "Ø",
        "uacute": "ú", "Uacute": "Ú", "ugrave": "ù", "Ugrave": "Ù", "ucirc": "û", "Ucirc": "Û",
        "uuml": "ü", "Uuml": "Ü", "yacute": "ý", "Yacute": "Ý", "yuml": "ÿ", "szlig": "ß",
    ]

    static func collapseWhitespace(_ scalars: String.UnicodeScalarView) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for c in scalars {
            if c.properties.isWhitespace {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.append(c)
            }
        }
        return String(out)
    }
}
