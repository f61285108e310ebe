import Testing
@testable import FetchlogCore
@testable import FetchlogSources

@Suite struct ViaplayDecodingTests {
    func page(_ file: String) throws -> ViaplayPage? {
        guard case .viaplayPage(let page)? = (try DecodingFixtures.decode(.viaplayPage, file)) as? ViaplayDocument else {
            Issue.record("wrong case")
            return nil
        }
        return page
    }

    @Test func rootPage2022() throws {
        let root = try #require(try page("viaplay/ios-se-root-2022.json"))
        #expect(root.title == "Viaplay - Streama TV, Serier, Film och Sport online")
        #expect(root.description == "Hyr filmer på nätet och se live sport som fotboll och Premier League. Viaplay har alla TV serier och kanaler online.")
        #expect(root.pageType == "root")
        #expect(root.sections.count == 4)
        #expect(root.sections.map(\.title) == ["Serier", "Filmer", "Sport", "Barn"])
        #expect(root.sections.map(\.name) == ["series", "movie", "sport", "kids"])
        #expect(root.sections[0] == ViaplaySection(
            id: "35bb8a90-d40e-11e2-8b8b-0800200c9a66", title: "Serier",
            rawHref: "https://content.viaplay.se/ios-se/serier{?dtg}", name: "series", type: "vod"))
        #expect(root.sections[0].href == "https://content.viaplay.se/ios-se/serier")
        #expect(root.sections[3].href == "https://content.viaplay.se/ios-se/barn")
        #expect(root.blocks == [])
        #expect(root.nextHref == nil)
    }

    @Test func sectionPage2016() throws {
        let section = try #require(try page("viaplay/androidv2-se-serier-section-2016.json"))
        #expect(section.pageType == "section")
        #expect(section.title == "TV-serier online - Streama serier på nätet eller ladda ned")
        #expect(section.sections.count == 5)
        // The rental section's `name` is its id.
        #expect(section.sections[4].title == "Hyrbutik")
        #expect(section.sections[4].name == "85561ec0-d4e1-11e2-8b8b-0800200c9a66")
        #expect(section.sections[4].type == "tvod")
        #expect(section.sections[4].href == "https://content.viaplay.se/androidv2-se/hyrbutik")

        #expect(section.blocks.count == 10)
        #expect(section.blocks.map(\.products.count) == [10, 9, 0, 0, 0, 0, 0, 0, 0, 0])
        let first = section.blocks[0]
        #expect(first.id == nil)
        #expect(first.type == "list")
        #expect(first.title == "Aktuella serier")
        #expect(first.totalProductCount == 57)
        #expect(first.currentPage == 1)
        #expect(first.pageCount == 6)
        #expect(first.productsPerPage == 10)
        #expect(first.nextHref == "https://content.viaplay.se/androidv2-se/serier?block=0&partial=1&pageNumber=2")
        #expect(section.blocks[2].title == "Populära serier")
        #expect(section.blocks[2].totalProductCount == nil)
        // Ten blocks and no page-level next link: the page itself has no next page.
        #expect(section.nextHref == nil)

        #expect(first.products[0] == ViaplayProduct(
            type: "series", title: "The X-Files", originalTitle: nil,
            synopsis: "FBI-agenterna Fox Mulder och Dana Scully har det paranormala som specialområde. Från genetiska mutanter till utomjordiska konspirationer - Mulder och Scully är på jakt efter sanningen.",
            year: 1993, publicPath: "x-files-the", guid: nil,
            href: "https://content.viaplay.se/androidv2-se/serier/x-files-the",
            imageURL: "http://i.viaplay.com/scandi/Viaplay_Prod_-_Scandi/473/764/xfiles_cover.jpg?width=199&height=298&token=4402c98e"))
        #expect(first.products.last?.title == "Road to the NHL Winter Classic")
        #expect(first.products.last?.year == 2013)
    }

    @Test func categoryPage() throws {
        let category = try #require(try page("viaplay/pc-se-serier-samtliga-category.json"))
        #expect(category.pageType == "category")
        #expect(category.sections.count == 6)
        #expect(category.sections.map(\.type) == ["vod", "vod", "sportPerDay", "children", "vod", "editorial"])
        // Untemplated hrefs stay as they are.
        #expect(category.sections[4].href == "https://content.viaplay.se/pc-se/store")
        #expect(category.sections[4].rawHref == "https://content.viaplay.se/pc-se/store")
        #expect(category.sections[4].title == "Hyr & köp")

        #expect(category.blocks.count == 1)
        let list = category.blocks[0]
        #expect(list.id == "6dd481845f73b596b7a95456c2d918e0")
        #expect(list.title == "Alla serier sorterat på Populära")
        #expect(list.totalProductCount == 602)
        #expect(list.pageCount == 61)
        #expect(list.products.count == 10)
        let next = "https://content.viaplay.se/pc-se/serier/samtliga?blockId=6dd481845f73b596b7a95456c2d918e0&partial=1&pageNumber=2"
        #expect(list.nextHref == next)
        #expect(category.nextHref == next)

        let first = list.products[0]
        #expect(first.title == "2 1/2 män")
        #expect(first.originalTitle == "Two and a Half Men")
        #expect(first.year == 2003)
        #expect(first.guid == "series-two-and-a-half-men")
        #expect(first.publicPath == "2-12-man")
        #expect(first.href == "https://content.viaplay.se/pc-se/serier/2-12-man")
        #expect(first.synopsis?.hasPrefix("Charlie har mycket pengar på banken") == true)
        #expect(list.products.map(\.year) == [2003, 2012, 2018, 2013, 2005, 2015, 2017, 2021, 2000, 2021])
    }

    @Test func templateStripping() {
        #expect(ViaplayHref.stripTemplate("https://content.viaplay.com/ios-se/serier{?dtg,productsPerPage}") == "https://content.viaplay.com/ios-se/serier")
        #expect(ViaplayHref.stripTemplate("https://a/search{?query}{&dtg}") == "https://a/search")
        #expect(ViaplayHref.stripTemplate("https://a/byguid/{guid}{?returnFirstEpisode}") == "https://a/byguid/{guid}")
        #expect(ViaplayHref.stripTemplate("https://a/b{?unclosed") == "https://a/b{?unclosed")
    }

    @Test func sectionWithoutTitleIsNamed() throws {
        let body = #"{"_links":{"viaplay:sections":[{"id":"a","title":"A","href":"h"},{"id":"b","href":"h2"}]}}"#
        let error = DecodingFixtures.failure(.viaplayPage, Array(body.utf8))
        #expect(error == DecodeError(path: #"$._links["viaplay:sections"][1].title"#, reason: "missing required field"))
    }

    @Test func productsThatAreNotAnArray() throws {
        let body = #"{"_embedded":{"viaplay:blocks":[{"type":"list","_embedded":{"viaplay:products":{"x":1}}}]}}"#
        let error = DecodingFixtures.failure(.viaplayPage, Array(body.utf8))
        #expect(error == DecodeError(path: #"$._embedded["viaplay:blocks"][0]._embedded["viaplay:products"]"#, reason: "expected an array, found an object"))
    }
}
