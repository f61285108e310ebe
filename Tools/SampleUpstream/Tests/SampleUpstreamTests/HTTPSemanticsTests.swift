import Foundation
import Testing
@testable import SampleUpstream

@Suite("Validators and conditional requests")
struct HTTPSemanticsTests {
    @Test func ifNoneMatchForms() async throws {
        try await withServer { h async throws in
            let first = try await h.get("/viaplay/ios-se")
            let etag = try #require(first.header("ETag"))
            #expect(first.header("Cache-Control") == "max-age=60")
            #expect(etag == Validators.etag(for: Fixtures.data("viaplay/ios-se-root-2022.json")))

            for value in [etag, "\"nope\", \(etag)", "*", "W/\(etag)"] {
                let r = try await h.get("/viaplay/ios-se", headers: [("If-None-Match", value)])
                #expect(r.status == 304, "\(value)")
                #expect(r.body.isEmpty)
                #expect(r.header("ETag") == etag)
            }
            let changed = try await h.get("/viaplay/ios-se", headers: [("If-None-Match", "\"0000000000000000\"")])
            #expect(changed.status == 200 && changed.body == first.body)
        }
    }

    @Test func ifModifiedSince() async throws {
        try await withServer { h async throws in
            let first = try await h.get("/thmanyah/home_sections?page=1")
            let lastModified = try #require(first.header("Last-Modified"))
            #expect(lastModified == "Sat, 23 Aug 2025 00:00:00 GMT")
            #expect(try await h.get("/thmanyah/home_sections?page=1", headers: [("If-Modified-Since", lastModified)]).status == 304)
            #expect(try await h.get("/thmanyah/home_sections?page=1", headers: [("If-Modified-Since", "Sun, 01 Jan 2034 00:00:00 GMT")]).status == 304)
            #expect(try await h.get("/thmanyah/home_sections?page=1", headers: [("If-Modified-Since", "Fri, 22 Aug 2025 23:59:59 GMT")]).status == 200)
            // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3).
            let both = try await h.get("/thmanyah/home_sections?page=1", headers: [("If-None-Match", "\"other\""), ("If-Modified-Since", lastModified)])
            #expect(both.status == 200)
        }
    }

    @Test func versionSwitchChangesBodyETagAndDate() async throws {
        try await withServer { h async throws in
            let before = try await h.get("/tvmaze/shows?page=0")
            let etag = try #require(before.header("ETag"))
            await h.server.setVersion(tvmaze: .v2019)
            let after = try await h.get("/tvmaze/shows?page=0", headers: [("If-None-Match", etag)])
            #expect(after.status == 200)
            #expect(after.body == Fixtures.data("tvmaze/shows-page-0-2019.json"))
            #expect(after.header("ETag") != etag)
            // Moving to older data must still not look unmodified to a date-only client.
            let byDate = try await h.get("/tvmaze/shows?page=0", headers: [("If-Modified-Since", before.header("Last-Modified") ?? "")])
            #expect(byDate.status == 200)
            #expect(await h.server.versions == DataVersions(tvmaze: .v2019, brastlewark: .v1))
        }
    }

    /// `/catalog/no-store` says so; `/catalog/localized` answers by `Accept-Language`, with
    /// `Vary` and an ETag per language: another language's ETag gets a 200, its own a 304.
    @Test func noStoreAndVaryRoutes() async throws {
        try await withServer { h async throws in
            let private_ = try await h.get("/catalog/no-store")
            #expect(private_.status == 200)
            #expect(private_.header("Cache-Control") == "no-store")
            #expect(String(decoding: private_.body, as: UTF8.self) == #"[{"id":1,"name":"item 1","size":10},{"id":2,"name":"item 2","size":20}]"#)

            let english = try await h.get("/catalog/localized", headers: [("Accept-Language", "en")])
            #expect(english.header("Vary") == "Accept-Language")
            #expect(String(decoding: english.body, as: UTF8.self) == #"[{"id":1,"name":"one"},{"id":2,"name":"two"}]"#)
            let englishTag = try #require(english.header("ETag"))
            let french = try await h.get("/catalog/localized", headers: [("Accept-Language", "fr-CA"), ("If-None-Match", englishTag)])
            #expect(french.status == 200)
            #expect(String(decoding: french.body, as: UTF8.self) == #"[{"id":1,"name":"un"},{"id":2,"name":"deux"}]"#)
            let frenchTag = try #require(french.header("ETag"))
            #expect(frenchTag != englishTag)
            #expect(try await h.get("/catalog/localized", headers: [("Accept-Language", "fr"), ("If-None-Match", frenchTag)]).status == 304)
        }
    }

    @Test func etagIsDeterministicFNV1a() {
        // FNV-1a 64 test vectors: "" and "a".
        #expect(Validators.etag(for: Data()) == "\"cbf29ce484222325\"")
        #expect(Validators.etag(for: Data("a".utf8)) == "\"af63dc4c8601ec8c\"")
        #expect(Validators.ifNoneMatch("W/\"x\" , \"y\"", matches: "\"y\""))
        #expect(!Validators.ifNoneMatch("\"x\"", matches: "\"y\""))
    }
}
