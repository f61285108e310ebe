import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Time travel is the store's (`Store.state(asOf:)`): from its checkpoint and the tail up
/// to the seq when the checkpoint is at or before it, else a replay from seq 1. Either way
/// it must equal the state replayed from the log alone, at every seq.
@Suite struct StoreTimeTravelTests {
    @Test func everySeqOfTheSampleLogMatchesAReplayFromTheCheckpointOrTheStart() async throws {
        let dir = TemporaryDirectory("asof")
        let path = try DamagedFileTests.sampleStore(dir)
        let log = try EventLog.open(at: path)
        defer { log.close() }
        // A checkpoint in the middle of the log (seq 6), as if saved before the last 7 events.
        let middle = try Store.replay(log, sources: .seed, to: 6).state
        try await log.saveCheckpoint(Checkpoint.encode(middle))
        let store = try Store(log: log, sources: .seed)
        #expect(store.origin == .checkpoint(seq: 6, tail: 7))
        for seq in UInt64(1) ... 13 {
            let expected = try Store.replay(log, sources: .seed, to: seq).state
            let travelled = try store.state(asOf: seq)
            #expect(travelled == expected, "seq \(seq)")
            #expect(travelled.seq == seq)
            #expect(ViewCatalog.hashes(of: travelled).map(\.sha256) == ViewCatalog.hashes(of: expected).map(\.sha256), "seq \(seq)")
        }
        // The filter intent is seq 13: before it, no filter; at it, Pink Tinkers.
        #expect(try store.state(asOf: 12).gnomeFilter.isEmpty)
        #expect(try store.state(asOf: 13).gnomeFilter.hairColor == "Pink")
        #expect(try store.state(asOf: 13).gnomeFilter.profession == "Tinker")
        #expect(try store.state(asOf: 13) == store.durableState)
    }
}
