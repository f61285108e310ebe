import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Bodies built in the tests: real recorded records re-wrapped in the list shapes that
/// were never recorded, or edited copies for the cases the recordings lack.
private enum CatalogBodies {
    static func json(_ fixture: String) throws -> JSONValue { try JSONValue.parse(bytes: try Fixture.bytes(fixture)) }
    static func bytes(_ value: JSONValue) -> [UInt8] { Array(value.canonicalText().utf8) }

    /// `value` with member `key` set (replaced in place, or appended).
    static func setting(_ key: String, _ new: JSONValue, in value: JSONValue) -> JSONValue {
        guard case .object(var members) = value else { return value }
        if let i = members.firstIndex(where: { $0.0 == key }) { members[i].1 = new } else { members.append((key, new)) }
        return .object(members)
    }

    static func artwork(_ id: Int) throws -> JSONValue { try json("artic/api-data/artworks/\(id).json") }

    /// An artworks list page in the real shape, from the museum's recorded records.
    static func artworksPage(page: Int, limit: Int, ids: [Int]) throws -> [UInt8] {
        let pagination: JSONValue = .object([
            ("total", .number(10)), ("limit", .number(limit)), ("offset", .number((page - 1) * (limit - 1))),
            ("total_pages", .number(5)), ("current_page", .number(page)),
            ("next_url", .string("https://api.artic.edu/api/v1/artworks?page=\(page + 1)&limit=\(limit)")),
        ])
        return bytes(.object([("pagination", pagination), ("data", .array(try ids.map(artwork))),
                              ("config", try json("artic/api-data/config.json"))]))
    }

    static func single(_ record: JSONValue) throws -> [UInt8] {
        bytes(.object([("data", record), ("config", try json("artic/api-data/config.json"))]))
    }

    static func agent(_ id: Int) throws -> [UInt8] {
        bytes(.object([("data", try json("artic/api-data/agents/\(id).json"))]))
    }

    /// `/shows/{id}/images` in the real shape (the API's answer was never recorded).
    static func images(_ list: [(id: Int, type: String?, main: Bool)]) -> [UInt8] {
        bytes(.array(list.map { image in
            let base = "https://static.tvmaze.com/uploads/images"
            return .object([
                ("id", .number(image.id)), ("type", .optional(image.type)), ("main", .bool(image.main)),
                ("resolutions", .object([
                    ("original", .object([("url", .string("\(base)/original_untouched/0/\(image.id).jpg")),
                                          ("width", .number(680)), ("height", .number(1000))])),
                    ("medium", .object([("url", .string("\(base)/medium_portrait/0/\(image.id).jpg")),
                                        ("width", .number(210)), ("height", .number(295))])),
                ])),
            ])
        }))
    }
}

@Suite struct CatalogViewsShowsTests {
    static func twoPages() throws -> StateBuilder {
        var b = StateBuilder()
        try b.fetched(.tvmazeShowsPage(0), fixture: "tvmaze/shows-page-0-2024.json")
        try b.fetched(.tvmazeShowsPage(1), fixture: "tvmaze/shows-page-1-2025-04-18.json")
        return b
    }

    @Test func listsEveryShowOnceInIDOrder() async throws {
        let view = ShowsView(state: try Self.twoPages().state)
        // 240 + 245 shows, no id on both pages.
        #expect(view.count == 485)
        #expect(view.pagesHeld == [0, 1])
        #expect(view.endOfListPage == nil)
        #expect(view.shows.first?.id == 1)
        #expect(view.shows.last?.id == 499)
        #expect(view.shows.last?.name == "Married... with Children")
        #expect(view.shows.last?.itemIndex == 484)
        #expect(view.shows.map(\.itemIndex) == Array(0 ..< 485))
        #expect(view.shows.map(\.id) == view.shows.map(\.id).sorted())
    }

    @Test func rowOfShowOneIsExact() async throws {
        let row = try #require(ShowsView(state: try Self.twoPages().state).show(id: 1))
        #expect(row.json.canonicalText() == #"{"genres":["Drama","Science-Fiction","Thriller"],"id":1,"image":{"kind":"medium","url":"https://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg"},"itemIndex":0,"name":"Under the Dome","premiereYear":2013,"rating":6.5,"status":"Ended","summary":"Under the Dome is the story of a small town that is suddenly and inexplicably sealed off from the rest of the world by an enormous transparent dome. The town's inhabitants must deal with surviving the post-apocalyptic conditions while searching for answers about the dome, where it came from and if and when it will go away."}"#)
    }

    @Test func nullRatingAndQueries() async throws {
        let view = ShowsView(state: try Self.twoPages().state)
        let utopia = try #require(view.show(id: 153))
        #expect(utopia.name == "Utopia")
        #expect(utopia.rating == nil)
        #expect(utopia.genres == [])
        #expect(utopia.json["rating"] == .null)
        #expect(view.show(id: 500) == nil)
        #expect(view.withGenre("science-fiction").count == 78)
        #expect(view.withGenre("DRAMA").count == 259)
        #expect(view.withGenre("Dram").isEmpty)
        // Paging is by item in id order: ids 1...249 are the first 240 items.
        #expect(view.page(0, size: 250).map(\.id).last == 259)
        #expect(view.page(1, size: 250).count == 235)
        #expect(view.page(1, size: 250).first?.id == 260)
        #expect(view.page(2, size: 250).isEmpty)
        #expect(view.page(0, size: 0).isEmpty)
    }

    @Test func listImageRuleAndLaterFetchWins() async throws {
        var b = try Self.twoPages()
        // Page 2, fetched last, repeats show 1 under a new name and holds the image variants
        // the recordings lack (every recorded show has a medium image).
        b.fetched(.tvmazeShowsPage(2), body: Array(#"""
        [{"id":1,"name":"Under the Dome (again)","image":{"medium":"m1","original":"o1"}},
         {"id":900,"name":"Original Only","image":{"medium":null,"original":"https://example.org/o900.jpg"}},
         {"id":901,"name":"No Image","image":null},
         {"id":902,"name":"Empty Links","image":{"medium":null,"original":null}}]
        """#.utf8))
        let view = ShowsView(state: b.state)
        #expect(view.count == 488)
        #expect(view.pagesHeld == [0, 1, 2])
        #expect(view.show(id: 1)?.name == "Under the Dome (again)")
        #expect(view.show(id: 1)?.image == ShowsView.ListImage(TVMazeImageLinks(medium: "m1", original: "o1")))
        #expect(view.show(id: 900)?.image.json.canonicalText() == #"{"kind":"original","url":"https://example.org/o900.jpg"}"#)
        #expect(view.show(id: 901)?.image.json.canonicalText() == #"{"kind":"placeholder","url":null}"#)
        #expect(view.show(id: 902)?.image.kind == .placeholder)
        #expect(view.show(id: 902)?.itemIndex == 487)
    }

    @Test func endOfListPageFromStatus() async throws {
        var b = try Self.twoPages()
        b.append(Event(recordedAt: fixedTime, kind: .endOfList, source: "tvmaze", label: "/shows?page=2"))
        let view = ShowsView(state: b.state)
        #expect(view.endOfListPage == 2)
        #expect(view.pagesHeld == [0, 1])
        #expect(view.export(asOf: 3)["endOfListPage"] == .number(2))
    }

    @Test func exportValidates() async throws {
        var b = try Self.twoPages()
        b.fetched(.tvmazeShowsPage(2), body: Array(#"[{"id":901,"name":"No Image","image":null,"rating":{"average":8}}]"#.utf8))
        b.append(Event(recordedAt: fixedTime, kind: .endOfList, source: "tvmaze", label: "/shows?page=3"))
        let export = ShowsView(state: b.state).export(asOf: 4)
        #expect(export["count"] == .number(486))
        let result = try await validate(export, schema: "shows")
        #expect(result.ok, "\(result.output)")
    }
}

@Suite struct CatalogViewsShowDetailTests {
    static func detail(images: [(id: Int, type: String?, main: Bool)]?) throws -> StateBuilder {
        var b = StateBuilder()
        try b.fetched(.tvmazeShow(1), fixture: "tvmaze/show-1.json")
        try b.fetched(.tvmazeEpisodes(1), fixture: "tvmaze/show-1-episodes.json")
        if let images { b.fetched(.tvmazeImages(1), body: CatalogBodies.images(images)) }
        return b
    }

    @Test func mainPosterIsChosenOverAnEarlierPoster() async throws {
        let b = try Self.detail(images: [(10, "background", true), (11, "poster", false), (12, "poster", true), (13, "poster", true)])
        let view = ShowDetailView(state: b.state, id: 1)
        #expect(view.found)
        #expect(view.heldFrom == .detail)
        #expect(view.show?.name == "Under the Dome")
        #expect(view.image.json.canonicalText() == #"{"imageId":12,"kind":"main-poster","url":"https://static.tvmaze.com/uploads/images/original_untouched/0/12.jpg"}"#)
    }

    @Test func firstPosterWithoutAMainOne() async throws {
        let view = ShowDetailView(state: try Self.detail(images: [(20, "banner", true), (21, "poster", false), (22, "poster", false)]).state, id: 1)
        #expect(view.image.kind == .firstPoster)
        #expect(view.image.imageId == 21)
        #expect(view.image.url == "https://static.tvmaze.com/uploads/images/original_untouched/0/21.jpg")
    }

    @Test func placeholderWithoutAPoster() async throws {
        let view = ShowDetailView(state: try Self.detail(images: [(30, "background", true), (31, nil, false)]).state, id: 1)
        #expect(view.imagesHeld)
        #expect(view.image.json.canonicalText() == #"{"imageId":null,"kind":"placeholder","url":null}"#)
        let unheld = ShowDetailView(state: try Self.detail(images: nil).state, id: 1)
        #expect(!unheld.imagesHeld)
        #expect(unheld.image.kind == .placeholder)
    }

    @Test func mediumURLWhenNoOriginal() async throws {
        var b = try Self.detail(images: nil)
        b.fetched(.tvmazeImages(1), body: Array(#"[{"id":40,"type":"poster","main":true,"resolutions":{"medium":{"url":"https://example.org/m40.jpg"}}}]"#.utf8))
        let view = ShowDetailView(state: b.state, id: 1)
        #expect(view.image == ShowDetailView.DetailImage([TVMazeImage(id: 40, type: "poster", main: true, original: nil,
                                                                     medium: TVMazeResolution(url: "https://example.org/m40.jpg", width: nil, height: nil))]))
        #expect(view.image.url == "https://example.org/m40.jpg")
    }

    @Test func episodesInSeasonNumberOrder() async throws {
        var b = try Self.detail(images: nil)
        // Refetch the episodes reversed: the view, not the body, sets the order.
        let episodes = try CatalogBodies.json("tvmaze/show-1-episodes.json")
        b.fetched(.tvmazeEpisodes(1), body: CatalogBodies.bytes(.array((episodes.arrayValue ?? []).reversed())))
        let view = ShowDetailView(state: b.state, id: 1)
        let list = try #require(view.episodes)
        #expect(list.count == 39)
        #expect(view.seasons == [1, 2, 3])
        #expect(view.episodes(season: 2).count == 13)
        #expect(list.map { [$0.season ?? -1, $0.number ?? -1] }.prefix(2) == [[1, 1], [1, 2]])
        #expect(list.first?.json.canonicalText() == #"{"airdate":"2013-06-24","id":1,"name":"Pilot","number":1,"rating":7.7,"runtime":60,"season":1,"summary":"When the residents of Chester's Mill find themselves trapped under a massive transparent dome with no way out, they struggle to survive as resources rapidly dwindle and panic quickly escalates."}"#)
        #expect(list.last?.id == 185054)
        #expect(list.last?.name == "The Enemy Within")
    }

    @Test func fromTheListWhenNoDetailIsHeld() async throws {
        var b = StateBuilder()
        try b.fetched(.tvmazeShowsPage(0), fixture: "tvmaze/shows-page-0-2024.json")
        let view = ShowDetailView(state: b.state, id: 153)
        #expect(view.heldFrom == .list)
        #expect(view.show?.name == "Utopia")
        #expect(view.episodes == nil)
        let export = view.export(asOf: 1)
        #expect(export["rating"] == .null)
        #expect(export["heldFrom"] == .string("list"))
        let result = try await validate(export, schema: "show")
        #expect(result.ok, "\(result.output)")
    }

    @Test func unknownShowIsNullFilled() async throws {
        let view = ShowDetailView(state: try Self.detail(images: nil).state, id: 7)
        #expect(!view.found)
        let export = view.export(asOf: 2)
        #expect(export.canonicalText() == #"{"asOf":2,"episodes":null,"found":false,"genres":null,"heldFrom":null,"id":7,"image":null,"imagesHeld":null,"name":null,"premiereYear":null,"rating":null,"status":null,"summary":null,"view":"show"}"#)
        let result = try await validate(export, schema: "show")
        #expect(result.ok, "\(result.output)")
    }

    @Test func exportValidates() async throws {
        let export = ShowDetailView(state: try Self.detail(images: [(11, "poster", false), (12, "poster", true)]).state, id: 1).export(asOf: 3)
        #expect(export["episodes"]?.arrayValue?.count == 39)
        #expect(export["image"]?["imageId"] == .number(12))
        let result = try await validate(export, schema: "show")
        #expect(result.ok, "\(result.output)")
    }
}

@Suite struct CatalogViewsArticTests {
    static let iiif = "https://www.artic.edu/iiif/2"

    /// Pages 1 and 2 of limit 3 in the sample upstream's layout (page 2 starts with page 1's
    /// last artwork, 11), fetched out of order, plus single artworks 9 (already listed), 25,
    /// and 24 edited to have no image.
    static func artworks() throws -> StateBuilder {
        var b = StateBuilder()
        b.fetched(.articArtworks(page: 2, limit: 3), body: try CatalogBodies.artworksPage(page: 2, limit: 3, ids: [11, 16, 19]))
        b.fetched(.articArtworks(page: 1, limit: 3), body: try CatalogBodies.artworksPage(page: 1, limit: 3, ids: [4, 9, 11]))
        b.fetched(.articArtwork(25), body: try CatalogBodies.single(try CatalogBodies.artwork(25)))
        b.fetched(.articArtwork(9), body: try CatalogBodies.single(try CatalogBodies.artwork(9)))
        b.fetched(.articArtwork(24), body: try CatalogBodies.single(CatalogBodies.setting("image_id", .null, in: try CatalogBodies.artwork(24))))
        return b
    }

    @Test func firstSeenOrderWithoutRepeats() async throws {
        let view = ArtworksView(state: try Self.artworks().state)
        #expect(view.artworks.map(\.id) == [4, 9, 11, 16, 19, 24, 25])
        #expect(view.count == 7)
        // The view's own paging over the deduplicated list, not the upstream's pages.
        #expect(view.page(1, size: 3).map(\.id) == [16, 19, 24])
        #expect(view.page(2, size: 3).map(\.id) == [25])
        #expect(view.page(3, size: 3).isEmpty)
        #expect(view.artwork(id: 22) == nil)
    }

    @Test func iiifURLAndPlaceholder() async throws {
        let view = ArtworksView(state: try Self.artworks().state)
        let selfPortrait = try #require(view.artwork(id: 11))
        #expect(selfPortrait.json.canonicalText() == #"{"artistDisplay":"Walter Shirlaw\nAmerican, 1838–1909","artistId":36656,"artistTitle":"Walter Shirlaw","dateDisplay":"1878","id":11,"imageId":"7b7a6f39-1cd8-ea2f-9811-18b0e23edac0","imageKind":"iiif","imageURL":"https://www.artic.edu/iiif/2/7b7a6f39-1cd8-ea2f-9811-18b0e23edac0/full/843,/0/default.jpg","title":"Self-Portrait"}"#)
        #expect(view.artwork(id: 25)?.imageURL == Self.iiif + "/b9be1be9-e78e-1681-723d-197d7983b23b/full/843,/0/default.jpg")
        let molé = try #require(view.artwork(id: 24))
        #expect(molé.title == "Portrait of Edouard Molé")
        #expect(molé.imageId == nil)
        #expect(molé.imageURL == nil)
        #expect(molé.imageKind == .placeholder)
    }

    @Test func artworksExportValidates() async throws {
        let export = ArtworksView(state: try Self.artworks().state).export(asOf: 5)
        #expect(export["count"] == .number(7))
        let result = try await validate(export, schema: "artworks")
        #expect(result.ok, "\(result.output)")
    }

    static let agentIDs = [2, 25, 102, 103, 106, 130, 135, 148, 162, 173]

    static func artists() throws -> StateBuilder {
        var b = try artworks()
        b.fetched(.articArtworks(page: 3, limit: 3), body: try CatalogBodies.artworksPage(page: 3, limit: 3, ids: [19, 20, 22]))
        for id in agentIDs.reversed() { b.fetched(.articAgent(id), body: try CatalogBodies.agent(id)) }
        // No recorded agent made a recorded artwork: Piranesi (19 and 22) is written here.
        b.fetched(.articAgent(36210), body: Array(#"{"data":{"id":36210,"title":"Giovanni Battista Piranesi","birth_date":1720,"death_date":1778,"description":"<p>Italian <em>etcher</em> &amp; architect.</p>"}}"#.utf8))
        return b
    }

    @Test func artistsByIDWithTheirArtworks() async throws {
        let view = ArtistsView(state: try Self.artists().state)
        #expect(view.artists.map(\.id) == Self.agentIDs + [36210])
        #expect(view.count == 11)
        #expect(view.artist(id: 36210)?.json.canonicalText() == #"{"artworkIds":[19,22],"birthDate":1720,"deathDate":1778,"description":"Italian etcher & architect.","id":36210,"title":"Giovanni Battista Piranesi"}"#)
        #expect(view.artist(id: 2)?.json.canonicalText() == #"{"artworkIds":[],"birthDate":null,"deathDate":null,"description":null,"id":2,"title":"Antiquarian Society"}"#)
        #expect(view.artist(id: 130)?.birthDate == 1934)
        #expect(view.artist(id: 130)?.deathDate == nil)
    }

    @Test func descriptionIsCleaned() async throws {
        let text = try #require(ArtistsView(state: try Self.artists().state).artist(id: 135)?.description)
        #expect(text.hasPrefix("A leading figure of Chicago’s Hyde Park arts scene in the mid-20th century, Gertrude Abercrombie"))
        #expect(text.contains("It becomes my own dream.” Although born in Texas"))
        #expect(text.contains("In 1936 and 1938 she won prizes at the Art Institute of Chicago's Annual Exhibition of Works by Artists of Chicago and Vicinity. During"))
        #expect(text.hasSuffix("a group of Chicago artists known as the Hairy Who."))
        #expect(!text.contains("<"))
    }

    @Test func artistsExportValidates() async throws {
        let export = ArtistsView(state: try Self.artists().state).export(asOf: 17)
        #expect(export["count"] == .number(11))
        let result = try await validate(export, schema: "artists")
        #expect(result.ok, "\(result.output)")
    }
}
