import Testing
@testable import FetchlogCore
@testable import FetchlogSources

@Suite struct TVMazeDecodingTests {
    func showsPage(_ file: String) throws -> [TVMazeShow] {
        guard case .tvmazeShowsPage(let shows)? = (try DecodingFixtures.decode(.tvmazeShowsPage, file)) as? TVMazeDocument else {
            Issue.record("wrong case")
            return []
        }
        return shows
    }

    @Test func oldSchemaPageFrom2019() throws {
        let shows = try showsPage("tvmaze/shows-page-0-2019.json")
        #expect(shows.count == 240)
        #expect(shows.first?.id == 1)
        #expect(shows.last?.id == 249)
        let dome = try #require(shows.first)
        #expect(dome.name == "Under the Dome")
        #expect(dome.premiered == "2013-06-24")
        #expect(dome.premiereYear == 2013)
        #expect(dome.rating == 6.5)
        #expect(dome.genres == ["Drama", "Science-Fiction", "Thriller"])
        #expect(dome.status == "Ended")
        #expect(dome.type == "Scripted")
        #expect(dome.language == "English")
        #expect(dome.runtime == 60)
        #expect(dome.averageRuntime == nil) // not in the 2019 schema
        #expect(dome.ended == nil)
        #expect(dome.updated == 1_562_326_291)
        #expect(dome.url == "http://www.tvmaze.com/shows/1/under-the-dome")
        #expect(dome.image == TVMazeImageLinks(
            medium: "http://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg",
            original: "http://static.tvmaze.com/uploads/images/original_untouched/81/202627.jpg"))
        #expect(dome.summaryHTML?.hasPrefix("<p><b>Under the Dome</b> is the story") == true)

        // `"average": 9` is an integer literal; `"average": null` is no rating.
        let person = try #require(shows.first { $0.id == 2 })
        #expect(person.rating == 9.0)
        #expect(person.name == "Person of Interest")
        let loser = try #require(shows.first { $0.id == 97 })
        #expect(loser.rating == nil)
        #expect(loser.name == "The Biggest Loser")
        #expect(shows.filter { $0.rating == nil }.count == 7)
        #expect(shows.filter { $0.genres.isEmpty }.count == 4)
    }

    @Test func currentSchemaPages() throws {
        let page0 = try showsPage("tvmaze/shows-page-0-2024.json")
        #expect(page0.count == 240)
        #expect(page0[0].url == "https://www.tvmaze.com/shows/1/under-the-dome")
        #expect(page0[0].averageRuntime == 60)
        #expect(page0[0].ended == "2015-09-10")
        #expect(page0[0].updated == 1_704_794_065)

        let page1 = try showsPage("tvmaze/shows-page-1-2025-04-18.json")
        #expect(page1.count == 245)
        #expect(page1.first?.id == 250)
        #expect(page1.last?.id == 499)
        #expect(page1.last?.name == "Married... with Children")
        #expect(page1.last?.premiereYear == 1987)
        #expect(page1.last?.rating == 8.1)

        // A show with no premiere date, average runtime, end date, rating or genres.
        let rival = try #require(page1.first { $0.id == 410 })
        #expect(rival.name == "Rival Survival")
        #expect(rival.premiered == nil)
        #expect(rival.premiereYear == nil)
        #expect(rival.runtime == 60)
        #expect(rival.averageRuntime == nil)
        #expect(rival.ended == nil)
        #expect(rival.rating == nil)
        #expect(rival.genres == [])

        let driver = try #require(page1.first { $0.id == 262 })
        #expect(driver.rating == 7.0)
        #expect(driver.genres == ["Drama", "Crime"])
        #expect(page1.filter { $0.rating == nil }.count == 18)
    }

    @Test func singleShow() throws {
        guard case .tvmazeShow(let show)? = (try DecodingFixtures.decode(.tvmazeShow, "tvmaze/show-1.json")) as? TVMazeDocument else {
            Issue.record("wrong case")
            return
        }
        #expect(show.id == 1)
        #expect(show.name == "Under the Dome")
        #expect(show.premiereYear == 2013)
        #expect(show.averageRuntime == 60)
        #expect(show.ended == "2015-09-10")
        #expect(show.rating == 6.5)
    }

    @Test func episodes() throws {
        guard case .tvmazeEpisodes(let episodes)? = (try DecodingFixtures.decode(.tvmazeEpisodes, "tvmaze/show-1-episodes.json")) as? TVMazeDocument else {
            Issue.record("wrong case")
            return
        }
        #expect(episodes.count == 39)
        #expect(episodes[0] == TVMazeEpisode(
            id: 1, name: "Pilot", season: 1, number: 1, airdate: "2013-06-24", runtime: 60, rating: 7.7,
            image: TVMazeImageLinks(medium: "https://static.tvmaze.com/uploads/images/medium_landscape/1/4388.jpg",
                                    original: "https://static.tvmaze.com/uploads/images/original_untouched/1/4388.jpg"),
            summaryHTML: "<p>When the residents of Chester's Mill find themselves trapped under a massive transparent dome with no way out, they struggle to survive as resources rapidly dwindle and panic quickly escalates.</p>"))
        let thirst = try #require(episodes.first { $0.id == 6 })
        #expect(thirst.name == "The Endless Thirst")
        #expect(thirst.rating == 7.0) // integer literal
        #expect(episodes.last?.id == 185_054)
        #expect(episodes.last?.season == 3)
        #expect(episodes.last?.number == 13)

        guard case .tvmazeEpisodes(let outlander)? = (try DecodingFixtures.decode(.tvmazeEpisodes, "tvmaze/show-43-episodes.json")) as? TVMazeDocument else {
            Issue.record("wrong case")
            return
        }
        #expect(outlander.count == 91)
        #expect(outlander.first?.id == 1954)
        #expect(outlander.last?.name == "A Hundred Thousand Angels")
        #expect(outlander.last?.season == 7)
        #expect(outlander.last?.number == 16)
        #expect(outlander.last?.rating == 8.9)
    }

    @Test func searchResults() throws {
        guard case .tvmazeSearch(let results)? = (try DecodingFixtures.decode(.tvmazeSearch, "tvmaze/search-shows-q-terminator.json")) as? TVMazeDocument else {
            Issue.record("wrong case")
            return
        }
        #expect(results.count == 7)
        #expect(results.map(\.show.id) == [56448, 478, 11217, 7047, 8001, 21471, 15351])
        #expect(results[0].score == 0.5525868)
        #expect(results[0].show.name == "Terminator: The Anime Series")
        #expect(results[0].show.premiereYear == nil)
        #expect(results[0].show.rating == nil)
        #expect(results[1].show.premiereYear == 2008)
        #expect(results[1].show.rating == 8.3)

        guard case .tvmazeSearch(let girls)? = (try DecodingFixtures.decode(.tvmazeSearch, "tvmaze/search-shows-q-girls.json")) as? TVMazeDocument else {
            Issue.record("wrong case")
            return
        }
        #expect(girls.count == 10)
        // Paper Girls has `"image": null`; GIRLS has `"summary": null`.
        #expect(girls.first { $0.show.id == 42986 }?.show.image == nil)
        #expect(girls.first { $0.show.id == 41734 }?.show.summaryHTML == nil)
        #expect(girls.first { $0.show.id == 41734 }?.show.image?.medium == "https://static.tvmaze.com/uploads/images/medium_portrait/191/478539.jpg")
    }

    /// No `/images` answer was recorded; this body has the real shape the sample upstream serves.
    @Test func imagesInTheRealShape() throws {
        let body = #"""
        [{"id":11,"type":"background","main":true,"resolutions":{"original":{"url":"https://x/o-bg.jpg","width":1920,"height":1080},"medium":{"url":"https://x/m-bg.jpg","width":250,"height":140}}},
         {"id":13,"type":"poster","main":true,"resolutions":{"original":{"url":"https://x/o.jpg","width":680,"height":1000}}},
         {"id":15,"type":null,"main":false,"resolutions":{}}]
        """#
        guard case .tvmazeImages(let images)? = (try SeedSources.decode(.tvmazeImages, body: Array(body.utf8))) as? TVMazeDocument else {
            Issue.record("wrong case")
            return
        }
        #expect(images == [
            TVMazeImage(id: 11, type: "background", main: true,
                        original: TVMazeResolution(url: "https://x/o-bg.jpg", width: 1920, height: 1080),
                        medium: TVMazeResolution(url: "https://x/m-bg.jpg", width: 250, height: 140)),
            TVMazeImage(id: 13, type: "poster", main: true,
                        original: TVMazeResolution(url: "https://x/o.jpg", width: 680, height: 1000), medium: nil),
            TVMazeImage(id: 15, type: nil, main: false, original: nil, medium: nil),
        ])
    }

    @Test func truncatedBodyNamesTheByteOffset() throws {
        let body = try DecodingFixtures.bytes("tvmaze/show-1.json")
        #expect(body.count == 1575)
        let half = Array(body.prefix(787))
        let error = try #require(DecodingFixtures.failure(.tvmazeShow, half))
        #expect(error.path == "$")
        #expect(error.reason == "invalid JSON at byte 787: unexpected end of input")
    }

    @Test func wrongTypeDeepInsideNamesItsPath() throws {
        let text = try DecodingFixtures.text("tvmaze/shows-page-0-2019.json")
        let broken = try #require(DecodingFixtures.replacing("\"average\": 6.5", after: "\"id\": 1,", with: "\"average\": {\"x\": 1}", in: text))
        let error = try #require(DecodingFixtures.failure(.tvmazeShowsPage, Array(broken.utf8)))
        #expect(error == DecodeError(path: "$[0].rating.average", reason: "expected a number, found an object"))
    }

    @Test func missingNameIsNamed() throws {
        let text = try DecodingFixtures.text("tvmaze/show-1.json")
        let broken = try #require(DecodingFixtures.replacing("\"name\": \"Under the Dome\",", after: "{", with: "", in: text))
        let error = try #require(DecodingFixtures.failure(.tvmazeShow, Array(broken.utf8)))
        #expect(error == DecodeError(path: "$.name", reason: "missing required field"))
    }

    @Test func pageThatIsNotAnArray() {
        let error = DecodingFixtures.failure(.tvmazeShowsPage, Array(#"{"id":1}"#.utf8))
        #expect(error == DecodeError(path: "$", reason: "expected an array, found an object"))
    }
}
