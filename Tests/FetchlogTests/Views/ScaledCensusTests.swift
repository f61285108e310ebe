import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// The census the scale benchmark fetches (`censusCopies`): towns of the recorded census
/// with their own ids and names, so each copy has the recorded friendships and no other.
@Suite struct ScaledCensusTests {
    @Test func threeCopiesAreThreeTownsWithTheRecordedFriendships() async throws {
        // Decoding and indexing 4,011 gnomes in a debug build: off the cooperative threads.
        let state = try await offPool(lowestPriority: true) {
            var b = StateBuilder()
            b.fetched(.brastlewarkCensus, body: [UInt8](SampleUpstream.scaledCensus(copies: 3)))
            return b.state
        }
        let gnomes = GnomesView(state: state), friends = FriendsView(state: state)
        #expect(gnomes.count == 4011)
        #expect(gnomes.gnomes.map(\.id) == Array(0 ..< 4011))
        #expect(gnomes.gnome(id: 1337)?.name == "Tobus Quickwhistle 1" && gnomes.gnome(id: 2674)?.name == "Tobus Quickwhistle 2")
        // Numbers keep their recorded text: gnome 0's weight and height as in the fixture.
        #expect(gnomes.gnome(id: 2674)?.weight == 39.065952 && gnomes.gnome(id: 2674)?.height == 107.75835)
        // Three times the recorded 2,660 links; paths stay in their town, shifted by 1,337.
        #expect(friends.linkCount == 3 * 2660 && friends.unknownNames.isEmpty)
        #expect(friends.path(from: 1337, to: 1337 + 237) == [0, 654, 605, 967, 855, 237].map { $0 + 1337 })
        #expect(friends.path(from: 0, to: 1337 + 237) == nil)
        // A search finds each town's gnome: the indexes see all three.
        #expect(gnomes.search("tobus quickwhistle").map(\.id) == [0, 1337, 2674])
    }
}
