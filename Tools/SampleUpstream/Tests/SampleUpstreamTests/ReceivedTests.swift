import Foundation
import Testing
@testable import SampleUpstream

/// The received list notes a request on arrival, before a latency fault holds it, where the
/// request log notes it only once answered: a client test can act while the request is in flight.
@Suite("Received requests")
struct ReceivedTests {
    @Test func aHeldRequestIsListedOnArrivalAndLoggedOnAnswer() async throws {
        var configuration = SampleUpstreamConfiguration()
        // Long enough that a stalled loaded machine still sees the request held.
        configuration.faults = [Fault(match: "/brastlewark", kind: .latency(milliseconds: 30_000))]
        // The client and the polls at the server's priority (high): at the suite's default
        // priority, on two cores shared with every other test, the request was seen to take
        // longer than the held 30 s to arrive. The deadline is only a ceiling for a request
        // that never arrives.
        try await Task(priority: .high) { [configuration] in try await withServer(configuration) { h async throws in
            let answer = Task { try await h.get("/brastlewark/data.json") }
            var arrived = false
            let deadline = ContinuousClock.now + .seconds(120)
            while !arrived, ContinuousClock.now < deadline {
                arrived = await h.server.receivedPaths == ["/brastlewark/data.json"]
                if !arrived { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(arrived)
            // Held by the latency: received, not yet answered.
            #expect(await h.server.requestLog.isEmpty)
            let viaHTTP = try await h.get("/_admin/received")
            #expect(viaHTTP.json as? [String] == ["/brastlewark/data.json"])
            #expect(try await answer.value.status == 200)
            #expect(await h.server.requestLog.map(\.path) == ["/brastlewark/data.json"])
            // Admin requests are not noted; clearing the request log clears the list too.
            #expect(await h.server.receivedPaths == ["/brastlewark/data.json"])
            #expect(try await h.send(.DELETE, "/_admin/requests").status == 200)
            #expect(await h.server.receivedPaths.isEmpty)
        } }.value
    }
}
