/// The rules of RFC 9111 (and RFC 5861's stale extensions) for a *private* cache: one
/// client's store of its own responses. They decide, from a stored response and an injected
/// `now`, whether it may answer a request, must be revalidated, or may stand in for a
/// failing upstream. Everything here is pure: times are milliseconds since the Unix epoch,
/// passed in; nothing reads a clock.
///
/// A private cache differs from a shared one (a proxy, a CDN) in what it ignores:
/// `s-maxage` and `proxy-revalidate` bind shared caches only, `private` is no bar, and a
/// response to a request with `Authorization` may be stored (§3.5 restricts shared caches
/// only; the credentials are this client's own).
package enum HTTPCachePolicy {
    /// The longest heuristic freshness lifetime (§4.2.2) given to a response without explicit
    /// freshness: 24 hours. The usual heuristic, 10% of the time since `Last-Modified`,
    /// grows without bound for long-unchanged resources (a year-old file would be "fresh"
    /// for five weeks). The origin never promised any of it, so a sync that runs daily
    /// should look again at least daily; a revalidation that answers 304 costs little.
    package static let heuristicFreshnessCap: Int64 = 24 * 3_600_000

    /// §4.2.2: heuristic freshness takes this fraction of the time since `Last-Modified`
    /// ("a typical setting of this fraction might be 10%").
    package static let heuristicFraction: Int64 = 10

    /// Status codes defined as heuristically cacheable (RFC 9110 §15.1): storable without
    /// explicit freshness, and given heuristic freshness from `Last-Modified`. 206 is on the
    /// list but this cache stores only whole responses (see `isStorable`).
    package static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Final status codes whose caching rules this cache implements: those RFC 9110 defines
    /// (§15), less 206 (no range support) and 304 (an update, never a stored response).
    /// `must-understand` limits storing to these (§5.2.2.3).
    package static let understoodStatusCodes: Set<Int> = Set([200, 201, 202, 203, 204, 205, 300, 301, 302, 303, 305, 307, 308, 421, 422, 426])
        .union(400 ... 417).union(500 ... 505)

    /// Whether a private cache may store this response and reuse it later (§3).
    ///
    /// Fetchlog records every response as an event whatever this says; it says whether the
    /// HTTP rules let that record answer a later request. Only GET responses are storable:
    /// HEAD carries no content to serve, and reusing a POST response needs a matching
    /// `Content-Location` and a GET cache key this client does not keep.
    package static func isStorable(method: String, status: Int, headers: [FieldLine]) -> Bool {
        isStorable(method: method, status: status, headers: headers, cacheControl: CacheControl(headers))
    }

    static func isStorable(method: String, status: Int, headers: [FieldLine], cacheControl cc: CacheControl) -> Bool {
        guard method == "GET" else { return false }
        // Final codes only (no 1xx); 206 needs range support this cache lacks (§3.3);
        // a 304 updates a stored response (§4.3.4) and is never stored as one.
        guard status >= 200, status <= 999, status != 206, status != 304 else { return false }
        if cc.mustUnderstand {
            // §5.2.2.3: an unknown status code under must-understand is never stored, and
            // a known one ignores the no-store it comes with.
            guard understoodStatusCodes.contains(status) else { return false }
        } else if cc.noStore {
            return false
        }
        // §3: something must make it storable. `private` counts for a private cache;
        // s-maxage would only count for a shared one.
        return cc.isPublic || cc.isPrivate || headers.containsField("Expires") || cc.maxAge != nil
            || heuristicallyCacheable.contains(status)
    }

    /// Field names never kept with a stored response, nor taken from a 304 (§3.1, §3.2):
    /// hop-by-hop fields that describe one connection (RFC 9110 §7.6.1) and the fields of a
    /// client's proxy configuration.
    package static let unstoredFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// `headers` as a cache keeps them (§3.1): without the unstored fields and without the
    /// fields the message's own `Connection` lists (hop-by-hop by declaration).
    package static func headersToStore(_ headers: [FieldLine]) -> [FieldLine] {
        let dropped = unstoredFields.union(headers.listMembers("Connection").map(\.asciiLowercased))
        return headers.filter { !dropped.contains($0.name.asciiLowercased) }
    }

    /// Fields a 304 must not change in the stored response (§3.2): the unstored ones, and
    /// `Content-Length`, which describes the stored content, not the empty 304.
    package static let fieldsNotUpdatedBy304: Set<String> = unstoredFields.union(["content-length"])

    /// RFC 9110 §9.2.1: the safe methods. Any other (including an unknown one, such as
    /// `M-SEARCH`) may change state on the origin.
    package static func isSafe(method: String) -> Bool {
        ["GET", "HEAD", "OPTIONS", "TRACE"].contains(method.uppercased())
    }

    /// §4.4: a non-error answer (2xx or 3xx) to an unsafe request invalidates the stored
    /// responses of its target URI; a failed one (4xx, 5xx) changed nothing, so what is
    /// stored stays usable.
    package static func invalidatesStoredResponses(method: String, status: Int) -> Bool {
        !isSafe(method: method) && (200 ... 399).contains(status)
    }

    /// The URI references (as sent: possibly relative) that §4.4 also lets a cache
    /// invalidate after such an answer: `Location` and `Content-Location`. The caller
    /// resolves them against the request's URI and must skip any of another origin (§4.4:
    /// invalidating across origins would let one site flush another's responses).
    package static func invalidationCandidates(_ responseHeaders: [FieldLine]) -> [String] {
        ["Location", "Content-Location"].compactMap { responseHeaders.firstFieldValue($0)?.trimmingOWS() }.filter { !$0.isEmpty }
    }
}
