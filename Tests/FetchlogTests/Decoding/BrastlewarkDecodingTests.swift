import Testing
@testable import FetchlogCore
@testable import FetchlogSources

@Suite struct BrastlewarkDecodingTests {
    func census(_ body: [UInt8]) throws -> [Gnome] {
        guard case .brastlewarkCensus(let gnomes)? = (try SeedSources.decode(.brastlewarkCensus, body: body)) as? BrastlewarkDocument else {
            Issue.record("wrong case")
            return []
        }
        return gnomes.gnomes
    }

    @Test func wholeCensus() throws {
        let gnomes = try census(try DecodingFixtures.bytes("brastlewark/census.json"))
        #expect(gnomes.count == 1337)
        #expect(gnomes.first?.id == 0)
        #expect(gnomes.last?.id == 1336)
        #expect(gnomes.map(\.id) == Array(0 ..< 1337))
        // Kept raw: " Tinker" with its leading space (202 gnomes list it, none lists "Tinker").
        #expect(gnomes[0] == Gnome(
            id: 0, name: "Tobus Quickwhistle",
            thumbnail: "http://www.publicdomainpictures.net/pictures/10000/nahled/thinking-monkey-11282237747K8xB.jpg",
            age: 306, weight: 39.065952, height: 107.75835, hairColor: "Pink",
            professions: ["Metalworker", "Woodcarver", "Stonecarver", " Tinker", "Tailor", "Potter"],
            friends: ["Cogwitz Chillwidget", "Tinadette Chillbuster"]))
        #expect(gnomes.filter { $0.professions.contains(" Tinker") }.count == 202)
        #expect(gnomes.filter { $0.professions.contains("Tinker") }.count == 0)
        #expect(gnomes[1336].name == "Tinadette Mysttink")
        #expect(gnomes[1336].age == 307)
        #expect(gnomes[1336].weight == 42.206398)
        #expect(gnomes[1336].height == 120.228745)
        #expect(gnomes[1336].hairColor == "Green")
        #expect(gnomes[1336].friends == ["Midwig Clankslauncher", "Malbin Magnaweaver", "Malbin Wrongrivet"])
        #expect(Set(gnomes.map(\.hairColor)) == ["Black", "Gray", "Green", "Pink", "Red"])
    }

    @Test func ageThatIsAnObjectIsNamedByPath() throws {
        let text = try DecodingFixtures.text("brastlewark/census.json")
        let broken = try #require(DecodingFixtures.replacing("\"age\":240", after: "{\"id\":3,", with: "\"age\":{\"years\":240}", in: text))
        let error = try #require(DecodingFixtures.failure(.brastlewarkCensus, Array(broken.utf8)))
        #expect(error.path == "$.Brastlewark[3].age")
        #expect(error.reason == "expected an integer, found an object")
    }

    @Test func numericStringAgeIsAccepted() throws {
        let body = #"{"Brastlewark":[{"id":"7","name":"N","thumbnail":"t","age":"12","weight":"1.5","height":2,"hair_color":"Red","professions":[],"friends":[]}]}"#
        let gnomes = try census(Array(body.utf8))
        #expect(gnomes == [Gnome(id: 7, name: "N", thumbnail: "t", age: 12, weight: 1.5, height: 2, hairColor: "Red", professions: [], friends: [])])
    }

    @Test func missingHairColorIsNamed() throws {
        let text = try DecodingFixtures.text("brastlewark/census.json")
        let broken = try #require(DecodingFixtures.replacing("\"hair_color\":\"Red\",", after: "{\"id\":3,", with: "", in: text))
        let error = try #require(DecodingFixtures.failure(.brastlewarkCensus, Array(broken.utf8)))
        #expect(error == DecodeError(path: "$.Brastlewark[3].hair_color", reason: "missing required field"))
    }

    @Test func friendThatIsANumberIsNamed() throws {
        let text = try DecodingFixtures.text("brastlewark/census.json")
        let broken = try #require(DecodingFixtures.replacing("\"Tinadette Wrongslicer\"", after: "{\"id\":3,", with: "42", in: text))
        let error = try #require(DecodingFixtures.failure(.brastlewarkCensus, Array(broken.utf8)))
        #expect(error == DecodeError(path: "$.Brastlewark[3].friends[1]", reason: "expected a string, found number 42"))
    }

    @Test func censusCutInHalf() throws {
        let body = try DecodingFixtures.bytes("brastlewark/census.json")
        #expect(body.count == 421_309)
        let error = try #require(DecodingFixtures.failure(.brastlewarkCensus, Array(body.prefix(body.count / 2))))
        #expect(error == DecodeError(path: "$", reason: "invalid JSON at byte 210654: unterminated string"))
    }

    @Test func wrongRootKey() {
        let error = DecodingFixtures.failure(.brastlewarkCensus, Array(#"{"Gnomes":[]}"#.utf8))
        #expect(error == DecodeError(path: "$.Brastlewark", reason: "missing required field"))
    }
}
