import FetchlogCore
/// Reading catalog resource keys back into numbers, and slicing lists into pages,
/// shared by the TVmaze and ARTIC views.
enum CatalogPaths {
    /// N from `/shows?page=N`; nil for any other path or a non-canonical number
    /// ("01", "+1"), so one page is never counted under two spellings.
    static func tvmazeShowsPage(_ key: ResourceKey) -> Int? {
        guard key.source == "tvmaze" else { return nil }
        return canonicalInt(after: "/shows?page=", in: key.path)
    }

    /// The `page` and `limit` query values of `/api/v1/artworks?page=N&limit=M`, in any order.
    static func articListQuery(_ key: ResourceKey) -> (page: Int?, limit: Int?) {
        guard key.source == "artic", key.path.hasPrefix("/api/v1/artworks?") else { return (nil, nil) }
        var page: Int?, limit: Int?
        let query = key.path.dropFirst("/api/v1/artworks?".count)
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            if parts[0] == "page" { page = Int(parts[1]) }
            if parts[0] == "limit" { limit = Int(parts[1]) }
        }
        return (page, limit)
    }

    static func canonicalInt(after prefix: String, in path: String) -> Int? {
        guard path.hasPrefix(prefix) else { return nil }
        let text = String(path.dropFirst(prefix.count))
        guard let n = Int(text), n >= 0, String(n) == text else { return nil }
        return n
    }

    /// Items `n*size ..< (n+1)*size` (page `n` from 0); empty when out of range.
    static func slice<T>(_ items: [T], page n: Int, size: Int) -> [T] {
        guard n >= 0, size > 0 else { return [] }
        let (start, overflow) = n.multipliedReportingOverflow(by: size)
        guard !overflow, start < items.count else { return [] }
        return Array(items[start ..< min(start + size, items.count)])
    }
}
