/// What a private cache does with a stored response for a new request at `now`.
package enum CacheDecision: Sendable, Equatable {
    /// Serve it without asking the origin; it stays fresh until this instant (ms).
    case fresh(until: Int64)
    /// Serve it now and revalidate in the background: stale, but inside its
    /// `stale-while-revalidate` window (RFC 5861 §3), which ends at this instant (ms).
    /// The background request uses `validators`.
    case staleWhileRevalidate(until: Int64)
    /// Ask the origin before serving it: stale, or marked `no-cache`. A 304 answer
    /// revalidates it (`updated(byNotModified:…)`); with no validators this is a plain
    /// request whose answer replaces it.
    case mustRevalidate(ConditionalRequest)
    /// It cannot answer this request at all; fetch as if nothing were stored.
    case unusable(UnusableReason)

    package enum UnusableReason: Sendable, Equatable {
        /// The HTTP rules do not let it be reused (`no-store`, a POST, a status not storable…).
        case notStorable
        /// The request's fields named by `Vary` differ from the stored request's, or
        /// `Vary: *` (§4.1: never matches).
        case varyMismatch
    }
}

extension CachedResponse {
    /// The decision for a GET with these request fields at `now` (§4).
    ///
    /// `no-cache` (qualified or not) always revalidates. Once stale, `must-revalidate`
    /// forbids serving it at all — no stale-while-revalidate window — until the origin has
    /// been asked (§5.2.2.2, §4.2.4: most restrictive wins).
    package func decision(for requestHeaders: [FieldLine], at now: Int64) -> CacheDecision {
        guard isStorable else { return .unusable(.notStorable) }
        guard matchesVary(of: requestHeaders) else { return .unusable(.varyMismatch) }
        if cacheControl.noCache { return .mustRevalidate(validators) }
        let until = freshUntil
        if now < until { return .fresh(until: until) }
        if !cacheControl.mustRevalidate, let window = cacheControl.staleWhileRevalidate {
            let windowEnd = until + Self.ms(window)
            if now < windowEnd { return .staleWhileRevalidate(until: windowEnd) }
        }
        return .mustRevalidate(validators)
    }

    /// §4.1: every field `Vary` names must match between the stored request and this one,
    /// after normalising what the field's syntax allows: lines combined, whitespace around
    /// list commas dropped, and case folded for the `Accept-*` fields whose values are
    /// case-insensitive. A field absent from both matches; absent from one does not.
    /// `Vary: *` never matches.
    package func matchesVary(of requestHeaders: [FieldLine]) -> Bool {
        Self.varyMatches(vary: headers, selecting: selectingRequestHeaders, presented: requestHeaders)
    }

    /// `matchesVary` over the response's header lines (`vary`: any lines, its `Vary` read),
    /// the stored request's `selecting` lines and a new request's `presented` ones: what the
    /// log's status of a resource holds, without building a whole response.
    package static func varyMatches(vary: [FieldLine], selecting: [FieldLine], presented: [FieldLine]) -> Bool {
        let names = vary.listMembers("Vary")
        if names.contains("*") { return false }
        for name in names where selectingValue(name, in: selecting) != selectingValue(name, in: presented) { return false }
        return true
    }

    /// A selecting field's normalised value, or nil when the request has no such field.
    static func selectingValue(_ name: String, in lines: [FieldLine]) -> String? {
        let values = lines.fieldValues(name)
        guard !values.isEmpty else { return nil }
        let members = values.flatMap(HTTPList.members)
        let caseInsensitive = ["accept-language", "accept-encoding", "accept-charset"].contains(name.asciiLowercased)
        return members.map { caseInsensitive ? $0.asciiLowercased : $0 }.joined(separator: ",")
    }
}

/// How the upstream failed when a stored response was to be revalidated or replaced.
package enum UpstreamFailure: Sendable, Equatable {
    /// No answer: refused, reset, timed out, name not resolved — a disconnected cache.
    case unreachable
    /// An answer with this status code (a 5xx, typically).
    case status(Int)
}

/// Whether a stored response may answer in place of a failed upstream request.
package enum StaleOnError: Sendable, Equatable {
    /// Serve it: it is still fresh, or `stale-if-error` (RFC 5861 §4) covers this error up
    /// to this instant (ms).
    case serve(until: Int64)
    /// No directive allows, limits or forbids it, and the upstream could not be reached: RFC 9111
    /// §4.2.4 lets a disconnected cache serve stale. (An offline-first reader always takes
    /// this; it is not permission to hide an answered error.)
    case serveWhileDisconnected
    /// Do not serve it: `no-cache` or `must-revalidate` forbid a stale answer even when
    /// disconnected (§5.2.2.2: a 504-like error instead); the `stale-if-error` window has
    /// passed; or the upstream answered with an error no directive lets a stale response
    /// cover (§4.2.4: serving stale needs permission unless disconnected).
    case mustNotServe
}

extension CachedResponse {
    /// What to do at `now` when the request that should have revalidated (or replaced)
    /// this response failed.
    package func staleOnError(_ failure: UpstreamFailure, at now: Int64) -> StaleOnError {
        guard isStorable, !cacheControl.noCache else { return .mustNotServe }
        let until = freshUntil
        // Still fresh: reusing it needs no permission (e.g. a forced refresh that failed).
        if now < until { return .serve(until: until) }
        if cacheControl.mustRevalidate { return .mustNotServe }
        // RFC 5861 §4: an error is what would give 500, 502, 503 or 504; an unreachable
        // upstream would (502/504).
        let coveredError: Bool
        switch failure {
        case .unreachable: coveredError = true
        case .status(let code): coveredError = [500, 502, 503, 504].contains(code)
        }
        if let window = cacheControl.staleIfError {
            // The origin set the limit: past it, §4 says the stale response SHOULD NOT be used.
            return coveredError && now < until + Self.ms(window) ? .serve(until: until + Self.ms(window)) : .mustNotServe
        }
        return failure == .unreachable ? .serveWhileDisconnected : .mustNotServe
    }
}
