import Foundation

/// tvmaze: `/shows?page=N`, `/shows/{id}`, `/shows/{id}/images`, `/shows/{id}/episodes`, `/search/shows?q=`.
enum TVMazeRoutes {
    /// The real API's body for a page past the end (and, with an empty message, for a missing show).
    static let pageNotFound = Data(#"{"name":"Not Found","message":"Page not found.","code":0,"status":404}"#.utf8)
    static let notFound = Data(#"{"name":"Not Found","message":"","code":0,"status":404}"#.utf8)
    /// Page 1 holds ids 250...499; generated page k (k >= 2) is page 1 with every id + 250*(k-1),
    /// so ids stay unique and every page stays ordered by id, as the real index is.
    static let pageStride = 250
    /// The real index's page size, and the most `SampleUpstreamConfiguration.tvmazePageSize` allows.
    static let maxPageSize = 250

    static func page0File(_ version: TVMazeDataVersion) -> String {
        version == .v2019 ? "tvmaze/shows-page-0-2019.json" : "tvmaze/shows-page-0-2024.json"
    }
    static let page1File = "tvmaze/shows-page-1-2025-04-18.json"

    // Parsed once; read-only afterwards, so sharing across requests is safe.
    nonisolated(unsafe) static let page0Shows2019 = Fixtures.json(page0File(.v2019)) as! [[String: Any]]
    nonisolated(unsafe) static let page0Shows2024 = Fixtures.json(page0File(.v2024)) as! [[String: Any]]
    nonisolated(unsafe) static let page1Shows = Fixtures.json(page1File) as! [[String: Any]]
    /// Templates for sized pages (`tvmazePageSize`): the version's page 0, then page 1 (485 records).
    nonisolated(unsafe) static let sizedTemplates2019 = page0Shows2019 + page1Shows
    nonisolated(unsafe) static let sizedTemplates2024 = page0Shows2024 + page1Shows

    /// `pageSize` nil serves the recorded pages; N serves pages of exactly N generated shows.
    static func respond(path: String, query: [String: String], version: TVMazeDataVersion, pages: Int, pageSize: Int? = nil, fullPath: String) -> RouteResult {
        let parts = path.split(separator: "/").map(String.init)
        switch parts.count {
        case 1 where parts[0] == "shows":
            return showsPage(query["page"], version: version, pages: pages, pageSize: pageSize)
        case 2 where parts[0] == "search" && parts[1] == "shows":
            return search(query["q"] ?? "", version: version, pages: pages, pageSize: pageSize)
        case 2 where parts[0] == "shows":
            guard let id = Int(parts[1]) else { return .error(404, notFound) }
            if id == 1, pageSize == nil { return .ok(Fixtures.data("tvmaze/show-1.json")) }
            guard let show = show(id: id, version: version, pages: pages, pageSize: pageSize) else { return .error(404, notFound) }
            return .ok(JSONBody.encode(show))
        case 3 where parts[0] == "shows" && parts[2] == "images":
            guard let id = Int(parts[1]), let show = show(id: id, version: version, pages: pages, pageSize: pageSize) else { return .error(404, notFound) }
            return .ok(JSONBody.encode(images(for: show)))
        case 3 where parts[0] == "shows" && parts[2] == "episodes":
            guard let id = Int(parts[1]) else { return .error(404, notFound) }
            switch id {
            case 1: return .ok(Fixtures.data("tvmaze/show-1-episodes.json"))
            case 43: return .ok(Fixtures.data("tvmaze/show-43-episodes.json"))
            default:
                // Only two episode lists were recorded; other known shows answer an empty list.
                return show(id: id, version: version, pages: pages, pageSize: pageSize) == nil ? .error(404, notFound) : .ok(Data("[]".utf8))
            }
        default:
            return .notFoundRoute(fullPath)
        }
    }

    static func showsPage(_ pageParam: String?, version: TVMazeDataVersion, pages: Int, pageSize: Int? = nil) -> RouteResult {
        // The real API treats a missing page as page 0.
        guard let page = Int(pageParam ?? "0"), page >= 0 else { return .error(404, pageNotFound) }
        guard page < pages else { return .error(404, pageNotFound) }
        if let pageSize { return .ok(JSONBody.encode(sizedPage(page, size: pageSize, version: version))) }
        switch page {
        case 0: return .ok(Fixtures.data(page0File(version)))
        case 1: return .ok(Fixtures.data(page1File))
        default: return .ok(JSONBody.encode(generatedPage(page)))
        }
    }

    static func generatedPage(_ page: Int) -> [[String: Any]] {
        page1Shows.map { renumber($0, by: pageStride * (page - 1)) }
    }

    static func renumber(_ show: [String: Any], by offset: Int) -> [String: Any] {
        guard let old = show["id"] as? Int else { return show }
        let new = old + offset
        var copy = show
        copy["id"] = new
        if let url = copy["url"] as? String {
            copy["url"] = url.replacingOccurrences(of: "/shows/\(old)/", with: "/shows/\(new)/")
        }
        if var links = copy["_links"] as? [String: Any], var me = links["self"] as? [String: Any], let href = me["href"] as? String {
            me["href"] = href.replacingOccurrences(of: "/shows/\(old)", with: "/shows/\(new)")
            links["self"] = me
            copy["_links"] = links
        }
        return copy
    }

    static func page0Shows(_ version: TVMazeDataVersion) -> [[String: Any]] {
        version == .v2019 ? page0Shows2019 : page0Shows2024
    }

    /// Sized page k: ids k*size+1 ... k*size+size, each a generated show (see `sizedShow`).
    static func sizedPage(_ page: Int, size: Int, version: TVMazeDataVersion) -> [[String: Any]] {
        (page * size + 1...page * size + size).map { sizedShow(id: $0, version: version) }
    }

    /// Show `id` (1-based) of a sized index: recorded record number (id−1) mod 485 of the version's
    /// page 0 followed by page 1, with `id`, `url` and `_links.self.href` moved to the new id and
    /// ` #<id>` appended to the name; everything else (images included) stays as recorded.
    static func sizedShow(id: Int, version: TVMazeDataVersion) -> [String: Any] {
        let templates = version == .v2019 ? sizedTemplates2019 : sizedTemplates2024
        let template = templates[(id - 1) % templates.count]
        var show = renumber(template, by: id - (template["id"] as? Int ?? id))
        show["id"] = id
        if let name = template["name"] as? String { show["name"] = "\(name) #\(id)" }
        // Each generated show has images of its own (served by the assets route), so the
        // images of item 1,000 and item 1,001 are different downloads.
        if show["image"] is [String: Any] {
            show["image"] = ["medium": sizedImageURL(id: id, rendition: "medium_portrait"),
                             "original": sizedImageURL(id: id, rendition: "original_untouched")]
        }
        return show
    }

    static func sizedImageURL(id: Int, rendition: String) -> String {
        "https://static.tvmaze.com/uploads/images/\(rendition)/sized/\(id).jpg"
    }

    /// Whether an asset path is a generated show's image (`/uploads/images/…/sized/N.jpg`).
    static func isSizedImage(host: String, path: String) -> Bool {
        guard host == "static.tvmaze.com" else { return false }
        let parts = path.split(separator: "/")
        return parts.count == 5 && parts[0] == "uploads" && parts[1] == "images"
            && ["medium_portrait", "original_untouched"].contains(String(parts[2])) && parts[3] == "sized"
            && parts[4].hasSuffix(".jpg") && Int(parts[4].dropLast(4)) != nil
    }

    /// Every show the index currently serves, in page order.
    static func servedShows(version: TVMazeDataVersion, pages: Int, pageSize: Int? = nil) -> [[String: Any]] {
        if let pageSize {
            return pages > 0 ? (1...pages * pageSize).map { sizedShow(id: $0, version: version) } : []
        }
        var all = pages > 0 ? page0Shows(version) : []
        if pages > 1 { all += page1Shows }
        if pages > 2 { for k in 2..<pages { all += generatedPage(k) } }
        return all
    }

    static func show(id: Int, version: TVMazeDataVersion, pages: Int, pageSize: Int? = nil) -> [String: Any]? {
        if let pageSize {
            return id >= 1 && id <= pages * pageSize ? sizedShow(id: id, version: version) : nil
        }
        if id == 1 { return Fixtures.json("tvmaze/show-1.json") as? [String: Any] }
        if id < pageStride {
            return pages > 0 ? page0Shows(version).first { $0["id"] as? Int == id } : nil
        }
        let page = id / pageStride
        guard page < pages else { return nil }
        let original = id - pageStride * (page - 1)
        return page1Shows.first { $0["id"] as? Int == original }.map { renumber($0, by: id - original) }
    }

    /// No real `/images` answer was recorded, so one is derived from the show's own image URLs:
    /// background, an alternative poster (main=false), the show's poster (main=true), a banner and
    /// an untyped image. The main poster is deliberately not the first poster, so a client that
    /// takes "the first poster" instead of "the first main poster" shows the wrong image.
    static func images(for show: [String: Any]) -> [[String: Any]] {
        guard let id = show["id"] as? Int, let image = show["image"] as? [String: Any],
              let original = image["original"] as? String else { return [] }
        let medium = image["medium"] as? String ?? original
        func variant(_ url: String, _ suffix: String) -> String {
            url.hasSuffix(".jpg") ? String(url.dropLast(4)) + "-\(suffix).jpg" : url + "-\(suffix)"
        }
        func entry(_ n: Int, _ type: Any, main: Bool, original: (String, Int, Int), medium: (String, Int, Int)) -> [String: Any] {
            [
                "id": id * 10 + n,
                "type": type,
                "main": main,
                "resolutions": [
                    "original": ["url": original.0, "width": original.1, "height": original.2],
                    "medium": ["url": medium.0, "width": medium.1, "height": medium.2],
                ],
            ]
        }
        return [
            entry(1, "background", main: true, original: (variant(original, "background"), 1920, 1080), medium: (variant(medium, "background"), 250, 140)),
            entry(2, "poster", main: false, original: (variant(original, "alt"), 680, 1000), medium: (variant(medium, "alt"), 210, 295)),
            entry(3, "poster", main: true, original: (original, 680, 1000), medium: (medium, 210, 295)),
            entry(4, "banner", main: false, original: (variant(original, "banner"), 758, 140), medium: (variant(medium, "banner"), 250, 46)),
            entry(5, NSNull(), main: false, original: (variant(original, "extra"), 1000, 1000), medium: (variant(medium, "extra"), 250, 250)),
        ]
    }

    static func search(_ q: String, version: TVMazeDataVersion, pages: Int, pageSize: Int? = nil) -> RouteResult {
        let text = q.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "girls" { return .ok(Fixtures.data("tvmaze/search-shows-q-girls.json")) }
        if text == "terminator" { return .ok(Fixtures.data("tvmaze/search-shows-q-terminator.json")) }
        guard !text.isEmpty else { return .ok(Data("[]".utf8)) }
        // Score: the share of the name the query covers, so exact names rank first; ties by id.
        var hits: [(score: Double, id: Int, show: [String: Any])] = []
        for show in servedShows(version: version, pages: pages, pageSize: pageSize) {
            guard let name = (show["name"] as? String)?.lowercased(), name.contains(text), let id = show["id"] as? Int else { continue }
            let score = (Double(text.count) / Double(name.count) * 10_000).rounded() / 10_000
            hits.append((score, id, show))
        }
        hits.sort { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }
        // The real search answers at most 10 results.
        let results = hits.prefix(10).map { ["score": $0.score, "show": $0.show] as [String: Any] }
        return .ok(JSONBody.encode(Array(results)))
    }
}
