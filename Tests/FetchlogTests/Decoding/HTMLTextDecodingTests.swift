import Testing
@testable import FetchlogCore
@testable import FetchlogSources

@Suite struct HTMLTextDecodingTests {
    func summaries(_ file: String) throws -> [Int: String] {
        guard case .tvmazeShowsPage(let shows)? = (try DecodingFixtures.decode(.tvmazeShowsPage, file)) as? TVMazeDocument else {
            Issue.record("wrong case")
            return [:]
        }
        var result: [Int: String] = [:]
        for show in shows { result[show.id] = show.summaryHTML }
        return result
    }

    @Test func realTVMazeSummaries() throws {
        let page1 = try summaries("tvmaze/shows-page-1-2025-04-18.json")
        #expect(HTMLText.clean(try #require(page1[371]))
            == "Lines will be crossed when tragedy forces two men, an ex-con & a local cop, to face devastating secrets.")
        // `<br /><br />` between sentences becomes one space.
        #expect(HTMLText.clean(try #require(page1[461]))
            == "In a mythical land, one man, Richard Cypher, discovers his true destiny as he, a mysterious young woman, a wise old wizard and a magical sword are all that stand between the evil tyrant Darken Rahl and his quest for total domination. Based on The Sword of Truth series of books by Terry Goodkind.")
        // A raw no-break space next to a space collapses with it.
        #expect(HTMLText.clean(try #require(page1[394]))
            == "Drama following the lives of a group of midwives working in the poverty-stricken East End of London during the 1950s & decades following. Based on the best-selling memoirs of Jennifer Worth.")

        // `</p><p>` is a boundary; the trailing no-break space is trimmed.
        let page0 = try summaries("tvmaze/shows-page-0-2024.json")
        #expect(HTMLText.clean(try #require(page0[5]))
            == "Touch darkness and darkness touches you back. True Detective centers on troubled cops and the investigations that drive them to the edge. Each season features a new cast and a new case. True Detective is an American anthology crime drama television series created and written by Nic Pizzolatto.")
    }

    @Test func entities() {
        #expect(HTMLText.clean("Tom &amp; Jerry &lt;3 &quot;x&quot; &apos;y&apos; it&#39;s it&#x27;s") == "Tom & Jerry <3 \"x\" 'y' it's it's")
        #expect(HTMLText.clean("caf&eacute; &Eacute;t&eacute; wait&hellip; a&mdash;b a&ndash;b &lsquo;q&rsquo; &ldquo;q&rdquo;")
            == "café Été wait… a—b a–b ‘q’ “q”")
        #expect(HTMLText.clean("a&nbsp;&nbsp;b") == "a b")
        // Unknown or malformed entities stay as written.
        #expect(HTMLText.clean("AT&T &bogus; &#xZZ; & done") == "AT&T &bogus; &#xZZ; & done")
        // Entities never make tags.
        #expect(HTMLText.clean("&lt;b&gt;bold&lt;/b&gt;") == "<b>bold</b>")
    }

    @Test func tags() {
        #expect(HTMLText.clean("<p>one</p><p>two</p>") == "one two")
        #expect(HTMLText.clean("line<br>break<BR/>again") == "line break again")
        #expect(HTMLText.clean("in<b>line</b> <a href=\"https://x\">link</a>") == "inline link")
        #expect(HTMLText.clean("a < b and c > d") == "a < b and c > d")
        #expect(HTMLText.clean("x<!-- a > b -->y") == "xy")
        #expect(HTMLText.clean("unclosed <b") == "unclosed <b")
        #expect(HTMLText.clean("  \n\t ") == "")
        #expect(HTMLText.clean("") == "")
    }
}
