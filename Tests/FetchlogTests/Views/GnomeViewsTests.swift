import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// The recorded census (1337 gnomes) folded into a state, optionally followed by intents.
private func censusState(_ intents: [(String, String)] = []) throws -> LogState {
    var b = StateBuilder()
    try b.fetched(.brastlewarkCensus, fixture: "brastlewark/census.json")
    for (label, json) in intents { b.intent("brastlewark", label, json) }
    return b.state
}

/// A tiny census body: (id, name, friends), listed in the given (not id) order.
private func tinyState(_ gnomes: [(Int, String, [String])]) -> LogState {
    let items = gnomes.map { id, name, friends -> JSONValue in
        .object([("id", .number(id)), ("name", .string(name)), ("thumbnail", .string("t\(id)")),
                 ("age", .number(100 + id)), ("weight", .number(40.5)), ("height", .number(100)),
                 ("hair_color", .string("Red")), ("professions", .array([.string(" Tinker")])),
                 ("friends", .array(friends.map(JSONValue.string)))])
    }
    var b = StateBuilder()
    b.fetched(.brastlewarkCensus, body: Array(JSONValue.object([("Brastlewark", .array(items))]).canonicalText().utf8))
    return b.state
}

/// Three shortest chains 0→7 (0-1-5-7, 0-1-6-7, 0-2-3-7); listing orders favour the
/// wrong ones (0 lists Cee first, Bee lists Eff before Gee), so only the rule picks 0-1-5-7.
private let diamond: [(Int, String, [String])] = [
    (7, "Aitch", []), (0, "Ay", ["Cee", "Bee"]), (1, "Bee", ["Eff", "Gee"]), (2, "Cee", ["Dee"]),
    (3, "Dee", ["Aitch"]), (5, "Gee", ["Aitch"]), (6, "Eff", ["Aitch"]),
    (4, "Eee", [" Ay ", "Nobody"]), (8, "Lone", []),
]

@Suite("GnomeViews: gnomes")
struct GnomeViewsGnomesTests {
    @Test func censusInIDOrderWithTrimmedProfessions() async throws {
        let view = GnomesView(state: try censusState())
        #expect(view.count == 1337)
        #expect(view.gnomes.first?.id == 0 && view.gnomes.last?.id == 1336)
        #expect(view.gnomes.map(\.id) == Array(0...1336))
        let tobus = try #require(view.gnome(id: 0))
        #expect(tobus.name == "Tobus Quickwhistle")
        #expect(tobus.professions == ["Metalworker", "Woodcarver", "Stonecarver", "Tinker", "Tailor", "Potter"])
        #expect(tobus.friends == ["Cogwitz Chillwidget", "Tinadette Chillbuster"])
        #expect(tobus.age == 306 && tobus.weight == 39.065952 && tobus.height == 107.75835 && tobus.hairColor == "Pink")
        #expect(view.gnome(id: 1337) == nil)
        #expect(!view.gnomes.contains { $0.professions.contains(" Tinker") })
    }

    @Test func lookUpByNameIsCaseInsensitiveAndTrimmed() async throws {
        let view = GnomesView(state: try censusState())
        #expect(view.gnome(named: "  tinadette MYSTTINK ")?.id == 1336)
        #expect(view.gnome(named: "Tinadette") == nil)
    }

    @Test func searchMatchesNameHairOrProfession() async throws {
        let view = GnomesView(state: try censusState())
        let tinkers = view.search("tinker")
        #expect(tinkers.count == 202)
        #expect(tinkers.prefix(5).map(\.id) == [0, 4, 11, 13, 17] && tinkers.last?.id == 1330)
        #expect(view.search("pink").count == 285)
        #expect(view.search("  PINK ").prefix(5).map(\.id) == [0, 11, 17, 19, 20])
        #expect(view.search("carver").count == 477)  // Woodcarver, Stonecarver, Marble Carver
        #expect(view.search("fiz").count == 138)     // names only
        #expect(view.search("zzz").isEmpty)
        #expect(view.search("  ").count == 1337)
    }

    @Test func exportOfOneGnomeAndSchema() async throws {
        let view = GnomesView(state: try censusState())
        let export = view.export(asOf: 1)
        let gnomes = try #require(export["gnomes"]?.arrayValue)
        #expect(gnomes[1].canonicalText() == #"{"age":288,"friends":[],"hairColor":"Green","height":110.43628,"id":1,"name":"Fizkin Voidbuster","#
            + #""professions":["Brewer","Medic","Prospector","Gemcutter","Mason","Tailor"],"thumbnail":"http://www.publicdomainpictures.net/pictures/120000/nahled/white-hen.jpg","weight":35.279167}"#)
        #expect(export["count"] == .number(1337))
        let result = try await validate(export, schema: "gnomes")
        #expect(result.ok, "\(result.output)")
        let empty = GnomesView(state: LogState(sources: .seed)).export(asOf: 0)
        #expect(empty.canonicalText() == #"{"asOf":0,"count":0,"gnomes":[],"view":"gnomes"}"#)
        #expect(try await validate(empty, schema: "gnomes").ok)
    }
}

@Suite("GnomeViews: filters")
struct GnomeViewsFiltersTests {
    @Test func availableFilterFromTheCensus() async throws {
        let view = FiltersView(state: try censusState())
        let a = view.available
        #expect(a.age.min == 30 && a.age.max == 379)
        #expect(a.weight.min == 35.00214 && a.weight.max == 44.997665)
        #expect(a.height.min == 91.41726 && a.height.max == 129.37299)
        #expect(a.friends.min == 0 && a.friends.max == 4)
        #expect(a.hairColors == ["Black", "Gray", "Green", "Pink", "Red"])
        #expect(a.professions.count == 24 && a.professions.first == "Baker" && a.professions.last == "Woodcarver")
        #expect(a.professions.contains("Tinker") && !a.professions.contains(" Tinker"))
        let export = view.export(asOf: 1)
        #expect(export["available"]?["weight"]?.canonicalText() == #"{"max":44.997665,"min":35.00214}"#)
        #expect(export["matchingCount"] == .number(1337))
        #expect(export["active"]?.canonicalText() == #"{"ageMax":null,"ageMin":null,"friendsMax":null,"friendsMin":null,"#
            + #""hairColor":null,"heightMax":null,"heightMin":null,"name":null,"profession":null,"setAtSeq":0,"weightMax":null,"weightMin":null}"#)
    }

    @Test func activeFilterFromIntentCombinesWithSearch() async throws {
        let view = FiltersView(state: try censusState([("filter.set", #"{"hair_color":"Pink","profession":"Tinker"}"#)]))
        #expect(view.active.hairColor == "Pink" && view.active.profession == "Tinker" && view.activeSetAtSeq == 2)
        #expect(view.matching.count == 38)
        #expect(view.matching.prefix(5) == [0, 11, 17, 174, 188] && view.matching.last == 1303)
        #expect(view.filtered(search: "fiz").map(\.id) == [188, 396, 406, 705, 781])
        #expect(view.filtered(search: "").count == 38)
        let export = view.export(asOf: 2)
        #expect(export["matchingCount"] == .number(38))
        #expect(export["active"]?["setAtSeq"] == .number(2) && export["active"]?["hairColor"] == .string("Pink"))
        let result = try await validate(export, schema: "filters")
        #expect(result.ok, "\(result.output)")
    }

    @Test func matchingIsTrimmedAndCaseInsensitiveAndRangesInclusive() async throws {
        let loose = FiltersView(state: try censusState([("filter.set", #"{"hair_color":" pink ","profession":"TINKER"}"#)]))
        #expect(loose.matching.count == 38)
        let ranges = FiltersView(state: try censusState([("filter.set",
            #"{"age_min":100,"age_max":120,"friends_min":3,"weight_max":40,"height_min":100}"#)]))
        #expect(ranges.matching == [67, 205, 636, 950, 1013, 1188, 1255])
        let named = FiltersView(state: try censusState([("filter.set", #"{"name":"TOBUS","profession":"tinker"}"#)]))
        #expect(named.matching.count == 16 && named.matching.prefix(3) == [0, 13, 150])
        let edges = FiltersView(state: try censusState([("filter.set", #"{"age_min":379,"age_max":379}"#)]))
        #expect(edges.matching == [89, 717, 940])  // bounds are inclusive
        let lightest = FiltersView(state: try censusState([("filter.set", #"{"weight_min":35.00214,"weight_max":35.00214}"#)]))
        #expect(lightest.matching == [550])
    }

    @Test func resetClearsTheActiveFilter() async throws {
        let view = FiltersView(state: try censusState([("filter.set", #"{"hair_color":"Pink"}"#), ("filter.reset", "{}")]))
        #expect(view.active.isEmpty && view.activeSetAtSeq == 3)
        #expect(view.matching.count == 1337)
        #expect(view.export(asOf: 3)["active"]?["hairColor"] == .null)
    }

    @Test func emptyStateExportsNullRanges() async throws {
        let export = FiltersView(state: LogState(sources: .seed)).export(asOf: 0)
        #expect(export["available"]?.canonicalText() == #"{"age":{"max":null,"min":null},"friends":{"max":null,"min":null},"#
            + #""hairColors":[],"height":{"max":null,"min":null},"professions":[],"weight":{"max":null,"min":null}}"#)
        #expect(try await validate(export, schema: "filters").ok)
    }
}

@Suite("GnomeViews: friends")
struct GnomeViewsFriendsTests {
    @Test func friendsAndListedByInTheCensus() async throws {
        let view = FriendsView(state: try censusState())
        #expect(view.entries.count == 1337)
        #expect(view.entry(id: 0) == FriendsView.Entry(id: 0, friends: [273, 654], listedBy: [], unknownFriends: []))
        #expect(view.entry(id: 2)?.friends == [1113] && view.entry(id: 2)?.listedBy == [1115])
        // Libalia Fusstink is the most listed gnome.
        #expect(view.entry(id: 45) == FriendsView.Entry(id: 45, friends: [573],
                                                         listedBy: [662, 747, 752, 771, 900, 1050, 1167, 1294], unknownFriends: []))
        #expect(view.listingCount == 2660 && view.linkCount == 2660 && view.unknownNames.isEmpty)
        let result = try await validate(view.export(asOf: 1), schema: "friends")
        #expect(result.ok, "\(result.output)")
        #expect(view.export(asOf: 1)["totals"]?.canonicalText() == #"{"links":2660,"listings":2660,"unknownNames":0}"#)
    }

    @Test func shortestPathsInTheCensus() async throws {
        let view = FriendsView(state: try censusState())
        #expect(view.path(from: 0, to: 1336) == [0, 273, 4, 1336])
        #expect(view.path(from: 5, to: 700) == [5, 1141, 1057, 516, 466, 700])
        // Three shortest chains exist; the smallest is [0,654,605,967,855,237]
        // (the others: 0,654,1260,129,937,237 and 0,654,1260,1059,593,237).
        #expect(view.path(from: 0, to: 237) == [0, 654, 605, 967, 855, 237])
        #expect(view.path(from: 0, to: 1) == nil)     // 1 has no friends and nobody lists it
        #expect(view.path(from: 0, to: 74) == nil)    // 74 and 253 are a component of their own
        #expect(view.path(from: 74, to: 253) == [74, 253])
        #expect(view.path(from: 9, to: 9) == [9])
        #expect(view.path(from: 0, to: 5000) == nil)
    }

    @Test func tieBreakAndUnknownNamesOnATinyCensus() async throws {
        let view = FriendsView(state: tinyState(diamond))
        #expect(view.entries.map(\.id) == [0, 1, 2, 3, 4, 5, 6, 7, 8])
        #expect(view.path(from: 0, to: 7) == [0, 1, 5, 7])
        #expect(view.path(from: 7, to: 0) == [7, 3, 2, 0])
        #expect(view.path(from: 4, to: 7) == [4, 0, 1, 5, 7])
        #expect(view.path(from: 0, to: 8) == nil)
        #expect(view.path(from: 8, to: 8) == [8])
        #expect(view.entry(id: 4) == FriendsView.Entry(id: 4, friends: [0], listedBy: [], unknownFriends: ["Nobody"]))
        #expect(view.entry(id: 7)?.listedBy == [3, 5, 6])
        #expect(view.entry(id: 1)?.friends == [6, 5])
        #expect(view.unknownNames == ["Nobody"])
        let export = view.export(asOf: 1)
        #expect(export["totals"]?.canonicalText() == #"{"links":9,"listings":9,"unknownNames":1}"#)
        #expect(export["gnomes"]?.arrayValue?[4].canonicalText() == #"{"friends":[0],"id":4,"listedBy":[],"unknownFriends":["Nobody"]}"#)
        #expect(try await validate(export, schema: "friends").ok)
        // The same census seen by the other views: ids in order, " Tinker" trimmed.
        #expect(GnomesView(state: tinyState(diamond)).search("tinker").count == 9)
    }

    @Test func everyPathFromOneGnomeIsShortAndLinked() async throws {
        let view = FriendsView(state: try censusState())
        var reached = 0, longest = 0
        for id in 0...1336 {
            guard let path = view.path(from: 0, to: id) else { continue }
            reached += 1
            longest = max(longest, path.count - 1)
        }
        #expect(reached == 1298 && longest == 9)
    }
}

@Suite("GnomeViews: matching text")
struct FoldedTextTests {
    /// The byte-wise path must answer exactly as `String.contains` (by Character) does,
    /// including the cases it must refuse: "\r\n" is one Character, and a combining mark
    /// after "e" makes "é", which does not contain "e".
    @Test func containsAgreesWithCharacterMatching() {
        var random = JSONTapeTests.SplitMix(state: 11)
        let alphabet: [String] = ["a", "b", "e", " ", "\r", "\n", "\u{301}", "é", "ß", "-", "z"]
        var bytewisePairs = 0, agreed = 0
        for _ in 0 ..< 20_000 {
            let haystack = (0 ..< Int.random(in: 0 ... 8, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
            let needle = (0 ..< Int.random(in: 1 ... 3, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
            let h = FoldedText(haystack), n = FoldedText(needle)
            if h.bytewise && n.bytewise { bytewisePairs += 1 }
            #expect(h.contains(n) == haystack.contains(needle), "\(haystack.debugDescription) ⊇ \(needle.debugDescription)")
            agreed += 1
        }
        #expect(agreed == 20_000 && bytewisePairs > 2_000)
        #expect(FoldedText("a\r\nb").bytewise == false && FoldedText("e\u{301}").contains(FoldedText("e")) == false)
        #expect(FoldedText("tobus quickwhistle").contains(FoldedText("whistle")))
    }
}
