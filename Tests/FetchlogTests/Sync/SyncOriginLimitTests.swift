import Foundation
import Hummingbird
import NIOCore
import Synchronization
import Testing
@testable import FetchlogCore

/// Issue 37's acceptance: 100 resources on 3 origins with N = 4 — never more than 4 requests
/// at once per origin, counted at the servers, not by the client that might be wrong.
@Suite struct SyncOriginLimitTests {
    /// Counts one server's requests at once and holds each answer until `width` are waiting
    /// or every request it will get has arrived. A correct client keeps exactly `width`
    /// requests outstanding while it has more to send, and held answers never end, so the
    /// waiting set always fills to `width` (or to the last stragglers): the maximum seen is
    /// exactly `width`, on any machine and load, with no sleep. A wider client is caught
    /// only when its extra request arrives before a released batch has answered, which is
    /// a race (with `perOrigin` 5 the maximum was seen at 4): the count at the server is
    /// the bound a correct client is held to, not proof every overshoot would show.
    final class Gate: Sendable {
        struct State {
            var arrived = 0
            var inFlight = 0
            var maximum = 0
            var held: [CheckedContinuation<Void, Never>] = []
            var paths: [String] = []
        }

        let width: Int
        let expected: Int
        let state = Mutex(State())

        init(width: Int, expected: Int) {
            self.width = width
            self.expected = expected
        }

        func enter(_ path: String) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let released: [CheckedContinuation<Void, Never>] = state.withLock { s in
                    s.arrived += 1
                    s.inFlight += 1
                    s.maximum = max(s.maximum, s.inFlight)
                    s.paths.append(path)
                    s.held.append(continuation)
                    guard s.held.count >= width || s.arrived >= expected else { return [] }
                    defer { s.held = [] }
                    return s.held
                }
                for waiting in released { waiting.resume() }
            }
        }

        /// Called before the handler returns: the client cannot start another request in
        /// this one's place before it has this answer, so the count never runs behind it.
        func leave() { state.withLock { $0.inFlight -= 1 } }
    }

    static func manifest(name: String, base: String, count: Int) -> String {
        let resources = (0 ..< count).map { i in
            #"{"name":"r\#(i)","endpoint":{"path":"r/\#(i)","paginator":"single_page"},"primary_key":"id"}"#
        }
        return #"{"name":"\#(name)","client":{"base_url":"\#(base)"},"resources":[\#(resources.joined(separator: ","))]}"#
    }

    @Test func aHundredResourcesOnThreeOriginsNeverMoreThanFourAtOncePerOrigin() async throws {
        let counts = [34, 33, 33]
        let names = ["east", "north", "west"]
        var gates: [Gate] = []
        var servers: [LoopbackServer] = []
        for (index, count) in counts.enumerated() {
            let gate = Gate(width: 4, expected: count)
            let router = Router()
            router.get("/r/:id") { request, context in
                await gate.enter(request.uri.path)
                defer { gate.leave() }
                let id = context.parameters.get("id") ?? "?"
                return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "max-age=3600"],
                                body: .init(byteBuffer: ByteBuffer(string: #"[{"id":"\#(id)"}]"#)))
            }
            gates.append(gate)
            servers.append(try await LoopbackServer.start(router, label: "origin-limit-\(index)"))
        }

        let directory = TemporaryDirectory("sync-origin-limit")
        var configuration = Store.Configuration()
        // Each manifest's own base, not one stand-in upstream: three origins, three lanes.
        configuration.fetching.upstream = .real
        configuration.fetching.allowPrivateHosts = true
        configuration.fetching.retry.retries = 0
        configuration.fetching.connectTimeout = .seconds(120)
        configuration.fetching.readTimeout = .seconds(120)
        configuration.fetching.deadline = .seconds(300)
        let store = try await Store.open(at: URL(filePath: directory.sub("store")), sources: SourceRegistry([]), configuration: configuration)
        for (index, server) in servers.enumerated() {
            try await store.define(RestManifest(json: JSONValue.parse(Self.manifest(name: names[index], base: server.base, count: counts[index]))))
        }

        var runner = SyncRunner(store: store, policy: FreshnessPolicy(sources: SourceRegistry([])), clock: FixedClock(fixedTime))
        runner.perOrigin = 4
        let pass = try await runner.pass()

        #expect(pass.requests == 100)
        #expect(pass.rows.count == 100)
        #expect(pass.rows.allSatisfy { $0.outcome == .refreshed && $0.requests == 1 })
        for (index, gate) in gates.enumerated() {
            let seen = gate.state.withLock { $0 }
            // Every resource of the origin asked exactly once, and nothing else.
            #expect(seen.paths.sorted() == (0 ..< counts[index]).map { "/r/\($0)" }.sorted())
            #expect(seen.arrived == counts[index])
            #expect(seen.maximum == 4)
            #expect(seen.inFlight == 0)
        }
        #expect(gates.reduce(0) { $0 + $1.state.withLock { $0.arrived } } == 100)
        await store.close()
        for server in servers { await server.stop() }
    }
}
