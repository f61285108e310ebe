import Foundation

/// artic: `/api/v1/artworks?page=N&limit=M`, `/api/v1/artworks/{id}`, `/api/v1/agents/{id}`.
enum ArticRoutes {
    static let error400File = "artic/error-400-artworks-invalid1234.json"
    static let error404File = "artic/error-404-artworks-99999999.json"

    nonisolated(unsafe) static let config = Fixtures.json("artic/api-data/config.json")
    nonisolated(unsafe) static let info = Fixtures.json("artic/api-data/info.json") as! [String: Any]
    /// The museum's dump records, sorted by id.
    nonisolated(unsafe) static let artworks: [[String: Any]] = records("artworks")
    nonisolated(unsafe) static let agents: [[String: Any]] = records("agents")

    static func records(_ kind: String) -> [[String: Any]] {
        Fixtures.fileNames(in: "artic/api-data/\(kind)")
            .filter { $0.hasSuffix(".json") }
            .compactMap { Fixtures.json("artic/api-data/\(kind)/\($0)") as? [String: Any] }
            .sorted { ($0["id"] as? Int ?? 0) < ($1["id"] as? Int ?? 0) }
    }

    static func respond(path: String, query: [String: String], fullPath: String) -> RouteResult {
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count >= 3, parts[0] == "api", parts[1] == "v1" else { return .notFoundRoute(fullPath) }
        switch (parts[2], parts.count) {
        case ("artworks", 3): return list(query: query)
        case ("artworks", 4): return record(parts[3], in: artworks, infoKey: "artworks")
        case ("agents", 4): return record(parts[3], in: agents, infoKey: "agents")
        default: return .notFoundRoute(fullPath)
        }
    }

    static func record(_ idText: String, in records: [[String: Any]], infoKey: String) -> RouteResult {
        guard let id = Int(idText), id >= 0 else { return .error(400, Fixtures.data(error400File)) }
        guard let record = records.first(where: { $0["id"] as? Int == id }) else {
            return .error(404, Fixtures.data(error404File))
        }
        return .ok(JSONBody.encode(["data": record, "info": info[infoKey] ?? NSNull(), "config": config] as [String: Any]))
    }

    static func invalid(_ detail: String) -> RouteResult {
        .error(400, JSONBody.encode(["status": 400, "error": "Invalid parameter", "detail": detail] as [String: Any]))
    }

    /// The real API returns some artworks on two pages. Reproduced deterministically: pages
    /// advance by `limit - 1` records, so the last artwork of page N is also the first of page
    /// N+1 (with limit 1 pages advance by 1 and nothing repeats). `offset` is that start index,
    /// `total` the number of distinct records, and `total_pages` the pages needed to reach the
    /// last record. A page past the end answers an empty `data`, as the real API does.
    static func list(query: [String: String]) -> RouteResult {
        let page: Int
        if let text = query["page"] {
            guard let n = Int(text), n >= 1 else { return invalid("The `page` parameter must be a positive integer.") }
            page = n
        } else { page = 1 }
        let limit: Int
        if let text = query["limit"] {
            guard let n = Int(text), (1...100).contains(n) else { return invalid("The `limit` parameter must be an integer from 1 to 100.") }
            limit = n
        } else { limit = 12 }

        let total = artworks.count
        let stride = max(limit - 1, 1)
        let totalPages = total <= limit ? 1 : (total - limit + stride - 1) / stride + 1
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: stride)
        let data: [[String: Any]] = (overflow || offset >= total) ? [] : Array(artworks[offset..<min(offset + limit, total)])
        let nextURL: Any = page < totalPages ? "https://api.artic.edu/api/v1/artworks?page=\(page + 1)&limit=\(limit)" : NSNull()
        let body: [String: Any] = [
            "pagination": [
                "total": total, "limit": limit, "offset": overflow ? Int.max : offset,
                "total_pages": totalPages, "current_page": page, "next_url": nextURL,
            ] as [String: Any],
            "data": data,
            "info": info["artworks"] ?? NSNull(),
            "config": config,
        ]
        return .ok(JSONBody.encode(body))
    }
}
