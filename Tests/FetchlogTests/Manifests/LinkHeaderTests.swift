import FetchlogCore
import Testing

/// RFC 8288 `Link` values and RFC 3986 reference resolution, the parts `header_link`
/// paging is made of (`LinkPagingTests` runs them against a server and dlt).
@Suite struct LinkHeaderTests {
    @Test func linkValuesAreReadAsTheRFCWritesThem() {
        // A comma inside the target, and one between link-values.
        let comma = #"<https://a.example/x?page=2&fields=a,b>; rel="next", <https://a.example/x?page=9&fields=a,b>; rel="last""#
        #expect(LinkHeader.next(comma) == "https://a.example/x?page=2&fields=a,b")
        #expect(LinkHeader.target(comma, relation: "last") == "https://a.example/x?page=9&fields=a,b")
        // Two lines, or the same joined with ", ".
        let lines = [#"<https://a.example/x?page=1>; rel="first""#, #"<https://a.example/x?page=2>; rel="next""#]
        #expect(LinkHeader.target(lines, relation: "next") == "https://a.example/x?page=2")
        #expect(LinkHeader.next(lines.joined(separator: ", ")) == "https://a.example/x?page=2")
        // Unquoted, several relations, any case, other parameters around it, a quoted comma.
        #expect(LinkHeader.next("<b>; rel=next") == "b")
        #expect(LinkHeader.next(#"<b>; rel="prefetch NEXT""#) == "b")
        #expect(LinkHeader.next(#"<b>; title="a, b; c"; REL = "next"; type=text/html"#) == "b")
        // Only the first `rel` counts; a link without the relation is passed over.
        #expect(LinkHeader.next(#"<a>; rel="last"; rel="next", <b>; rel="next""#) == "b")
        #expect(LinkHeader.next(#"<a>; rel="last""#) == nil)
        // A malformed link-value does not hide the next one.
        #expect(LinkHeader.next(#"nonsense; rel=next, <b>; rel="next""#) == "b")
        #expect(LinkHeader.links(#"<a>; rel="next last""#).map(\.relations) == [["next", "last"]])
    }

    /// RFC 3986 §5.4's examples (base `http://a/b/c/d;p?q`), which Python's `urljoin` (dlt's) gives too.
    @Test func referencesResolveAsRFC3986Says() {
        let base = "http://a/b/c/d;p?q"
        let examples: [(String, String)] = [
            ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
            ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"), (";x", "http://a/b/c/;x"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"),
            ("../../g", "http://a/g"), ("../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."), ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"), ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"), ("g?y/./x", "http://a/b/c/g?y/./x"),
        ]
        for (reference, resolved) in examples {
            #expect(URLReference.resolve(reference, against: base) == resolved, "\(reference)")
        }
    }

    @Test func aLabelClimbsOutOfTheBaseWithinItsOrigin() {
        let base = "https://api.github.com/repos/acme/widgets"
        let label = URLReference.labelOutside("https://api.github.com/repositories/42/issues?page=2", base: base)
        #expect(label == "/../../../repositories/42/issues?page=2")
        #expect(Upstream.real.url(source: "github", path: label!, realBase: base) == "https://api.github.com/repositories/42/issues?page=2")
        // The origin's scheme, host and port decide: another of any is no label.
        #expect(URLReference.labelOutside("https://api.github.com:443/x", base: base) == "/../../../x")
        #expect(URLReference.labelOutside("http://api.github.com/x", base: base) == nil)
        #expect(URLReference.labelOutside("https://api.github.com.evil.example/x", base: base) == nil)
        #expect(URLReference.labelOutside("https://api.github.com:8443/x", base: base) == nil)
    }
}
