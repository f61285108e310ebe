import Foundation

/// thmanyah: `/home_sections?page=N` and the search host's `/m1/735111-711675-default/search?q=`.
enum ThmanyahRoutes {
    static let page1File = "thmanyah/home-sections-page-1.json"
    nonisolated(unsafe) static let page1 = Fixtures.json(page1File) as! [String: Any]
    static let recordedTotalPages: Int = {
        ((page1["pagination"] as? [String: Any])?["total_pages"] as? Int) ?? 1
    }()
    static let searchPath = "/m1/735111-711675-default/search"
    static let idKeys = ["podcast_id", "episode_id", "audiobook_id", "article_id"]

    static func respond(path: String, query: [String: String], totalPages: Int, fullPath: String) -> RouteResult {
        switch path {
        case "/home_sections":
            guard let page = Int(query["page"] ?? "1") else {
                return .error(400, JSONBody.encode(["error": "Bad Request", "message": "page must be an integer"]))
            }
            guard page >= 1, page <= totalPages else {
                return .error(404, JSONBody.encode(["error": "Not Found", "message": "page \(page) does not exist", "total_pages": totalPages] as [String: Any]))
            }
            return .ok(page == 1 ? Fixtures.data(page1File) : JSONBody.encode(generatedPage(page, totalPages: totalPages)))
        case searchPath:
            return .ok(JSONBody.encode(search(query["q"] ?? "", totalPages: totalPages)))
        default:
            return .notFoundRoute(fullPath)
        }
    }

    static func page1Sections() -> [[String: Any]] { page1["sections"] as? [[String: Any]] ?? [] }

    /// Page k (k >= 2) is page 1 made distinct: sections rotated by k-1, each section's items
    /// rotated by k-1, names suffixed " #k", ids suffixed "-pk", and `order` continuing after the
    /// previous page so orders never repeat across pages. `next_page` is null on the last page.
    static func generatedPage(_ page: Int, totalPages: Int) -> [String: Any] {
        let base = page1Sections()
        let shift = (page - 1) % max(base.count, 1)
        let rotated = Array(base[shift...] + base[..<shift])
        let sections: [[String: Any]] = rotated.enumerated().map { index, section in
            var s = section
            s["name"] = "\(section["name"] as? String ?? "") #\(page)"
            s["order"] = (page - 1) * base.count + index + 1
            let items = section["content"] as? [[String: Any]] ?? []
            let itemShift = items.isEmpty ? 0 : (page - 1) % items.count
            s["content"] = Array(items[itemShift...] + items[..<itemShift]).map { item in
                var i = item
                if let name = item["name"] as? String { i["name"] = "\(name) #\(page)" }
                for key in idKeys { if let id = item[key] { i[key] = "\(id)-p\(page)" } }
                return i
            }
            return s
        }
        return [
            "sections": sections,
            "pagination": [
                "next_page": page < totalPages ? "/home_sections?page=\(page + 1)" as Any : NSNull(),
                "total_pages": totalPages,
            ] as [String: Any],
        ]
    }

    /// The search mock answers faker data in the home shape but with loose types (see
    /// search-response-fragment.json). Here the results are real home items (all pages) whose name
    /// contains the text, one result section per home section with a hit, numbers as strings.
    static func search(_ q: String, totalPages: Int) -> [String: Any] {
        let text = q.trimmingCharacters(in: .whitespaces).lowercased()
        guard !text.isEmpty else { return ["sections": [Any]()] }
        var result: [[String: Any]] = []
        for page in 1...max(totalPages, 1) {
            let sections = page == 1 ? page1Sections() : (generatedPage(page, totalPages: totalPages)["sections"] as? [[String: Any]] ?? [])
            for section in sections {
                let hits = (section["content"] as? [[String: Any]] ?? []).filter {
                    ($0["name"] as? String)?.lowercased().contains(text) == true
                }
                guard !hits.isEmpty else { continue }
                var s = section
                s["content"] = hits
                s["order"] = String(result.count + 1)
                result.append(loosen(s) as! [String: Any])
            }
        }
        return ["sections": result]
    }

    /// Numbers become strings, recursively (booleans stay booleans).
    static func loosen(_ value: Any) -> Any {
        switch value {
        case let dict as [String: Any]: return dict.mapValues(loosen)
        case let array as [Any]: return array.map(loosen)
        case let number as NSNumber:
            // Foundation's JSON numbers are NSNumber, and a boolean is an NSNumber too: keep booleans.
            if String(describing: type(of: number)).contains("Boolean") { return number }
            let kind = String(cString: number.objCType)
            return kind == "d" || kind == "f" ? String(number.doubleValue) : String(number.int64Value)
        default: return value
        }
    }
}
