import Testing
@testable import FetchlogCore
@testable import FetchlogSources

@Suite struct ThmanyahDecodingTests {
    func home(_ body: [UInt8]) throws -> ThmanyahHome? {
        guard case .thmanyahHome(let home)? = (try SeedSources.decode(.thmanyahHome, body: body)) as? ThmanyahDocument else {
            Issue.record("wrong case")
            return nil
        }
        return home
    }

    func search(_ body: [UInt8]) throws -> [ThmanyahSection]? {
        guard case .thmanyahSearch(let sections)? = (try SeedSources.decode(.thmanyahSearch, body: body)) as? ThmanyahDocument else {
            Issue.record("wrong case")
            return nil
        }
        return sections
    }

    @Test func homePageOne() throws {
        let page = try #require(try home(try DecodingFixtures.bytes("thmanyah/home-sections-page-1.json")))
        #expect(page.nextPage == "/home_sections?page=2")
        #expect(page.totalPages == 10)
        #expect(page.sections.map(\.name) == ["Top Podcasts", "Trending Episodes", "Bestselling Audiobooks",
                                               "Must-Read Audio Articles", "New Podcasts", "Editor's Pick Episodes",
                                               "Popular in Audiobooks"])
        #expect(page.sections.map(\.order) == [1, 2, 3, 4, 5, 6, 7])
        // "big_square" and "big square" are the same type.
        #expect(page.sections.map(\.type) == [.square, .twoLinesGrid, .bigSquare, .square, .queue, .bigSquare, .twoLinesGrid])
        #expect(page.sections.map(\.contentType) == [.podcast, .episode, .audioBook, .audioArticle, .podcast, .episode, .audioBook])
        #expect(page.sections.map(\.content.count) == [9, 10, 6, 5, 9, 10, 6])
        #expect(page.sections[0].content.map(\.id) == ["1057255460", "1612459752", "1517151870", "33223131", "121493675",
                                                       "1503226625", "1079968336", "1699617130", "1222114325"])

        let podcast = page.sections[0].content[0]
        #expect(podcast.name == "The NPR Politics Podcast")
        #expect(podcast.episodeCount == 1750)
        #expect(podcast.duration == 2_037_728)
        #expect(podcast.score == 219.2822)
        #expect(podcast.language == "en")
        #expect(podcast.podcastID == nil)
        #expect(page.sections[0].content[3].language == nil) // one podcast has no language
        #expect(HTMLText.clean(podcast.descriptionHTML ?? "") == "Every weekday, NPR's best political reporters are there to explain the big news coming out of Washington and the campaign trail. They don't just tell you what happened. They tell you why it matters. Every afternoon. Political wonks - get wonkier with The NPR Politics Podcast+. Your subscription supports the podcast and unlocks a sponsor-free feed. Learn more at plus.npr.org/politics")

        // Episodes carry both episode_id and podcast_id: the id is the episode's.
        let episode = page.sections[1].content[0]
        #expect(episode.id == "4bd398b5-9619-5806-81b6-613154f79044")
        #expect(episode.podcastID == "121493675")
        #expect(episode.podcastName == "NPR News Now")
        #expect(episode.authorName == "")
        #expect(episode.duration == 300)
        #expect(episode.releaseDate == "2024-07-23T20:00:00.000Z")
        #expect(episode.score == 214.18567)
        #expect(episode.episodeCount == nil)

        #expect(page.sections[2].content[0] == ThmanyahItem(
            id: "audiobook_001", name: "The Art of War",
            descriptionHTML: "An ancient military text on strategy and tactics.",
            avatarURL: "https://i.scdn.co/image/ab67616d00001e02ff9ca10b55ce82ae553c8228",
            duration: 36000, releaseDate: "2023-01-10T08:00:00Z", authorName: "Sun Tzu", score: 500, language: "en"))
        // The recorded ids repeat within a section.
        #expect(Set(page.sections[2].content.map(\.id)) == ["audiobook_001"])
        #expect(Set(page.sections[3].content.map(\.id)) == ["article_001"])
    }

    /// A second capture of the same page sends each section's items in another order (and the
    /// mock's members in any order): it must decode to the same items.
    @Test func itemsInAnotherOrderDecodeAlike() throws {
        let original = try DecodingFixtures.bytes("thmanyah/home-sections-page-1.json")
        let parsed = try JSONValue.parse(bytes: original)
        guard case .object(var members) = parsed, let index = members.firstIndex(where: { $0.0 == "sections" }),
              case .array(let sections) = members[index].1 else {
            Issue.record("unexpected fixture shape")
            return
        }
        members[index].1 = .array(sections.map { section in
            guard case .object(var fields) = section, let c = fields.firstIndex(where: { $0.0 == "content" }),
                  case .array(let items) = fields[c].1 else { return section }
            fields[c].1 = .array(items.reversed())
            return .object(fields)
        })
        // Canonical text also sorts every object's members.
        let reordered = Array(JSONValue.object(members).canonicalText().utf8)
        let a = try #require(try home(original))
        let b = try #require(try home(reordered))
        #expect(a.sections.count == b.sections.count)
        for (x, y) in zip(a.sections, b.sections) {
            #expect(x.name == y.name && x.order == y.order && x.type == y.type && x.contentType == y.contentType)
            #expect(x.content == Array(y.content.reversed()))
        }
        #expect(b.sections[0].content.map(\.id).first == "1222114325")
    }

    @Test func searchFragmentWithLoremValues() throws {
        let sections = try #require(try search(try DecodingFixtures.bytes("thmanyah/search-response-fragment.json")))
        #expect(sections.count == 1)
        let s = sections[0]
        #expect(s.name == "U")
        #expect(s.type == .unknown("sed ut commodo velit"))
        #expect(s.contentType == .unknown("qui eu dolor in"))
        #expect(s.order == 1) // "tempor" is not a number: the section's position
        #expect(s.content == [ThmanyahItem(
            id: "53904ec7-2bbf-4fde-ba5a-d7a2c4409995", name: "Handmade Frozen Hat",
            descriptionHTML: "The Football Is Good", avatarURL: "https://avatars.githubusercontent.com/u/43593236",
            duration: 97505, episodeCount: 51, score: nil, language: "en")])
    }

    /// The shape the sample upstream answers: real items with every number as text.
    @Test func searchWithNumbersAsText() throws {
        let body = #"""
        {"sections":[{"name":"Top Podcasts","type":"square","content_type":"podcast","order":"2","content":[
          {"podcast_id":"1057255460","name":"The NPR Politics Podcast","episode_count":"1750","duration":"2037728","score":"219.2822"}]},
          {"name":"Trending Episodes","type":"2_lines_grid","content_type":"episode","order":"1","content":[
          {"episode_id":"e1","podcast_id":"p1","name":"Ep","duration":"300","score":"8.5","release_date":"2024-07-23T20:00:00.000Z"}]}]}
        """#
        let sections = try #require(try search(Array(body.utf8)))
        #expect(sections.map(\.order) == [2, 1])
        #expect(sections[0].content[0] == ThmanyahItem(id: "1057255460", name: "The NPR Politics Podcast", duration: 2_037_728,
                                                        episodeCount: 1750, score: 219.2822))
        #expect(sections[1].content[0] == ThmanyahItem(id: "e1", name: "Ep", duration: 300, releaseDate: "2024-07-23T20:00:00.000Z",
                                                        score: 8.5, podcastID: "p1"))
    }

    @Test func homeIsStrictAboutOrder() throws {
        let body = #"{"sections":[{"name":"A","type":"square","content_type":"podcast","order":"tempor","content":[]}]}"#
        let error = DecodingFixtures.failure(.thmanyahHome, Array(body.utf8))
        #expect(error == DecodeError(path: "$.sections[0].order", reason: #"expected an integer, found string "tempor""#))
    }

    @Test func itemWithoutAnyIdIsNamed() throws {
        let text = try DecodingFixtures.text("thmanyah/home-sections-page-1.json")
        // The third item of section 0 loses its podcast_id.
        let broken = try #require(DecodingFixtures.replacing("\"podcast_id\"", after: "\"1612459752\"", with: "\"other_id\"", in: text))
        let error = DecodingFixtures.failure(.thmanyahHome, Array(broken.utf8))
        #expect(error == DecodeError(path: "$.sections[0].content[2]",
                                     reason: "missing required field: none of podcast_id, episode_id, audiobook_id, article_id"))
    }

    @Test func homeDurationAsLoremIsAnError() throws {
        let body = #"{"sections":[{"name":"A","type":"queue","content_type":"podcast","order":1,"content":[{"podcast_id":"1","name":"n","duration":"ipsum"}]}]}"#
        let error = DecodingFixtures.failure(.thmanyahHome, Array(body.utf8))
        #expect(error == DecodeError(path: "$.sections[0].content[0].duration", reason: #"expected an integer, found string "ipsum""#))
    }

    @Test func typeNames() {
        #expect(ThmanyahSection.SectionType(raw: "horizontal_scroll") == .horizontalScroll)
        #expect(ThmanyahSection.SectionType(raw: "Big Square") == .bigSquare)
        #expect(ThmanyahSection.SectionType(raw: "carousel") == .unknown("carousel"))
        #expect(ThmanyahSection.ContentType(raw: "audio_article") == .audioArticle)
        #expect(ThmanyahSection.ContentType(raw: "video") == .unknown("video"))
    }
}
