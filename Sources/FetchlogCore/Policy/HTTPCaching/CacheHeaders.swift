/// The response headers a held body's freshness is computed from, as the log recorded them:
/// what the reducer keeps in `ResourceStatus.cacheHeaders`, and what a 304 updates.
package enum CacheHeaders {
    /// The fields RFC 9111 reads to say how long a response is fresh, how to revalidate it,
    /// and which requests it answers.
    static let names: Set<String> = ["cache-control", "age", "date", "expires", "last-modified", "etag", "vary"]

    /// `headers`' freshness fields, in their order.
    package static func kept(_ headers: [Header]) -> [Header] {
        headers.filter { names.contains($0.name.lowercased()) }
    }

    /// The lines of `requestHeaders` for the fields the `Vary` of `responseHeaders` names
    /// (RFC 9111 §4.1), in the request's order: what a later request must match. Empty
    /// without a `Vary`, and for `Vary: *` (which never matches; nothing to keep).
    package static func selecting(_ requestHeaders: [Header], by responseHeaders: [Header]) -> [Header] {
        let names = Set(responseHeaders.listMembers("Vary").map(\.asciiLowercased))
        guard !names.isEmpty, !names.contains("*") else { return [] }
        return requestHeaders.filter { names.contains($0.name.asciiLowercased) }
    }

    /// `stored` updated by a 304's `headers` (§4.3.4): each field the 304 sends replaces
    /// every line of that field; the others stay.
    package static func updated(_ stored: [Header], by headers: [Header]) -> [Header] {
        let fresh = kept(headers)
        let replaced = Set(fresh.map { $0.name.lowercased() })
        guard !replaced.isEmpty else { return stored }
        return stored.filter { !replaced.contains($0.name.lowercased()) } + fresh
    }

}
