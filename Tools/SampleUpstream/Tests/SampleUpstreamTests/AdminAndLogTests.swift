import Foundation
import Testing
@testable import SampleUpstream

@Suite("Admin API and request log")
struct AdminAndLogTests {
    @Test func requestLogRecordsEveryServedRequest() async throws {
        try await withServer { h async throws in
            let first = try await h.get("/tvmaze/shows?page=0")
            let etag = try #require(first.header("ETag"))
            _ = try await h.get("/tvmaze/shows?page=0", headers: [("If-None-Match", etag), ("If-Modified-Since", "Sat, 01 Jan 2000 00:00:00 GMT")])
            _ = try await h.get("/nosuch")
            _ = try await h.get("/_admin/requests")
            let log = await h.server.requestLog
            #expect(log.count == 3)
            #expect(log.map(\.index) == [0, 1, 2])
            #expect(log.map(\.status) == [200, 304, 404])
            #expect(log.map(\.path) == ["/tvmaze/shows?page=0", "/tvmaze/shows?page=0", "/nosuch"])
            #expect(log.allSatisfy { $0.method == "GET" && $0.fault == nil })
            #expect(log[1].ifNoneMatch == etag)
            #expect(log[1].ifModifiedSince == "Sat, 01 Jan 2000 00:00:00 GMT")
            #expect(log[0].ifNoneMatch == nil)

            let viaHTTP = try await h.get("/_admin/requests")
            #expect(viaHTTP.array.count == 3)
            #expect(viaHTTP.array[1]["ifNoneMatch"] as? String == etag)
            #expect(viaHTTP.array[2]["status"] as? Int == 404)

            #expect(try await h.send(.DELETE, "/_admin/requests").status == 200)
            #expect(await h.server.requestLog.isEmpty)
            _ = try await h.get("/brastlewark/data.json")
            #expect(await h.server.requestLog.map(\.index) == [3])
        }
    }

    @Test func adminFaultsOverHTTP() async throws {
        try await withServer { h async throws in
            let set = try await h.send(.POST, "/_admin/faults", body: #"{"faults":[{"match":"/artic","kind":"failNext","count":1,"status":500}],"specs":["status=429:3@/viaplay"]}"#)
            #expect(set.status == 200 && set.array.count == 2)
            #expect(await h.server.faults.count == 2)
            #expect(try await h.get("/artic/api/v1/agents/2").status == 500)
            #expect(try await h.get("/artic/api/v1/agents/2").status == 200)
            let limited = try await h.get("/viaplay/ios-se")
            #expect(limited.status == 429 && limited.header("Retry-After") == "3")

            // Admin routes are never faulted, even by a catch-all fault.
            _ = try await h.send(.POST, "/_admin/faults", body: #"[{"kind":"status","status":503}]"#)
            #expect(try await h.get("/_admin/faults").array.count == 1)
            #expect(try await h.get("/brastlewark/data.json").status == 503)
            #expect(try await h.send(.DELETE, "/_admin/faults").status == 200)
            #expect(try await h.get("/brastlewark/data.json").status == 200)

            let bad = try await h.send(.POST, "/_admin/faults", body: #"{"specs":["explode"]}"#)
            #expect(bad.status == 400)
        }
    }

    @Test func adminVersionSwitch() async throws {
        try await withServer { h async throws in
            let before = try await h.get("/tvmaze/shows?page=0")
            let switched = try await h.send(.POST, "/_admin/version", body: #"{"tvmaze":"2019","brastlewark":"v2"}"#)
            #expect(switched.status == 200)
            #expect(switched.object["tvmaze"] as? String == "2019" && switched.object["brastlewark"] as? String == "v2")
            let after = try await h.get("/tvmaze/shows?page=0")
            #expect(after.body != before.body)
            #expect(after.header("ETag") != before.header("ETag"))
            #expect((after.array.first?["url"] as? String)?.hasPrefix("http://") == true)
            #expect(after.array.count == 240)
            #expect(((try await h.get("/brastlewark/data.json")).object["Brastlewark"] as? [Any])?.count == 1338)
            #expect(try await h.send(.POST, "/_admin/version", body: #"{"tvmaze":"1999"}"#).status == 400)
            #expect(try await h.send(.GET, "/_admin/nothing").status == 404)
        }
    }

    @Test func loopbackCheck() throws {
        #expect(AdminRoutes.isLoopback(try .init(ipAddress: "127.0.0.1", port: 1)))
        #expect(AdminRoutes.isLoopback(try .init(ipAddress: "::1", port: 1)))
        #expect(!AdminRoutes.isLoopback(try .init(ipAddress: "192.168.1.10", port: 1)))
        #expect(!AdminRoutes.isLoopback(nil))
    }

    @Test func startReturnsBoundBaseURLAndStops() async throws {
        let server = try SampleUpstream(configuration: .init())
        let url = try await server.start()
        #expect(url.scheme == "http" && url.host == "127.0.0.1")
        #expect((url.port ?? 0) > 0)
        #expect(!url.absoluteString.hasSuffix("/"))
        #expect(try await server.start() == url)
        await server.stop()
        #expect(await server.baseURL == nil)
        #expect(throws: SampleUpstreamError.self) { try SampleUpstream(configuration: .init(port: 70_000)) }
    }
}
