import Foundation
import Testing
@testable import SampleUpstream

@Suite("Source routes")
struct SourceRouteTests {
    @Test func tvmazeShowIndexPages() async throws {
        try await withServer { h async throws in
            let p0 = try await h.get("/tvmaze/shows?page=0")
            #expect(p0.status == 200)
            #expect(p0.body == Fixtures.data("tvmaze/shows-page-0-2024.json"))
            #expect(p0.array.count == 240)
            #expect(ids(p0.array).first == 1 && ids(p0.array).last == 249)
            #expect(p0.header("Content-Type") == "application/json; charset=utf-8")
            #expect(p0.header("Cache-Control") == nil)
            #expect(p0.header("Content-Length") == String(p0.body.count))
            #expect(p0.header("Last-Modified") == "Tue, 16 Apr 2024 00:00:00 GMT")
            let etag = try #require(p0.header("ETag"))
            #expect(etag.range(of: #"^"[0-9a-f]{16}"$"#, options: .regularExpression) != nil)

            let p1 = try await h.get("/tvmaze/shows?page=1")
            #expect(p1.body == Fixtures.data("tvmaze/shows-page-1-2025-04-18.json"))
            #expect(p1.array.count == 245 && ids(p1.array).first == 250 && ids(p1.array).last == 499)

            let p2 = try await h.get("/tvmaze/shows?page=2")
            let p2ids = ids(p2.array)
            #expect(p2.status == 200 && p2ids.count == 245 && p2ids.first == 500 && p2ids.last == 749)
            #expect(p2ids == p2ids.sorted())
            #expect((p2.array.first?["url"] as? String) == "https://www.tvmaze.com/shows/500/kirby-buckets")
            let p3 = try await h.get("/tvmaze/shows?page=3")
            #expect(ids(p3.array).first == 750 && ids(p3.array).last == 999)

            let end = try await h.get("/tvmaze/shows?page=4")
            #expect(end.status == 404)
            #expect(end.object["name"] as? String == "Not Found")
            #expect(end.object["message"] as? String == "Page not found.")
            #expect(end.object["status"] as? Int == 404)
            #expect(end.header("ETag") == nil)
        }
    }

    @Test func tvmazePageCountIsConfigurable() async throws {
        try await withServer(.init(tvmazePages: 2)) { h async throws in
            #expect(try await h.get("/tvmaze/shows?page=1").status == 200)
            #expect(try await h.get("/tvmaze/shows?page=2").status == 404)
            #expect(try await h.get("/tvmaze/shows/600").status == 404)
        }
    }

    @Test func tvmazeShowDetailImagesEpisodes() async throws {
        try await withServer { h async throws in
            let show1 = try await h.get("/tvmaze/shows/1")
            #expect(show1.body == Fixtures.data("tvmaze/show-1.json"))
            let show2 = try await h.get("/tvmaze/shows/2")
            #expect(show2.object["name"] as? String == "Person of Interest")
            let generated = try await h.get("/tvmaze/shows/750")
            #expect(generated.object["id"] as? Int == 750 && generated.object["name"] as? String == "Kirby Buckets")
            #expect(try await h.get("/tvmaze/shows/99999").status == 404)

            let images = try await h.get("/tvmaze/shows/1/images").array
            #expect(images.count == 5)
            let posters = images.filter { $0["type"] as? String == "poster" }
            #expect(posters.count == 2)
            #expect(posters.first?["main"] as? Bool == false)
            let mainPoster = try #require(images.first { $0["type"] as? String == "poster" && $0["main"] as? Bool == true })
            let resolutions = try #require(mainPoster["resolutions"] as? [String: Any])
            let original = try #require(resolutions["original"] as? [String: Any])
            #expect(original["url"] as? String == "https://static.tvmaze.com/uploads/images/original_untouched/81/202627.jpg")
            #expect(original["width"] as? Int == 680)
            #expect((resolutions["medium"] as? [String: Any])?["url"] as? String == "https://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg")
            #expect(images.firstIndex(where: { $0["type"] as? String == "poster" && $0["main"] as? Bool == true }) != images.firstIndex(where: { $0["type"] as? String == "poster" }))
            #expect(images.contains { $0["type"] is NSNull })

            #expect(try await h.get("/tvmaze/shows/1/episodes").array.count == 39)
            #expect(try await h.get("/tvmaze/shows/43/episodes").array.count == 91)
            let none = try await h.get("/tvmaze/shows/2/episodes")
            #expect(none.status == 200 && none.body == Data("[]".utf8))
        }
    }

    @Test func tvmazeSearch() async throws {
        try await withServer { h async throws in
            let girls = try await h.get("/tvmaze/search/shows?q=girls")
            #expect(girls.body == Fixtures.data("tvmaze/search-shows-q-girls.json"))
            #expect(girls.array.count == 10)
            let terminator = try await h.get("/tvmaze/search/shows?q=Terminator")
            #expect(terminator.array.count == 7)
            let kirby = try await h.get("/tvmaze/search/shows?q=KIRBY").array
            #expect(kirby.compactMap { ($0["show"] as? [String: Any])?["id"] as? Int } == [250, 500, 750])
            #expect(kirby.allSatisfy { ($0["score"] as? Double).map { $0 > 0 && $0 <= 1 } == true })
            let dome = try await h.get("/tvmaze/search/shows?q=under%20the%20dome").array
            #expect(dome.count == 1 && dome.first?["score"] as? Double == 1.0)
            #expect(try await h.get("/tvmaze/search/shows?q=zzzzqqq").array.isEmpty)
        }
    }

    @Test func brastlewarkCensusAndVersions() async throws {
        try await withServer { h async throws in
            let v1 = try await h.get("/brastlewark/data.json")
            #expect(v1.status == 200)
            #expect(v1.body.count == 421_309)
            #expect(v1.body == Fixtures.data("brastlewark/census.json"))
            #expect(v1.header("Cache-Control") == "max-age=300")
            let gnomes = try #require(v1.object["Brastlewark"] as? [[String: Any]])
            #expect(gnomes.count == 1337 && gnomes.first?["age"] as? Int == 306)

            await h.server.setVersion(brastlewark: .v2)
            let v2 = try await h.get("/brastlewark/data.json")
            let gnomes2 = try #require(v2.object["Brastlewark"] as? [[String: Any]])
            #expect(gnomes2.count == 1338)
            #expect(gnomes2.first?["age"] as? Int == 307)
            #expect(gnomes2.last?["id"] as? Int == 1337)
            #expect(v2.header("ETag") != v1.header("ETag"))
            #expect(v2.header("Last-Modified") != v1.header("Last-Modified"))
            #expect(try await h.get("/brastlewark/other.json").status == 404)
        }
    }

    @Test func viaplayPages() async throws {
        try await withServer { h async throws in
            let root = try await h.get("/viaplay/ios-se")
            #expect(root.body == Fixtures.data("viaplay/ios-se-root-2022.json"))
            let links = try #require(root.object["_links"] as? [String: Any])
            let sections = try #require(links["viaplay:sections"] as? [[String: Any]])
            #expect(sections.count == 4)
            for section in sections {
                let href = try #require(section["href"] as? String)
                let path = try #require(URL(string: String(href.split(separator: "{")[0]))?.path)
                let page = try await h.get("/viaplay" + path + "?dtg=1")
                #expect(page.status == 200, "\(path)")
                #expect(page.body == Fixtures.data("viaplay/androidv2-se-serier-section-2016.json"))
            }
            #expect(try await h.get("/viaplay/androidv2-se/serier").object["pageType"] as? String == "section")
            let category = try await h.get("/viaplay/pc-se/serier/samtliga")
            #expect(category.object["pageType"] as? String == "category")
            let missing = try await h.get("/viaplay/ios-se/nothing")
            #expect(missing.status == 404 && missing.json != nil)
        }
    }

    @Test func thmanyahHomePages() async throws {
        try await withServer { h async throws in
            let p1 = try await h.get("/thmanyah/home_sections?page=1")
            #expect(p1.body == Fixtures.data("thmanyah/home-sections-page-1.json"))
            let p1Sections = try #require(p1.object["sections"] as? [[String: Any]])
            #expect(p1Sections.count == 7)

            let p2 = try await h.get("/thmanyah/home_sections?page=2")
            let p2Sections = try #require(p2.object["sections"] as? [[String: Any]])
            #expect(p2Sections.count == 7)
            #expect(p2Sections.first?["name"] as? String == "Trending Episodes #2")
            #expect(p2Sections.compactMap { $0["order"] as? Int } == Array(8...14))
            #expect((p2.object["pagination"] as? [String: Any])?["next_page"] as? String == "/home_sections?page=3")
            #expect((p2.object["pagination"] as? [String: Any])?["total_pages"] as? Int == 10)
            let p10 = try await h.get("/thmanyah/home_sections?page=10")
            #expect((p10.object["pagination"] as? [String: Any])?["next_page"] is NSNull)
            #expect(p10.body != p2.body)
            #expect(try await h.get("/thmanyah/home_sections?page=11").status == 404)
            #expect(try await h.get("/thmanyah/home_sections?page=0").status == 404)
        }
    }

    @Test func thmanyahSearch() async throws {
        try await withServer { h async throws in
            let search = try await h.get("/thmanyah/m1/735111-711675-default/search?q=npr")
            let sections = try #require(search.object["sections"] as? [[String: Any]])
            let items = sections.flatMap { $0["content"] as? [[String: Any]] ?? [] }
            // 32 items on page 1 name NPR, and every generated page repeats them.
            #expect(items.count == 320)
            #expect(items.allSatisfy { ($0["name"] as? String)?.lowercased().contains("npr") == true })
            #expect(sections.allSatisfy { $0["order"] is String })
            let podcast = try #require(items.first { $0["episode_count"] != nil })
            #expect(podcast["episode_count"] is String)
            #expect(podcast["duration"] is String)
            let empty = try await h.get("/thmanyah/m1/735111-711675-default/search?q=zzzzqqq")
            #expect((empty.object["sections"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func articArtworkPages() async throws {
        try await withServer { h async throws in
            let p1 = try await h.get("/artic/api/v1/artworks?page=1&limit=5")
            #expect(p1.status == 200 && p1.header("Cache-Control") == "max-age=3600")
            let data1 = try #require(p1.object["data"] as? [[String: Any]])
            #expect(ids(data1) == [4, 9, 11, 16, 19])
            let pagination = try #require(p1.object["pagination"] as? [String: Any])
            #expect(pagination["total"] as? Int == 10)
            #expect(pagination["limit"] as? Int == 5)
            #expect(pagination["offset"] as? Int == 0)
            #expect(pagination["total_pages"] as? Int == 3)
            #expect(pagination["current_page"] as? Int == 1)
            #expect(pagination["next_url"] as? String == "https://api.artic.edu/api/v1/artworks?page=2&limit=5")
            #expect((p1.object["config"] as? [String: Any])?["iiif_url"] as? String == "https://www.artic.edu/iiif/2")

            let data2 = try #require(try await h.get("/artic/api/v1/artworks?page=2&limit=5").object["data"] as? [[String: Any]])
            #expect(ids(data2) == [19, 20, 22, 23, 24])
            #expect(ids(data2).first == ids(data1).last)
            let p3 = try await h.get("/artic/api/v1/artworks?page=3&limit=5")
            #expect(ids(p3.object["data"] as? [[String: Any]] ?? []) == [24, 25])
            #expect((p3.object["pagination"] as? [String: Any])?["next_url"] is NSNull)

            let defaults = try await h.get("/artic/api/v1/artworks")
            #expect(ids(defaults.object["data"] as? [[String: Any]] ?? []) == [4, 9, 11, 16, 19, 20, 22, 23, 24, 25])
            #expect((defaults.object["pagination"] as? [String: Any])?["limit"] as? Int == 12)

            for bad in ["page=abc", "page=0", "limit=0", "limit=101", "limit=x"] {
                let r = try await h.get("/artic/api/v1/artworks?\(bad)")
                #expect(r.status == 400, "\(bad)")
                #expect(r.object["status"] as? Int == 400 && r.object["error"] is String && r.object["detail"] is String)
            }
        }
    }

    @Test func articRecordsAndErrors() async throws {
        try await withServer { h async throws in
            let artwork = try await h.get("/artic/api/v1/artworks/4")
            #expect((artwork.object["data"] as? [String: Any])?["title"] as? String == "Priest and Boy")
            #expect((artwork.object["info"] as? [String: Any])?["version"] as? String == "1.13")
            #expect(artwork.object["config"] is [String: Any])
            let invalid = try await h.get("/artic/api/v1/artworks/invalid1234")
            #expect(invalid.status == 400 && invalid.body == Fixtures.data("artic/error-400-artworks-invalid1234.json"))
            let missing = try await h.get("/artic/api/v1/artworks/99999999")
            #expect(missing.status == 404 && missing.body == Fixtures.data("artic/error-404-artworks-99999999.json"))
            let agent = try await h.get("/artic/api/v1/agents/2")
            #expect((agent.object["data"] as? [String: Any])?["id"] as? Int == 2)
            #expect(agent.object["info"] is [String: Any])
            #expect(try await h.get("/artic/api/v1/agents/999").status == 404)
        }
    }

    @Test func unknownRoutes() async throws {
        try await withServer { h async throws in
            for path in ["/nosuch/shows", "/tvmaze/nothing", "/", "/artic/api/v2/artworks"] {
                let r = try await h.get(path)
                #expect(r.status == 404, "\(path)")
                #expect(r.object["error"] as? String == "no such route")
                #expect(r.object["path"] as? String == path)
            }
        }
    }
}
