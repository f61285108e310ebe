/// How long a held body counts as current, per source.
public enum FreshnessRule: Sendable, Equatable {
    /// Fresh for this long after the last success (or revalidation); with `renewOnOpen`,
    /// opening the view within that time renews it for the same span again.
    case timeToLive(Duration, renewOnOpen: Bool)
    /// Held until a refresh is asked for (`--force`): never stale by age.
    case heldUntilRefreshed
    /// Always revalidated with validators when opened; a 304 keeps the body.
    case alwaysRevalidate
}

/// The freshness rule of every source: each plug-in's own (`SourcePlugin.freshness`)
/// unless overridden here.
package struct FreshnessPolicy: Sendable {
    /// Per source, by name; a source not listed revalidates on every open.
    package var rules: [Source: FreshnessRule]
    /// The upstream's own freshness (RFC 9111: `max-age` with `Age` and `Date`, `Expires`,
    /// `no-cache`; for a manifest's resource without a `ttl`, heuristic freshness from
    /// `Last-Modified`) replaces the time to live of a `timeToLive` rule, unless the user
    /// wrote that time to live (a manifest resource's `fetchlog.ttl`): theirs wins.
    package var honourCacheControl = true

    /// Every registered source's own rule.
    package init(sources: SourceRegistry) {
        rules = Dictionary(uniqueKeysWithValues: sources.plugins.map { ($0.source, $0.freshness) })
    }

    package func rule(for source: String) -> FreshnessRule {
        rules[Source(source)] ?? .alwaysRevalidate
    }

    /// The rule for one resource: the source's rule set here; else, for a source the log
    /// defines by a manifest (never in `rules`, which knows only registered plug-ins), the
    /// resource's own `fetchlog.ttl`, then the manifest's rule; else the plug-in's own.
    package func rule(for key: ResourceKey, in state: LogState) -> FreshnessRule {
        if let rule = rules[Source(key.source)] { return rule }
        guard let plugin = state.plugin(key.source) else { return .alwaysRevalidate }
        if let manifest = plugin as? ManifestSource {
            if let ttl = manifest.resource(ofLabel: key.path)?.timeToLive { return .timeToLive(ttl, renewOnOpen: false) }
            return manifest.freshness
        }
        return plugin.freshness
    }

    /// How current the held body of `key` is at `now`. `presenting`: the request lines a
    /// fetch of it would send now (as recorded, `Store.presentedHeaders`); a held response
    /// whose `Vary` fields they do not match is another request's (RFC 9111 §4.1), so it is
    /// not fresh for this one, whatever its age: stale since it was last known current.
    /// Nil judges the body alone.
    package func evaluate(_ key: ResourceKey, in state: LogState, now: Timestamp, presenting: [Header]? = nil) -> Freshness {
        let status = state.status[key] ?? ResourceStatus()
        let held = state.documents[key] != nil
        guard held, let success = status.lastSuccess else {
            return Freshness(level: .missing, lastUpdated: nil, validUntil: nil, status: status)
        }
        // The body was last known current at its success, its last 304, or its last renewal.
        let anchor = [success, status.lastRevalidated, status.lastRenewed].compactMap { $0 }.max()!
        if let presenting, !CachedResponse.varyMatches(vary: status.cacheHeaders, selecting: status.selectingHeaders, presented: presenting) {
            return Freshness(level: .stale, lastUpdated: anchor, validUntil: anchor, status: status)
        }
        switch rule(for: key, in: state) {
        case .heldUntilRefreshed:
            return Freshness(level: .fresh, lastUpdated: anchor, validUntil: nil, status: status)
        case .alwaysRevalidate:
            return Freshness(level: .stale, lastUpdated: anchor, validUntil: anchor, status: status)
        case .timeToLive(let ttl, _):
            let written = writtenTimeToLive(key, in: state)
            var freshness = Freshness(level: .stale, lastUpdated: anchor, validUntil: nil, status: status)
            // The resource's own ttl; else the upstream's word; else its source's shortest
            // ttl; else, for a manifest that wrote none, the heuristic; else the rule's own.
            var until = Timestamp(milliseconds: anchor.milliseconds + (written.own ?? written.source ?? ttl).milliseconds)
            if written.own == nil, honourCacheControl, !status.cacheHeaders.isEmpty {
                let heuristic = state.plugin(key.source) is ManifestSource && written.source == nil
                let upstream = UpstreamFreshness(status.cacheHeaders, anchor: anchor, heuristic: heuristic)
                until = upstream.until ?? until
                freshness.mustRevalidate = upstream.mustRevalidate
                freshness.staleWhileRevalidateUntil = upstream.staleWhileRevalidate.map { Timestamp(milliseconds: until.milliseconds + $0 * 1000) }
                freshness.staleIfErrorUntil = upstream.staleIfError.map { Timestamp(milliseconds: until.milliseconds + $0 * 1000) }
            }
            freshness.validUntil = until
            freshness.level = now < until ? .fresh : .stale
            return freshness
        }
    }

    /// The times to live the user wrote for `key`: its manifest resource's `fetchlog.ttl`
    /// (`own`, which wins over the upstream's word), and the shortest its source's resources
    /// wrote (`source`, which stands where the upstream says nothing explicit).
    private func writtenTimeToLive(_ key: ResourceKey, in state: LogState) -> (own: Duration?, source: Duration?) {
        guard rules[Source(key.source)] == nil, let manifest = state.plugin(key.source) as? ManifestSource else { return (nil, nil) }
        return (manifest.resource(ofLabel: key.path)?.timeToLive, manifest.manifest.resources.compactMap(\.timeToLive).min())
    }

    static func maxAge(_ cacheControl: String?) -> Int? {
        guard let cacheControl else { return nil }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int(parts[1]) { return seconds }
        }
        return nil
    }
}

/// How current a held body is, and what went wrong last.
package struct Freshness: Sendable, Equatable {
    package enum Level: String, Sendable { case fresh, stale, missing }
    package var level: Level
    /// When the held body was last known current (success, 304 or renewal).
    package let lastUpdated: Timestamp?
    /// When it stops (or stopped) being fresh; nil when it never expires or is missing.
    package var validUntil: Timestamp?
    package let status: ResourceStatus
    /// The upstream said `must-revalidate` or `no-cache`: once stale, no answer from the
    /// held body while the upstream can be asked (RFC 9111 §4.2.4, §5.2.2.2).
    package var mustRevalidate = false
    /// Until when the upstream lets a stale body answer while it is revalidated
    /// (`stale-while-revalidate`, RFC 5861 §3).
    package var staleWhileRevalidateUntil: Timestamp?
    /// Until when the upstream lets a stale body answer when revalidating it fails
    /// (`stale-if-error`, RFC 5861 §4).
    package var staleIfErrorUntil: Timestamp?

    package init(level: Level, lastUpdated: Timestamp?, validUntil: Timestamp?, status: ResourceStatus) {
        self.level = level
        self.lastUpdated = lastUpdated
        self.validUntil = validUntil
        self.status = status
    }

    /// True when the last attempt failed after the last success: the upstream is not answering.
    package var isFailing: Bool { status.failuresSince > 0 }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}

/// `2h 14m`, `16m`, `45s`, `3d 2h`: how old, for people.
package enum AgeText {
    package static func describe(milliseconds: Int64) -> String {
        let seconds = max(0, milliseconds / 1000)
        let (d, h, m, s) = (seconds / 86_400, seconds % 86_400 / 3600, seconds % 3600 / 60, seconds % 60)
        if d > 0 { return h > 0 ? "\(d)d \(h)h" : "\(d)d" }
        if h > 0 { return m > 0 ? "\(h)h \(m)m" : "\(h)h" }
        if m > 0 { return "\(m)m" }
        return "\(s)s"
    }
}
