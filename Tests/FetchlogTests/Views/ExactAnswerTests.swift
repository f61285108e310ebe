import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Answers computed here, independently of the views, straight from the recorded census
/// (Foundation's JSONSerialization, not the project's decoder), compared with the views.
@Suite struct ExactAnswerTests {
    static func rawCensus() throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(try Fixture.bytes("brastlewark/census.json"))) as! [String: Any]
        return json["Brastlewark"] as! [[String: Any]]
    }

    @Test func pinkHairAge100To200AndATinkerProfession() async throws {
        let expected = try Self.rawCensus().filter { gnome in
            let age = gnome["age"] as! Int
            let hair = (gnome["hair_color"] as! String).trimmingCharacters(in: .whitespaces).lowercased()
            let professions = (gnome["professions"] as! [String]).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            return hair == "pink" && (100 ... 200).contains(age) && professions.contains { $0.contains("tinker") }
        }.map { $0["id"] as! Int }.sorted()
        #expect(expected.count == 12)
        var b = StateBuilder()
        try b.fetched(.brastlewarkCensus, fixture: "brastlewark/census.json")
        b.intent("brastlewark", "filter.set", #"{"hair_color":" PINK","age_min":100,"age_max":200,"profession":"tink"}"#)
        let view = FiltersView(state: b.state)
        #expect(view.matching == expected)
    }

    @Test func friendsOfANamedGnomeAndWhoListsThem() throws {
        let census = try Self.rawCensus()
        let name = "Tobus Quickwhistle"
        let me = try #require(census.first { $0["name"] as? String == name })
        let ids = Dictionary(uniqueKeysWithValues: census.map { ($0["name"] as! String, $0["id"] as! Int) })
        let friends = (me["friends"] as! [String]).compactMap { ids[$0] }
        let listers = census.filter { ($0["friends"] as! [String]).contains(name) }.map { $0["id"] as! Int }.sorted()
        var b = StateBuilder()
        try b.fetched(.brastlewarkCensus, fixture: "brastlewark/census.json")
        let entry = try #require(FriendsView(state: b.state).entry(id: me["id"] as! Int))
        #expect(entry.friends == friends)
        #expect(entry.listedBy == listers)
        #expect(friends == [273, 654])
    }
}
