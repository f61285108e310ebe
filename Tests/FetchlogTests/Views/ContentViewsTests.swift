import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Pages, sections and search views over the recorded Viaplay, Thmanyah and TVmaze bodies.
@Suite("ContentViews")
struct ContentViewsTests {
    static let serier = Resource.viaplayPage("/ios-se/serier")!
    static let samtliga = Resource.viaplayPage("/pc-se/serier/samtliga")!

    static func viaplayState() throws -> LogState {
        var b = StateBuilder()
        // Fetched out of path order: the view sorts.
        try b.fetched(samtliga, fixture: "viaplay/pc-se-serier-samtliga-category.json")
        try b.fetched(.viaplayRoot, fixture: "viaplay/ios-se-root-2022.json")
        try b.fetched(serier, fixture: "viaplay/androidv2-se-serier-section-2016.json")
        // Not a viaplay page: must not show up.
        try b.fetched(.thmanyahHome(1), fixture: "thmanyah/home-sections-page-1.json")
        return b.state
    }

    /// Page 2 in page 1's shape: an unknown type, an unknown content type, a "big square"
    /// spelled with a space, `order` 0 (before everything) and two sections colliding with
    /// page 1's order 2 (they must follow it, in document order).
    static let page2 = """
    {"sections":[
     {"name":"Zeta Mix","type":"carousel_3d","content_type":"podcast","order":2,
      "content":[{"podcast_id":"p9","name":"Nine","description":"One<br>Two <a href=\\"https://x.example\\">link</a> &amp; more",
                  "avatar_url":"https://img.example/9.jpg","episode_count":3,"duration":60}]},
     {"name":"Live Now","type":"big square","content_type":"live_stream","order":0,
      "content":[{"podcast_id":"live1","name":"Live","author_name":"Desk"},{"podcast_id":"live1","name":"Live again"}]},
     {"name":"Alpha Queue","type":"queue","content_type":"episode","order":2,"content":[]}
    ],"pagination":{"next_page":"/home_sections?page=3","total_pages":10}}
    """

    static func thmanyahState(page1: Bool = true) throws -> LogState {
        var b = StateBuilder()
        b.fetched(.thmanyahHome(2), body: Array(page2.utf8))
        if page1 { try b.fetched(.thmanyahHome(1), fixture: "thmanyah/home-sections-page-1.json") }
        return b.state
    }

    static func searchState() throws -> LogState {
        var b = StateBuilder()
        try b.fetched(.tvmazeSearch("girls"), fixture: "tvmaze/search-shows-q-girls.json")
        try b.fetched(.thmanyahSearch("lorem"), fixture: "thmanyah/search-response-fragment.json")
        // Escaped query texts decode back: `%20`/`%26` and a form-encoded `+`.
        try b.fetched(.tvmazeSearch("girls & boys"), fixture: "tvmaze/search-shows-q-girls.json")
        try b.fetched(Resource(source: .tvmaze, path: "/search/shows?q=new+girl", document: .tvmazeSearch),
                      fixture: "tvmaze/search-shows-q-girls.json")
        try b.fetched(.thmanyahHome(1), fixture: "thmanyah/home-sections-page-1.json")
        return b.state
    }

    // MARK: pages

    @Test func pagesRootSections() async throws {
        let view = PagesView(state: try Self.viaplayState())
        let root = try #require(view.root)
        #expect(root.path == "/ios-se")
        #expect(root.pageType == "root")
        #expect(root.title == "Viaplay - Streama TV, Serier, Film och Sport online")
        #expect(root.sections.map(\.title) == ["Serier", "Filmer", "Sport", "Barn"])
        #expect(root.sections[0].href == "https://content.viaplay.se/ios-se/serier")
        #expect(root.blocks.count == 0)
        #expect(root.nextHref == nil)
        let first = PagesView.json(root).canonicalText()
        #expect(first.contains(#""sections":[{"href":"https://content.viaplay.se/ios-se/serier","id":"35bb8a90-d40e-11e2-8b8b-0800200c9a66","name":"series","title":"Serier","type":"vod"},"#))
    }

    @Test func pagesSectionPageBlocks() async throws {
        let page = try #require(PagesView(state: try Self.viaplayState()).page(path: "/ios-se/serier"))
        #expect(page.pageType == "section")
        #expect(page.blocks.count == 10)
        #expect(page.blocks.map(\.products.count).prefix(3) == [10, 9, 0])
        #expect(page.blocks[0].title == "Aktuella serier")
        #expect(page.blocks[0].totalProductCount == 57)
        #expect(page.blocks[0].pageCount == 6)
        #expect(page.blocks[1].products.map(\.title).prefix(3) == ["Maria Wern", "Unni Lindell", "Johan Falk"])
        let xfiles = page.blocks[0].products[0]
        #expect(xfiles.title == "The X-Files")
        #expect(xfiles.year == 1993)
        #expect(xfiles.href == "https://content.viaplay.se/androidv2-se/serier/x-files-the")
        // Ten blocks, none of them the page's only one, and no `_links.next`.
        #expect(page.nextHref == nil)
    }

    @Test func pagesCategoryPage() async throws {
        let page = try #require(PagesView(state: try Self.viaplayState()).page(path: "/pc-se/serier/samtliga"))
        #expect(page.pageType == "category")
        #expect(page.blocks.count == 1)
        let block = page.blocks[0]
        #expect(block.id == "6dd481845f73b596b7a95456c2d918e0")
        #expect(block.totalProductCount == 602)
        #expect(block.pageCount == 61)
        #expect(block.products.count == 10)
        #expect(block.products.first?.title == "2 1/2 män")
        #expect(block.products.last?.title == "The Equalizer")
        #expect(page.nextHref == "https://content.viaplay.se/pc-se/serier/samtliga?blockId=6dd481845f73b596b7a95456c2d918e0&partial=1&pageNumber=2")
        #expect(PagesView.json(block).canonicalText().hasPrefix(
            #"{"id":"6dd481845f73b596b7a95456c2d918e0","pageCount":61,"products":[{"href":"https://content.viaplay.se/pc-se/serier/2-12-man","synopsis":"Charlie har mycket pengar"#))
    }

    @Test func pagesOrderAndExport() async throws {
        let state = try Self.viaplayState()
        let view = PagesView(state: state)
        #expect(view.pages.map(\.path) == ["/ios-se", "/ios-se/serier", "/pc-se/serier/samtliga"])
        #expect(view.page(path: "/ios-se/film") == nil)
        #expect(PagesView(state: LogState(sources: .seed)).root == nil)
        let export = view.export(asOf: state.seq)
        #expect(export["view"] == .string("pages"))
        #expect(export["asOf"] == .number(4))
        #expect(export["count"] == .number(3))
        let check = try await validate(export, schema: "pages")
        #expect(check.ok, "\(check.output)")
    }

    // MARK: sections

    @Test func sectionsMergedOrder() async throws {
        let view = SectionsView(state: try Self.thmanyahState())
        #expect(view.sections.map(\.name) == [
            "Live Now", "Top Podcasts", "Trending Episodes", "Zeta Mix", "Alpha Queue", "Bestselling Audiobooks",
            "Must-Read Audio Articles", "New Podcasts", "Editor's Pick Episodes", "Popular in Audiobooks",
        ])
        #expect(view.sections.map(\.order) == [0, 1, 2, 2, 2, 3, 4, 5, 6, 7])
        #expect(view.sections.map { $0.page ?? -1 } == [2, 1, 1, 2, 2, 1, 1, 1, 1, 1])
        #expect(view.sections.map(\.items.count) == [2, 9, 10, 1, 0, 6, 5, 9, 10, 6])
        #expect(view.pages == [1, 2])
        #expect(view.totalPages == 10)
    }

    @Test func sectionsUnknownsKeptWithRawNames() async throws {
        let view = SectionsView(state: try Self.thmanyahState())
        let zeta = try #require(view.section(named: "Zeta Mix"))
        #expect(zeta.type == .unknown("carousel_3d"))
        #expect(SectionsView.json(zeta).canonicalText() == #"{"contentType":"podcast","items":[{"authorName":null,"avatarURL":"https://img.example/9.jpg","description":"One Two link & more","duration":60,"episodeCount":3,"id":"p9","name":"Nine","releaseDate":null}],"name":"Zeta Mix","order":2,"page":2,"rawContentType":null,"rawType":"carousel_3d","type":"unknown"}"#)
        let live = try #require(view.section(named: "Live Now"))
        // "big square" normalises; the unknown content type keeps its raw name.
        let (type, rawType) = SectionsView.typeNames(live.type)
        #expect(type == "big_square" && rawType == nil)
        #expect(SectionsView.json(live)["rawContentType"] == .string("live_stream"))
        #expect(SectionsView.json(live)["contentType"] == .string("unknown"))
        #expect(SectionsView.json(try #require(view.section(named: "Editor's Pick Episodes")))["type"] == .string("big_square"))
        #expect(view.section(named: "top podcasts") == nil)
    }

    @Test func sectionsItemsNotDedupedAndCleaned() async throws {
        let view = SectionsView(state: try Self.thmanyahState())
        let books = try #require(view.section(named: "Bestselling Audiobooks"))
        #expect(books.items.map(\.id) == Array(repeating: "audiobook_001", count: 6))
        #expect(try #require(view.section(named: "Live Now")).items.map(\.name) == ["Live", "Live again"])
        let episode = try #require(view.section(named: "Trending Episodes")).items[0]
        #expect(episode.description == "NPR News: 07-23-2024 4PM EDT Learn more about sponsor message choices: podcastchoices.com/adchoices NPR Privacy Policy")
        #expect(episode.releaseDate == "2024-07-23T20:00:00.000Z")
        #expect(episode.duration == 300)
        let podcast = try #require(view.section(named: "Top Podcasts")).items[0]
        #expect(podcast.id == "1057255460")
        #expect(podcast.episodeCount == 1750)
        #expect(podcast.description?.contains("Every afternoon. Political wonks") == true)
    }

    @Test func sectionsExportAndPageCounts() async throws {
        let state = try Self.thmanyahState()
        let export = SectionsView(state: state).export(asOf: state.seq)
        #expect(export["count"] == .number(10))
        #expect(export["pagesHeld"] == .number(2))
        #expect(export["totalPages"] == .number(10))
        let check = try await validate(export, schema: "sections")
        #expect(check.ok, "\(check.output)")
        // Without page 1 there is no total to report.
        let only2 = SectionsView(state: try Self.thmanyahState(page1: false))
        let members = only2.export(asOf: 1)
        #expect(members["totalPages"] == .null)
        #expect(members["pagesHeld"] == .number(1))
        #expect(only2.sections.map(\.name) == ["Live Now", "Zeta Mix", "Alpha Queue"])
    }

    @Test func sectionsPageNumberParsing() {
        #expect(SectionsView.pageNumber("/home_sections?page=12") == 12)
        #expect(SectionsView.pageNumber("/home_sections?x=1&page=3") == 3)
        #expect(SectionsView.pageNumber("/home_sections?page=two") == nil)
        #expect(SectionsView.pageNumber("/m1/735111-711675-default/search?q=page=1") == nil)
    }

    // MARK: search

    @Test func searchThmanyahLenientSections() async throws {
        let view = SearchView(state: try Self.searchState())
        #expect(view.podcastSearches.map(\.query) == ["lorem"])
        let lorem = try #require(view.podcasts("  LOREM "))
        #expect(lorem.sections.count == 1)
        #expect(JSONValue.object(SectionsView.sectionMembers(lorem.sections[0])).canonicalText() == #"{"contentType":"unknown","items":[{"authorName":null,"avatarURL":"https://avatars.githubusercontent.com/u/43593236","description":"The Football Is Good","duration":97505,"episodeCount":51,"id":"53904ec7-2bbf-4fde-ba5a-d7a2c4409995","name":"Handmade Frozen Hat","releaseDate":null}],"name":"U","order":1,"rawContentType":"qui eu dolor in","rawType":"sed ut commodo velit","type":"unknown"}"#)
        #expect(view.podcasts("lore") == nil)
    }

    @Test func searchTVmazeResults() async throws {
        let view = SearchView(state: try Self.searchState())
        let girls = try #require(view.shows(" Girls "))
        #expect(girls.query == "girls")
        #expect(girls.results.count == 10)
        #expect(girls.results[0].name == "Girls" && girls.results[0].id == 139 && girls.results[0].score == 0.90710676)
        #expect(SearchView.json(girls.results[0]).canonicalText() == #"{"id":139,"image":"https://static.tvmaze.com/uploads/images/medium_portrait/31/78286.jpg","name":"Girls","premiereYear":2012,"rating":6.6,"score":0.90710676,"summary":"This Emmy winning series is a comic look at the assorted humiliations and rare triumphs of a group of girls in their 20s."}"#)
        let paper = girls.results[6]
        #expect(paper.name == "Paper Girls" && paper.image == nil && paper.premiereYear == nil)
        let caps = girls.results[1]
        #expect(caps.name == "GIRLS" && caps.summary == nil && caps.rating == nil)
        #expect(SearchView.json(caps)["summary"] == .null)
        #expect(girls.results[8].summary == "Meet Barbara, Els, Toos & Milly... Together they form the perfect circle of friends and live in their home in Scheveningen. The scripts are based on original American screenplays, but have been rewritten into Dutch and the year 2012.")
        #expect(view.shows("girl") == nil)
    }

    @Test func searchQueriesDecodedAndSorted() async throws {
        let state = try Self.searchState()
        let view = SearchView(state: state)
        #expect(view.showSearches.map(\.query) == ["girls", "girls & boys", "new girl"])
        #expect(view.shows("GIRLS & BOYS")?.path == "/search/shows?q=girls%20%26%20boys")
        #expect(SearchView.query("/search/shows?q=a%2Bb&page=2", prefix: SearchView.tvmazePrefix) == "a+b")
        #expect(SearchView.query("/shows?page=1", prefix: SearchView.tvmazePrefix) == nil)
        let export = view.export(asOf: state.seq)
        #expect(export["thmanyah"]?.arrayValue?.map { $0["query"] } == [.string("lorem")])
        #expect(export["tvmaze"]?.arrayValue?.map { $0["results"]?.arrayValue?.count } == [10, 10, 10])
        let check = try await validate(export, schema: "search")
        #expect(check.ok, "\(check.output)")
    }
}
