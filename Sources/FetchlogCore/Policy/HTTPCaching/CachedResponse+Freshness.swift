/// Where a stored response's freshness lifetime comes from (RFC 9111 §4.2.1).
package enum FreshnessBasis: Sendable, Equatable {
    /// `Cache-Control: max-age` (a private cache ignores s-maxage).
    case maxAge
    /// `max-age` present but unreadable (negative, fractional, quoted with `'`…): stale.
    case invalidMaxAge
    /// `Expires` minus `Date`; an invalid `Expires` counts as already expired (§5.3).
    case expires
    /// No explicit expiration: 10% of the time since `Last-Modified`, capped (§4.2.2).
    case heuristic
    /// No explicit expiration and no heuristic applies: stale from the start.
    case none
}

extension CachedResponse {
    /// How long this response stays fresh, in milliseconds, and why (§4.2.1: the first of
    /// max-age, Expires − Date, heuristic). Never negative: an `Expires` before `Date`
    /// simply makes it stale at once.
    package var freshnessLifetime: (milliseconds: Int64, basis: FreshnessBasis) {
        switch cacheControl.maxAge {
        case .seconds(let seconds)?: return (Self.ms(seconds), .maxAge)
        // §4.2.1: "consider responses that have invalid freshness information … to be
        // stale", rather than falling back to Expires or a heuristic the origin did not ask for.
        case .invalid?: return (0, .invalidMaxAge)
        case nil: break
        }
        if let expires = headers.firstFieldValue("Expires") {
            guard let seconds = HTTPDate.parse(expires.trimmingOWS(), reference: responseTime / 1000) else { return (0, .expires) }
            return (max(0, Self.ms(seconds) - effectiveDate), .expires)
        }
        // §4.2.2: heuristics only for heuristically cacheable codes or `public` responses.
        guard HTTPCachePolicy.heuristicallyCacheable.contains(status) || cacheControl.isPublic,
              let lastModified = lastModifiedValue else { return (0, .none) }
        let sinceModified = max(0, effectiveDate - lastModified)
        return (min(HTTPCachePolicy.heuristicFreshnessCap, sinceModified / HTTPCachePolicy.heuristicFraction), .heuristic)
    }

    /// `Age` in seconds as §5.1 has a cache read it: the first member of the first line
    /// (`Age: 7200, 0` is 7200), ignored when not a non-negative integer (`abc`, `-1`,
    /// `7200.0`, `7200;p=1` count as no Age at all), capped at 2^31.
    package var ageValue: Int64 {
        guard let first = headers.listMembers("Age").first else { return 0 }
        return CacheControl.parseDeltaSeconds(first) ?? 0
    }

    /// `corrected_initial_age` of §4.2.3, in milliseconds: the larger of the apparent age
    /// (receipt time minus `Date`) and `Age` plus the request's round trip, so a slow
    /// clock at the origin, an upstream cache's `Age` and time in transit each count.
    package var correctedInitialAge: Int64 {
        let apparentAge = max(0, responseTime - effectiveDate)
        let responseDelay = max(0, responseTime - requestTime)
        return max(apparentAge, Self.ms(ageValue) + responseDelay)
    }

    /// `current_age` at `now` (§4.2.3), in milliseconds. A clock that moved backwards
    /// since receipt adds no negative residence.
    package func currentAge(at now: Int64) -> Int64 {
        correctedInitialAge + max(0, now - responseTime)
    }

    /// When this response stops being fresh: `now` is fresh while `now < freshUntil`
    /// (§4.2: fresh when freshness_lifetime > current_age). It does not depend on `now`:
    /// age grows exactly as the clock does.
    package var freshUntil: Int64 {
        responseTime - correctedInitialAge + freshnessLifetime.milliseconds
    }

    /// Whether it is fresh at `now`.
    package func isFresh(at now: Int64) -> Bool {
        freshnessLifetime.milliseconds > currentAge(at: now)
    }

    /// The stored header fields to hand over when this response answers a request without
    /// validation: `Age` replaced by the current age in whole seconds (§4: a cache must
    /// generate it, replacing any stored one). `Date` stays as the origin sent it.
    package func headersForReuse(at now: Int64) -> [FieldLine] {
        let age = FieldLine("Age", String(currentAge(at: now) / 1000))
        var lines: [FieldLine] = []
        var placed = false
        for line in headers {
            if line.name.caseInsensitiveEquals("Age") {
                if !placed { lines.append(age) }
                placed = true
            } else {
                lines.append(line)
            }
        }
        if !placed { lines.append(age) }
        return lines
    }
}
