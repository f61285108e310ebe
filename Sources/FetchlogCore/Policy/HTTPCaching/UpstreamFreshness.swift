/// What a held response's own headers say about its freshness (RFC 9111, RFC 5861), read
/// at the time the body was last known current (`anchor`: its success or its last 304,
/// whose headers updated the stored ones). Pure: the same headers and anchor give the
/// same answer on replay.
struct UpstreamFreshness {
    /// When the response stops being fresh by the upstream's word; nil when it says
    /// nothing explicit (and, for `heuristic` false, nothing the heuristic may use): the
    /// source's own time to live then decides.
    let until: Timestamp?
    /// `must-revalidate` or `no-cache`: no stale answer while the upstream can be asked.
    let mustRevalidate: Bool
    /// `stale-while-revalidate` and `stale-if-error`, in seconds past `until`.
    let staleWhileRevalidate: Int64?
    let staleIfError: Int64?

    /// `heuristic`: a response that says nothing explicit is fresh for 10 % of its age at
    /// `Last-Modified`, capped (§4.2.2) — for a resource of a manifest that wrote no time to
    /// live at all. A plug-in's own time to live is its author's heuristic, and a source's
    /// shortest written ttl the user's: they stay.
    init(_ headers: [Header], anchor: Timestamp, heuristic: Bool) {
        let response = CachedResponse(status: 200, headers: headers, requestTime: anchor.milliseconds, responseTime: anchor.milliseconds)
        let control = CacheControl(headers)
        mustRevalidate = control.mustRevalidate || control.noCache
        staleWhileRevalidate = control.staleWhileRevalidate
        staleIfError = control.staleIfError
        if control.noCache {
            // Always revalidated: stale from the moment it was received.
            until = anchor
            return
        }
        switch response.freshnessLifetime.basis {
        case .maxAge, .invalidMaxAge, .expires:
            until = Timestamp(milliseconds: response.freshUntil)
        case .heuristic where heuristic:
            until = Timestamp(milliseconds: response.freshUntil)
        default:
            until = nil
        }
    }
}
