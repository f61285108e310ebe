import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// The museum's dump holds bare `data` objects; the API (and the sample upstream) wraps them,
/// so these tests wrap them the same way.
@Suite struct ArticDecodingTests {
    static let info = #"{"license_text":"CC0","version":"1.13"}"#

    func record(_ file: String) throws -> String { try DecodingFixtures.text("artic/api-data/" + file) }

    func wrapped(_ file: String) throws -> [UInt8] {
        let config = try record("config.json")
        return Array(#"{"data":\#(try record(file)),"info":\#(Self.info),"config":\#(config)}"#.utf8)
    }

    @Test func oneArtwork() throws {
        guard case .articArtwork(let artwork, let iiif)? = (try SeedSources.decode(.articArtwork, body: try wrapped("artworks/9.json"))) as? ArticDocument else {
            Issue.record("wrong case")
            return
        }
        #expect(iiif == "https://www.artic.edu/iiif/2")
        #expect(artwork == ArticArtwork(
            id: 9, title: "Interior of St. Mark's, Venice", artistDisplay: "David Dalhoff Neal\nAmerican, 1838–1915",
            artistID: 35975, artistTitle: "David Dalhoff Neal", dateDisplay: "1869", dateStart: 1869, dateEnd: 1869,
            placeOfOrigin: "Munich", mediumDisplay: "Oil on canvas", artworkTypeTitle: "Painting",
            departmentTitle: "Arts of the Americas", creditLine: "Mr. and Mrs. Samuel M. Nickerson Collection",
            imageID: "b55d836c-ee20-59f8-1f0c-a95e09905361", thumbnailAltText: "A work made of oil on canvas."))
        #expect(artwork.imageURL(iiifURL: iiif) == "https://www.artic.edu/iiif/2/b55d836c-ee20-59f8-1f0c-a95e09905361/full/843,/0/default.jpg")
    }

    @Test func imageURLRule() throws {
        guard case .articArtwork(let priest, let iiif)? = (try SeedSources.decode(.articArtwork, body: try wrapped("artworks/4.json"))) as? ArticDocument else {
            Issue.record("wrong case")
            return
        }
        #expect(priest.title == "Priest and Boy")
        #expect(priest.dateDisplay == "n.d.")
        #expect(priest.imageURL(iiifURL: iiif) == "https://www.artic.edu/iiif/2/1753b638-d4fb-8e45-3db9-92dde7f053da/full/843,/0/default.jpg")
        #expect(ArticArtwork(id: 1, title: "No image").imageURL(iiifURL: iiif) == nil)
        #expect(priest.imageURL(iiifURL: nil) == nil)
    }

    /// A list page in the real shape: three dump records, paginated as the sample upstream does.
    @Test func artworksPage() throws {
        let data = try ["artworks/4.json", "artworks/9.json", "artworks/11.json"].map(record).joined(separator: ",")
        let body = #"""
        {"pagination":{"total":10,"limit":3,"offset":0,"total_pages":5,"current_page":1,"next_url":"https://api.artic.edu/api/v1/artworks?page=2&limit=3"},
         "data":[\#(data)],"info":\#(Self.info),"config":\#(try record("config.json"))}
        """#
        guard case .articArtworks(let page)? = (try SeedSources.decode(.articArtworks, body: Array(body.utf8))) as? ArticDocument else {
            Issue.record("wrong case")
            return
        }
        #expect(page.pagination == ArticPagination(total: 10, limit: 3, offset: 0, totalPages: 5, currentPage: 1,
                                                   nextURL: "https://api.artic.edu/api/v1/artworks?page=2&limit=3"))
        #expect(page.artworks.map(\.id) == [4, 9, 11])
        #expect(page.artworks.map(\.artistID) == [34348, 35975, 36656])
        #expect(page.artworks[2].title == "Self-Portrait")
        #expect(page.iiifURL == "https://www.artic.edu/iiif/2")
        #expect(page.artworks[2].imageURL(iiifURL: page.iiifURL) == "https://www.artic.edu/iiif/2/7b7a6f39-1cd8-ea2f-9811-18b0e23edac0/full/843,/0/default.jpg")
    }

    @Test func lastPageHasNoNextURL() throws {
        let body = #"{"pagination":{"total":10,"limit":3,"offset":12,"total_pages":5,"current_page":7,"next_url":null},"data":[]}"#
        guard case .articArtworks(let page)? = (try SeedSources.decode(.articArtworks, body: Array(body.utf8))) as? ArticDocument else {
            Issue.record("wrong case")
            return
        }
        #expect(page.pagination.nextURL == nil)
        #expect(page.pagination.currentPage == 7)
        #expect(page.artworks == [])
        #expect(page.iiifURL == nil)
    }

    @Test func agents() throws {
        guard case .articAgent(let abercrombie)? = (try SeedSources.decode(.articAgent, body: try wrapped("agents/135.json"))) as? ArticDocument else {
            Issue.record("wrong case")
            return
        }
        #expect(abercrombie.id == 135)
        #expect(abercrombie.title == "Gertrude Abercrombie")
        #expect(abercrombie.birthDate == 1909)
        #expect(abercrombie.deathDate == 1977)
        #expect(abercrombie.descriptionHTML?.hasPrefix("<p>A leading figure of Chicago’s Hyde Park arts scene") == true)

        guard case .articAgent(let abeles)? = (try SeedSources.decode(.articAgent, body: try wrapped("agents/130.json"))) as? ArticDocument,
              case .articAgent(let society)? = (try SeedSources.decode(.articAgent, body: try wrapped("agents/2.json"))) as? ArticDocument else {
            Issue.record("wrong case")
            return
        }
        #expect(abeles == ArticAgent(id: 130, title: "Sigmund Abeles", birthDate: 1934, deathDate: nil, descriptionHTML: nil))
        #expect(society == ArticAgent(id: 2, title: "Antiquarian Society", birthDate: nil, deathDate: nil, descriptionHTML: nil))
    }

    @Test func errorBodiesAreNotArtworks() throws {
        let notFound = try DecodingFixtures.bytes("artic/error-404-artworks-99999999.json")
        #expect(DecodingFixtures.failure(.articArtwork, notFound) == DecodeError(path: "$.data", reason: "missing required field"))
        let invalid = try DecodingFixtures.bytes("artic/error-400-artworks-invalid1234.json")
        #expect(DecodingFixtures.failure(.articArtwork, invalid) == DecodeError(path: "$.data", reason: "missing required field"))
        #expect(DecodingFixtures.failure(.articAgent, notFound) == DecodeError(path: "$.data", reason: "missing required field"))
        #expect(DecodingFixtures.failure(.articArtworks, notFound) == DecodeError(path: "$.pagination", reason: "missing required field"))
    }

    @Test func artworkWithoutIdIsNamed() throws {
        let text = try record("artworks/4.json")
        let broken = try #require(DecodingFixtures.replacing("\"id\": 4,", after: "{", with: "", in: text))
        let body = #"{"pagination":{"total":1,"limit":1,"offset":0,"total_pages":1,"current_page":1,"next_url":null},"data":[\#(broken)]}"#
        #expect(DecodingFixtures.failure(.articArtworks, Array(body.utf8)) == DecodeError(path: "$.data[0].id", reason: "missing required field"))
    }
}
