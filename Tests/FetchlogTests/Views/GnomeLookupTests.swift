import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Names that differ only in case (issue 12, item 3): the recorded census plus "Case Twin"
/// (5003) and "case twin" (5004), who have different friends.
@Suite struct GnomeLookupTests {
    /// The recorded census with four gnomes appended: the twins, a gnome listing the
    /// lower-case twin, and one listing names only in capitals.
    static func twinState() throws -> LogState {
        var b = StateBuilder()
        b.fetched(.brastlewarkCensus, body: try twinCensusBody())
        return b.state
    }

    /// The census body of `twinState`.
    static func twinCensusBody() throws -> [UInt8] {
        let census = try JSONValue.parse(bytes: try Fixture.bytes("brastlewark/census.json"))
        func gnome(_ id: Int, _ name: String, _ friends: [String]) -> JSONValue {
            .object([("id", .number(id)), ("name", .string(name)), ("thumbnail", .string("http://example.org/\(id).jpg")),
                     ("age", .number(100)), ("weight", .number(40.5)), ("height", .number(100)),
                     ("hair_color", .string("Red")), ("professions", .array([.string("Tinker")])),
                     ("friends", .array(friends.map(JSONValue.string)))])
        }
        let added = [
            gnome(5003, "Case Twin", ["Tobus Quickwhistle"]),
            gnome(5004, "case twin", ["Fizkin Voidbuster", "Case Twin"]),
            gnome(5005, "Twin Friend", ["case twin"]),
            gnome(5006, "Loud Caller", ["CASE TWIN", "TOBUS QUICKWHISTLE"]),
        ]
        let gnomes = try #require(census["Brastlewark"]?.arrayValue) + added
        return Array(JSONValue.object([("Brastlewark", .array(gnomes))]).canonicalText().utf8)
    }

    @Test func lookupTakesTheExactNameFirst() throws {
        let view = GnomesView(state: try Self.twinState())
        #expect(view.count == 1341)
        func id(_ text: String) -> Int? { if case .found(let row) = view.lookup(text) { row.id } else { nil } }
        #expect(id("Case Twin") == 5003)
        #expect(id("case twin") == 5004)
        #expect(id("  case twin \n") == 5004, "trimmed")
        #expect(id("tobus quickwhistle") == 0, "a unique case-insensitive match")
        #expect(view.lookup("CASE TWIN") == .ambiguous([try #require(view.gnome(id: 5003)), try #require(view.gnome(id: 5004))]))
        #expect(view.lookup("Nobody Here") == .notFound)
        // gnome(named:) answers only a name that picks one gnome.
        #expect(view.gnome(named: "case twin")?.id == 5004)
        #expect(view.gnome(named: "Case Twin")?.id == 5003)
        #expect(view.gnome(named: "CASE TWIN") == nil)
    }

    @Test func friendsAndPathsFollowTheExactName() throws {
        let state = try Self.twinState()
        let gnomes = GnomesView(state: state)
        let friends = FriendsView(state: state)
        func id(_ name: String) throws -> Int {
            guard case .found(let row) = gnomes.lookup(name) else { throw LookupFailed(name: name) }
            return row.id
        }
        #expect(friends.entry(id: try id("Case Twin")) == FriendsView.Entry(id: 5003, friends: [0], listedBy: [5004], unknownFriends: []))
        #expect(friends.entry(id: try id("case twin")) == FriendsView.Entry(id: 5004, friends: [1, 5003], listedBy: [5005], unknownFriends: []))
        #expect(friends.entry(id: 5005)?.friends == [5004])
        // "CASE TWIN" names two gnomes and neither exactly: unknown, not guessed. A unique
        // case-insensitive name resolves.
        #expect(friends.entry(id: 5006) == FriendsView.Entry(id: 5006, friends: [0], listedBy: [], unknownFriends: ["CASE TWIN"]))
        #expect(friends.unknownNames == ["CASE TWIN"])
        #expect(friends.path(from: try id("Case Twin"), to: try id("case twin")) == [5003, 5004])
        #expect(friends.path(from: try id("Twin Friend"), to: try id("Fizkin Voidbuster")) == [5005, 5004, 1])
        #expect(friends.path(from: try id("case twin"), to: try id("Tobus Quickwhistle")) == [5004, 5003, 0])
    }

    struct LookupFailed: Error { let name: String }
}
