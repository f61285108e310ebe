import Foundation
import Testing
@testable import SampleUpstream

@Suite("Viaplay data version")
struct ViaplayVersionTests {
    static let root2022 = "viaplay/ios-se-root-2022.json"
    static let root2024 = "viaplay/ios-se-root-2024.json"

    @Test func switchTo2024ServesRecordedRootAndMovesValidators() async throws {
        try await withServer { h async throws in
            let before = try await h.get("/viaplay/ios-se")
            #expect(before.status == 200)
            #expect(before.body == Fixtures.data(Self.root2022))
            #expect(before.header("Last-Modified") == "Tue, 01 Feb 2022 00:00:00 GMT")
            let oldETag = try #require(before.header("ETag"))
            #expect(try await h.get("/viaplay/ios-se", headers: [("If-None-Match", oldETag)]).status == 304)

            await h.server.setVersion(viaplay: .v2024)
            #expect(await h.server.versions == DataVersions(tvmaze: .v2024, brastlewark: .v1, viaplay: .v2024))

            let after = try await h.get("/viaplay/ios-se", headers: [("If-None-Match", oldETag)])
            #expect(after.status == 200)
            #expect(after.body == Fixtures.data(Self.root2024))
            #expect(after.body.count == Fixtures.data(Self.root2024).count)
            #expect(after.header("Content-Length") == String(Fixtures.data(Self.root2024).count))
            #expect(after.header("Cache-Control") == "max-age=60")
            #expect(after.object["pageType"] as? String == "root")
            let newETag = try #require(after.header("ETag"))
            #expect(newETag != oldETag)
            #expect(newETag == Validators.etag(for: Fixtures.data(Self.root2024)))
            // Newest viaplay date (2024-01-01) plus one day for the one switch.
            #expect(after.header("Last-Modified") == "Tue, 02 Jan 2024 00:00:00 GMT")

            let current = try await h.get("/viaplay/ios-se", headers: [("If-None-Match", newETag)])
            #expect(current.status == 304)
            #expect(current.body.isEmpty)
            #expect(current.header("ETag") == newETag)
            // A date-only client holding the 2022 copy sees the change too.
            let byDate = try await h.get("/viaplay/ios-se", headers: [("If-Modified-Since", "Tue, 01 Feb 2022 00:00:00 GMT")])
            #expect(byDate.status == 200)

            // Other sources are untouched by a viaplay switch.
            #expect(try await h.get("/tvmaze/shows?page=0").header("Last-Modified") == "Tue, 16 Apr 2024 00:00:00 GMT")
            #expect(try await h.get("/brastlewark/data.json").header("Last-Modified") == "Fri, 01 Jan 2021 00:00:00 GMT")

            // Switching to the active version is no switch; switching back is, and moves the date again.
            await h.server.setVersion(viaplay: .v2024)
            #expect(try await h.get("/viaplay/ios-se").header("Last-Modified") == "Tue, 02 Jan 2024 00:00:00 GMT")
            await h.server.setVersion(viaplay: .v2022)
            let back = try await h.get("/viaplay/ios-se", headers: [("If-None-Match", newETag)])
            #expect(back.status == 200)
            #expect(back.body == Fixtures.data(Self.root2022))
            #expect(back.header("ETag") == oldETag)
            #expect(back.header("Last-Modified") == "Wed, 03 Jan 2024 00:00:00 GMT")
        }
    }

    @Test func sectionPathsComeFromBothRoots() async throws {
        #expect(ViaplayRoutes.sectionPaths == ["/androidv2-se/serier", "/ios-se/serier", "/ios-se/film", "/ios-se/sport", "/ios-se/barn"])
        try await withServer(.init(versions: DataVersions(viaplay: .v2024))) { h async throws in
            let root = try await h.get("/viaplay/ios-se")
            #expect(root.body == Fixtures.data(Self.root2024))
            #expect(root.header("Last-Modified") == "Mon, 01 Jan 2024 00:00:00 GMT")
            let links = try #require(root.object["_links"] as? [String: Any])
            let sections = try #require(links["viaplay:sections"] as? [[String: Any]])
            #expect(sections.count == 4)
            for section in sections {
                let href = try #require(section["href"] as? String)
                #expect(href.hasPrefix("https://content.viaplay.com/ios-se/") && href.hasSuffix("{?dtg,productsPerPage}"))
                let path = try #require(URL(string: String(href.prefix { $0 != "{" }))?.path)
                let page = try await h.get("/viaplay" + path + "?dtg=tablet&productsPerPage=20")
                #expect(page.status == 200)
                #expect(page.body == Fixtures.data("viaplay/androidv2-se-serier-section-2016.json"))
            }
            #expect(try await h.get("/viaplay/ios-se/nyheter").status == 404)
        }
    }

    @Test func adminVersionCarriesViaplay() async throws {
        try await withServer { h async throws in
            let initial = try await h.get("/_admin/version")
            #expect(initial.object["viaplay"] as? String == "2022")
            let switched = try await h.send(.POST, "/_admin/version", body: #"{"viaplay":"2024"}"#)
            #expect(switched.status == 200)
            #expect(switched.object["viaplay"] as? String == "2024")
            #expect(switched.object["tvmaze"] as? String == "2024" && switched.object["brastlewark"] as? String == "v1")
            #expect(try await h.get("/_admin/version").object["viaplay"] as? String == "2024")
            #expect(try await h.get("/viaplay/ios-se").body == Fixtures.data(Self.root2024))
            #expect(try await h.send(.POST, "/_admin/version", body: #"{"viaplay":"2023"}"#).status == 400)
            // The existing shape without viaplay still works and leaves viaplay alone.
            let other = try await h.send(.POST, "/_admin/version", body: #"{"tvmaze":"2019"}"#)
            #expect(other.object["viaplay"] as? String == "2024" && other.object["tvmaze"] as? String == "2019")
        }
    }

    @Test func dataVersionsCoding() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(DataVersions(viaplay: .v2024)), as: UTF8.self)
        #expect(text == #"{"brastlewark":"v1","tvmaze":"2024","viaplay":"2024"}"#)
        // JSON written before viaplay was versioned decodes with the default.
        let old = try JSONDecoder().decode(DataVersions.self, from: Data(#"{"tvmaze":"2019","brastlewark":"v2"}"#.utf8))
        #expect(old == DataVersions(tvmaze: .v2019, brastlewark: .v2, viaplay: .v2022))
        #expect(ViaplayDataVersion.allCases.map(\.rawValue) == ["2022", "2024"])
    }
}

@Suite("TVmaze page size")
struct TVMazePageSizeTests {
    @Test func pageSize250() async throws {
        try await withServer(.init(tvmazePageSize: 250)) { h async throws in
            let p0 = try await h.get("/tvmaze/shows?page=0")
            #expect(ids(p0.array) == Array(1...250))
            #expect(p0.array.first?["name"] as? String == "Under the Dome #1")

            let p3 = try await h.get("/tvmaze/shows?page=3")
            #expect(p3.status == 200)
            #expect(p3.array.count == 250)
            #expect(ids(p3.array).first == 751 && ids(p3.array).last == 1000)
            #expect(ids(p3.array) == Array(751...1000))
            // Show 751 is recorded record 265 (0-based) of page 0 + page 1: id 276, "New Tricks".
            let first = try #require(p3.array.first)
            #expect(first["name"] as? String == "New Tricks #751")
            #expect(first["url"] as? String == "https://www.tvmaze.com/shows/751/new-tricks")
            #expect(((first["_links"] as? [String: Any])?["self"] as? [String: Any])?["href"] as? String == "https://api.tvmaze.com/shows/751")
            // Generated shows have images of their own (so item 1,000 and 1,001 are different downloads).
            #expect((first["image"] as? [String: Any])?["original"] as? String == "https://static.tvmaze.com/uploads/images/original_untouched/sized/751.jpg")

            let end = try await h.get("/tvmaze/shows?page=4")
            #expect(end.status == 404)
            #expect(end.object["message"] as? String == "Page not found.")

            let show = try await h.get("/tvmaze/shows/1000")
            #expect(show.status == 200)
            #expect(show.object["id"] as? Int == 1000)
            #expect(show.object["name"] as? String == "Marvel's Agents of S.H.I.E.L.D. #1000")
            #expect(show.object["url"] as? String == "https://www.tvmaze.com/shows/1000/marvels-agents-of-shield")
            #expect(((show.object["_links"] as? [String: Any])?["self"] as? [String: Any])?["href"] as? String == "https://api.tvmaze.com/shows/1000")
            #expect((show.object["image"] as? [String: Any])?["medium"] as? String == "https://static.tvmaze.com/uploads/images/medium_portrait/sized/1000.jpg")
            // The page and the detail route agree on every field.
            let last = try #require(p3.array.last)
            #expect(NSDictionary(dictionary: last).isEqual(to: show.object))

            #expect(try await h.get("/tvmaze/shows/1001").status == 404)
            #expect(try await h.get("/tvmaze/shows/0").status == 404)
            // Show 1 is generated too, so it matches its page entry rather than show-1.json.
            #expect(try await h.get("/tvmaze/shows/1").object["name"] as? String == "Under the Dome #1")
            #expect(try await h.get("/tvmaze/shows/1000/images").array.count == 5)
            #expect(try await h.get("/tvmaze/shows/1000/episodes").body == Data("[]".utf8))
            let hits = try await h.get("/tvmaze/search/shows?q=%231000").array
            #expect(hits.count == 1 && (hits.first?["show"] as? [String: Any])?["id"] as? Int == 1000)
        }
    }

    @Test func pageSize100With12Pages() async throws {
        try await withServer(.init(tvmazePages: 12, tvmazePageSize: 100)) { h async throws in
            let p3 = try await h.get("/tvmaze/shows?page=3")
            #expect(ids(p3.array).count == 100 && ids(p3.array).first == 301 && ids(p3.array).last == 400)
            let p9 = try await h.get("/tvmaze/shows?page=9")
            #expect(p9.status == 200)
            #expect(p9.array.count == 100)
            #expect(ids(p9.array).first == 901 && ids(p9.array).last == 1000)
            #expect(ids(p9.array) == Array(901...1000))
            #expect(p9.array.first?["name"] as? String == "Angel #901")
            let p11 = try await h.get("/tvmaze/shows?page=11")
            #expect(ids(p11.array).first == 1101 && ids(p11.array).last == 1200)
            #expect(p11.array.last?["name"] as? String == "Anger Management #1200")
            #expect(try await h.get("/tvmaze/shows?page=12").status == 404)

            let show = try await h.get("/tvmaze/shows/1000")
            #expect(show.object["id"] as? Int == 1000)
            #expect(show.object["name"] as? String == "Marvel's Agents of S.H.I.E.L.D. #1000")
            #expect(try await h.get("/tvmaze/shows/1200").object["id"] as? Int == 1200)
            #expect(try await h.get("/tvmaze/shows/1201").status == 404)
        }
    }

    @Test func sizedPagesAreDeterministic() async throws {
        let configuration = SampleUpstreamConfiguration(tvmazePages: 12, tvmazePageSize: 100)
        var bodies: [[Data]] = []
        var etags: [[String?]] = []
        for _ in 0..<2 {
            try await withServer(configuration) { h async throws in
                var b: [Data] = []
                var e: [String?] = []
                for path in ["/tvmaze/shows?page=0", "/tvmaze/shows?page=9", "/tvmaze/shows/1000", "/tvmaze/shows/1000/images"] {
                    let r = try await h.get(path)
                    #expect(r.status == 200)
                    b.append(r.body)
                    e.append(r.header("ETag"))
                }
                // The same server answers the same bytes again.
                #expect(try await h.get("/tvmaze/shows?page=9").body == b[1])
                bodies.append(b)
                etags.append(e)
            }
        }
        #expect(bodies.count == 2)
        #expect(bodies[0] == bodies[1])
        #expect(etags[0] == etags[1])
        #expect(etags[0].allSatisfy { $0 != nil })
    }

    @Test func sizedPagesFollowTheTVMazeVersion() async throws {
        try await withServer(.init(tvmazePageSize: 250)) { h async throws in
            let before = try await h.get("/tvmaze/shows?page=0")
            await h.server.setVersion(tvmaze: .v2019)
            let after = try await h.get("/tvmaze/shows?page=0")
            #expect(after.header("ETag") != before.header("ETag"))
            #expect(ids(after.array) == Array(1...250))
            #expect((after.array.first?["url"] as? String) == "http://www.tvmaze.com/shows/1/under-the-dome")
        }
    }

    @Test func pageSizeIsValidated() throws {
        #expect(throws: SampleUpstreamError.self) { try SampleUpstream(configuration: .init(tvmazePageSize: 0)) }
        #expect(throws: SampleUpstreamError.self) { try SampleUpstream(configuration: .init(tvmazePageSize: 251)) }
        _ = try SampleUpstream(configuration: .init(tvmazePageSize: 1))
        _ = try SampleUpstream(configuration: .init(tvmazePageSize: 250))
        #expect(SampleUpstreamConfiguration().tvmazePageSize == nil)
    }
}
