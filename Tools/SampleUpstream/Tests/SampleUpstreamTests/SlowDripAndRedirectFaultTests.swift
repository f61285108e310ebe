import Foundation
import Testing
@testable import SampleUpstream

/// The faults added for issue 13: `slowDrip` and `redirect`, and request headers in the log.
@Suite("Slow drip and redirect faults")
struct SlowDripAndRedirectFaultTests {
    @Test func specsAndJSONRoundTrip() throws {
        #expect(try FaultSpec.parse("slow-drip") == [Fault(kind: .slowDrip(milliseconds: 100))])
        #expect(try FaultSpec.parse("slow-drip=25ms@brastlewark") == [Fault(match: "/brastlewark", kind: .slowDrip(milliseconds: 25))])
        #expect(try FaultSpec.parse("redirect=http://127.0.0.1:9/x") == [Fault(kind: .redirect(302, location: "http://127.0.0.1:9/x"))])
        #expect(try FaultSpec.parse("redirect=307:/viaplay/ios-se@/brastlewark")
            == [Fault(match: "/brastlewark", kind: .redirect(307, location: "/viaplay/ios-se"))])
        // The last @ starts MATCH, so a location may carry userinfo.
        #expect(try FaultSpec.parse("redirect=http://u:p@h/x@*") == [Fault(kind: .redirect(302, location: "http://u:p@h/x"))])
        #expect(throws: FaultSpecError.self) { try FaultSpec.parse("redirect=200:/x") }
        #expect(throws: FaultSpecError.self) { try FaultSpec.parse("slow-drip=0ms") }
        #expect(throws: FaultSpecError.self) { try FaultSpec.parse("redirect") }
        for fault in [Fault(match: "/a", kind: .slowDrip(milliseconds: 7)), Fault(kind: .redirect(308, location: "http://h/y"))] {
            let decoded = try JSONDecoder().decode(Fault.self, from: JSONEncoder().encode(fault))
            #expect(decoded == fault)
            #expect(try FaultSpec.parse(fault.description) == [fault])
        }
    }

    @Test func redirectAnswersLocationAndTheLogKeepsHeaders() async throws {
        try await withServer(.init(faults: [Fault(match: "/brastlewark", kind: .redirect(302, location: "/viaplay/ios-se"))])) { h async throws in
            // The test client follows redirects: the 302 leads to the viaplay root.
            let followed = try await h.get("/brastlewark/data.json", headers: [("Authorization", "Basic eDp5")])
            #expect(followed.status == 200)
            let log = await h.server.requestLog
            #expect(log.map(\.status) == [302, 200])
            #expect(log.map(\.path) == ["/brastlewark/data.json", "/viaplay/ios-se"])
            #expect(log.first?.fault == "redirect=/viaplay/ios-se@/brastlewark")
            #expect(log.first?.headers?["authorization"] == "Basic eDp5")
        }
    }
}
