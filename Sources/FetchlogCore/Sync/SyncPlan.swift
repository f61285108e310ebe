/// What `sync` should do at one moment: which resources are due now and when the next one
/// falls due. A pure function of the log's state, the freshness policy and `now` (never the
/// system clock), so a replay of the same log at the same time computes the same schedule.
package struct SyncPlan: Sendable, Equatable {
    /// Every resource sync keeps, in the order a pass takes them: by source, each manifest's
    /// resources with every child after its parents (else in the manifest's order), then the
    /// resources held of registered plug-ins.
    package let entries: [SyncEntry]
    /// The time the plan was made for.
    package let now: Timestamp
    /// This store's writes sync sends, as the plan saw them: a sleep ends early when one is
    /// recorded (or asked again) after it, as it was not planned for.
    package let writes: Set<SyncWriteMark>
    /// This store's writes in doubt that sync does not send again by itself (issue 44): they
    /// wait for `pending retry ID` or `pending discard ID`. Their ids, in log order.
    package let inDoubt: [UInt64]

    /// The resources due at `now`, in pass order.
    package var due: [SyncEntry] { entries.filter { $0.isDue(at: now) } }

    /// When the first resource not due now falls due (nil: none ever does by age alone).
    package var nextDue: Timestamp? { entries.compactMap(\.dueAt).filter { $0 > now }.min() }

    /// The plan for `state` at `now`. `storeID` tells this store's pending writes from a
    /// replica's (only their maker sends them). `only`: the selectors given on the command
    /// line (empty: everything).
    /// `presenting`: the request lines a fetch of a held resource would send now
    /// (`Store.presentedHeaders`), so a response that varies on them is fresh only for the
    /// request it answered (RFC 9111 §4.1); nil judges held bodies alone.
    package init(state: LogState, policy: FreshnessPolicy, now: Timestamp, storeID: String,
                 only: [SyncSelector] = [], timing: SyncTiming = SyncTiming(),
                 presenting: (@Sendable (ResourceKey) -> [Header]?)? = nil) {
        self.now = now
        writes = Set(Self.sendable(state, storeID: storeID).map(SyncWriteMark.init))
        inDoubt = state.writes.pending.filter { $0.store == storeID && !WritePush.unattendedMaySend($0, state: state) }.map(\.seq)
        let pending = Self.pendingWrites(state, storeID: storeID, now: now)
        var entries: [SyncEntry] = []
        var keysBySource: [String: [ResourceKey]] = [:]
        for key in state.status.keys { keysBySource[key.source, default: []].append(key) }
        // Manifest sources: every resource the manifest defines (held or not), `selected: false` left out.
        for name in state.manifests.keys.sorted() {
            guard let definition = state.manifests[name] else { continue }
            let source = ManifestSource(definition.manifest)
            var pagesOf: [String: [ResourceKey]] = [:]
            for key in keysBySource[name] ?? [] {
                if let resource = source.resource(ofLabel: key.path) { pagesOf[resource.name, default: []].append(key) }
            }
            for resource in Self.parentsFirst(definition.manifest.resources) where resource.selected {
                let target = SyncTarget(source: name, resource: resource.name, parent: resource.parent)
                guard only.isEmpty || only.contains(where: { $0.matches(target) }) else { continue }
                let keys = (pagesOf[resource.name] ?? []).sorted()
                entries.append(Self.entry(target, keys: keys, writes: pending[target.pendingKey],
                                          state: state, policy: policy, now: now, timing: timing, presenting: presenting))
            }
        }
        // Registered plug-ins have no resource list of their own: what the store holds of
        // them is what sync keeps (images are kept by the views that show them, not here).
        for plugin in state.sources.plugins.sorted(by: { $0.source.rawValue < $1.source.rawValue })
        where plugin.source != .assets && state.manifests[plugin.source.rawValue] == nil {
            for key in (keysBySource[plugin.source.rawValue] ?? []).sorted() {
                let target = SyncTarget(source: key.source, path: key.path)
                guard only.isEmpty || only.contains(where: { $0.matches(target) }) else { continue }
                entries.append(Self.entry(target, keys: [key], writes: nil, state: state, policy: policy, now: now, timing: timing,
                                          presenting: presenting))
            }
        }
        self.entries = entries
    }

    /// One resource's entry: how current its held pages are taken together (the stalest
    /// page decides) and when it falls due.
    static func entry(_ target: SyncTarget, keys: [ResourceKey], writes: PendingWrites?, state: LogState,
                      policy: FreshnessPolicy, now: Timestamp, timing: SyncTiming,
                      presenting: (@Sendable (ResourceKey) -> [Header]?)? = nil) -> SyncEntry {
        // A list's known end (a 404 past its last page) holds no body, yet is no missing page:
        // it is current for as long as the resource's rule says, from when it was asked.
        let isEnd = { (key: ResourceKey) in state.documents[key] == nil && state.status[key]?.endOfList == true }
        // Only a held response that varies asks what the request would present now.
        let varies = { (key: ResourceKey) in state.status[key]?.cacheHeaders.containsField("Vary") == true }
        var freshness = keys.filter { !isEnd($0) }.map { key in
            policy.evaluate(key, in: state, now: now, presenting: varies(key) ? presenting?(key) : nil)
        }
        for key in keys where isEnd(key) {
            guard let asked = state.status[key]?.lastAttempt else { continue }
            var until: Timestamp?
            if case .timeToLive(let ttl, _) = policy.rule(for: key, in: state) { until = asked.adding(milliseconds: ttl.milliseconds) }
            if case .alwaysRevalidate = policy.rule(for: key, in: state) { until = asked }
            let level: Freshness.Level = until.map { now < $0 ? .fresh : .stale } ?? .fresh
            freshness.append(Freshness(level: level, lastUpdated: asked, validUntil: until, status: state.status[key]!))
        }
        let statuses = keys.compactMap { state.status[$0] }
        let lastAttempt = statuses.compactMap(\.lastAttempt).max()
        let failures = statuses.map(\.failuresSince).max() ?? 0
        let level: Freshness.Level
        if freshness.isEmpty || freshness.contains(where: { $0.level == .missing }) {
            level = .missing
        } else if freshness.contains(where: { $0.level == .stale }) {
            level = .stale
        } else {
            level = .fresh
        }
        var dueAt: Timestamp?
        var backoffUntil: Timestamp?
        if failures > 0, let lastAttempt {
            // A failing resource waits out its backoff instead of being asked again at once.
            dueAt = lastAttempt.adding(milliseconds: timing.backoff(failures: failures, of: target.description))
            // And never before the upstream's own `Retry-After` (RFC 9110 §10.2.3).
            if let notBefore = statuses.compactMap(\.retryAfter).max(), notBefore > dueAt! { dueAt = notBefore }
            backoffUntil = dueAt
        } else if level == .missing {
            // A resource whose every missing page was answered `no-store` (kept for a session,
            // `NoStore`) was asked: not again before its own lifetime (its `ttl`, or its
            // source's), and never sooner than `minimumInterval`, or each pass would ask it
            // anew (a marker in the log each time). Pages never fetched are due now.
            let missing = freshness.filter { $0.level == .missing }
            let notStored = missing.compactMap(\.status.notStoredAt)
            if !freshness.isEmpty, notStored.count == missing.count, let first = notStored.min() {
                var lifetime = timing.minimumInterval.milliseconds
                if let key = keys.first, case .timeToLive(let ttl, _) = policy.rule(for: key, in: state) {
                    lifetime = max(lifetime, ttl.milliseconds)
                }
                dueAt = first.adding(milliseconds: lifetime)
            } else {
                dueAt = now
            }
        } else if let until = freshness.compactMap(\.validUntil).min() {
            // Not before its freshness ends, and never sooner than `minimumInterval` after the
            // last request: a resource revalidated on every open would otherwise be due forever.
            let floor = (lastAttempt ?? until).adding(milliseconds: timing.minimumInterval.milliseconds)
            dueAt = max(until, floor)
        } else {
            // Held until refreshed by hand: never due by age.
            dueAt = nil
        }
        // Writes waiting: due when the first may be sent (pushed, then the resource refetched
        // to read them back), whatever its freshness. Not while the resource backs off: its
        // origin is failing, and a write's own shorter backoff (a second, doubling) would ask
        // it again and again; the writes go with the resource's next attempt, or at once when
        // the source answers again (`SyncRunner`'s back online).
        if let writes, failures == 0 { dueAt = min(dueAt ?? writes.dueAt, writes.dueAt) }
        return SyncEntry(target: target, level: level, dueAt: dueAt, pendingWrites: writes?.count ?? 0,
                         writesDueAt: writes?.dueAt, pages: keys.count, failures: failures, backoffUntil: backoffUntil)
    }

    /// This store's mutations a push sends without a person deciding, and when the first
    /// may go: at once, or after a failure's backoff (`notBefore`).
    struct PendingWrites {
        var count = 0
        var dueAt: Timestamp
    }

    /// This store's sendable mutations by `source/resource`: waiting, in doubt, or failed on
    /// the way. A conflict, a refusal or a credential problem waits for a person, not for sync.
    static func pendingWrites(_ state: LogState, storeID: String, now: Timestamp) -> [String: PendingWrites] {
        var pending: [String: PendingWrites] = [:]
        for mutation in sendable(state, storeID: storeID) {
            let due = mutation.notBefore.map { Timestamp(milliseconds: $0) } ?? now
            let key = mutation.source + "/" + mutation.resource
            var writes = pending[key] ?? PendingWrites(dueAt: due)
            writes.count += 1
            writes.dueAt = min(writes.dueAt, due)
            pending[key] = writes
        }
        return pending
    }

    /// The mutations of this store (`storeID`) that sync sends without a person deciding:
    /// waiting, in doubt, or failed on the way — one in doubt only when sending it again
    /// cannot apply it twice (`PushMode.unattended`); the others wait for a person.
    static func sendable(_ state: LogState, storeID: String) -> [PendingMutation] {
        state.writes.mutations.values.filter { mutation in
            guard mutation.store == storeID else { return false }
            switch mutation.state {
            case .queued, .sending, .failed: return WritePush.unattendedMaySend(mutation, state: state)
            default: return false
            }
        }
    }

    /// `resources` with each child after its parent (the manifest's order otherwise kept).
    static func parentsFirst(_ resources: [RestResource]) -> [RestResource] {
        var placed: [RestResource] = []
        var names = Set<String>()
        var left = resources
        while !left.isEmpty {
            let ready = left.filter { $0.parent.map(names.contains) ?? true }
            // A manifest's parents never form a loop (checked when it is read); this only guards.
            let batch = ready.isEmpty ? left : ready
            placed += batch
            names.formUnion(batch.map(\.name))
            left.removeAll { resource in batch.contains { $0.name == resource.name } }
        }
        return placed
    }
}

/// A write sync sends, as one plan saw it: a new write, or one asked again (`retry`), is a
/// mark no earlier plan held.
package struct SyncWriteMark: Sendable, Hashable {
    let seq: UInt64
    let state: MutationState
    let round: UInt64

    init(_ mutation: PendingMutation) {
        seq = mutation.seq
        state = mutation.state
        round = mutation.round
    }
}

/// One resource sync keeps: a manifest resource by name, or a held resource of a plug-in.
package struct SyncTarget: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let source: String
    /// The manifest resource's name, or the held resource's path (which starts with `/`).
    package let name: String
    /// True for a manifest resource (fetched by its paginator), false for a held resource.
    package let isManifest: Bool
    /// The manifest resource's parent, whose list a fetch of it reads first.
    package let parent: String?

    package init(source: String, resource: String, parent: String? = nil) {
        self.source = source
        name = resource
        isManifest = true
        self.parent = parent
    }

    package init(source: String, path: String) {
        self.source = source
        name = path
        isManifest = false
        parent = nil
    }

    /// `catalog/items` for a manifest resource; `source/path` for a held one.
    package var description: String { isManifest ? source + "/" + name : source + name }

    var pendingKey: String { source + "/" + name }

    package static func < (a: SyncTarget, b: SyncTarget) -> Bool { a.description < b.description }
}

/// What is known of one resource at the plan's moment.
package struct SyncEntry: Sendable, Equatable {
    package let target: SyncTarget
    /// Its held pages taken together: missing when any is (or none was ever fetched).
    package let level: Freshness.Level
    /// When it falls (or fell) due; nil when it never does by age.
    package let dueAt: Timestamp?
    /// Mutations of this store waiting to be sent for it.
    package let pendingWrites: Int
    /// When the first of them may be sent (nil: none waits).
    package let writesDueAt: Timestamp?
    /// Pages (or bodies) held for it.
    package let pages: Int
    /// Failed attempts since its last success, on its worst page.
    package let failures: Int
    /// When a failing resource's backoff (or its upstream's `Retry-After`) ends: its fetch,
    /// and its writes with it, wait until then (nil: not failing).
    package var backoffUntil: Timestamp? = nil

    /// True while a failing resource waits out its backoff at `now`.
    package func isBackingOff(at now: Timestamp) -> Bool { backoffUntil.map { $0 > now } ?? false }

    package func isDue(at now: Timestamp) -> Bool { dueAt.map { $0 <= now } ?? false }

    /// True when its writes are to be pushed at `now`.
    package func pushesWrites(at now: Timestamp) -> Bool { pendingWrites > 0 && writesDueAt.map { $0 <= now } ?? false }
}

/// `SOURCE` or `SOURCE/RESOURCE` from the command line.
package struct SyncSelector: Sendable, Equatable, CustomStringConvertible {
    package let source: String
    /// A manifest resource's name, or a held path (`/shows?page=0`); nil: the whole source.
    package let resource: String?

    package init(_ text: String) {
        if let slash = text.firstIndex(of: "/") {
            source = String(text[..<slash])
            let rest = String(text[text.index(after: slash)...])
            resource = rest.isEmpty ? nil : rest
        } else {
            source = text
            resource = nil
        }
    }

    package var description: String { resource.map { source + "/" + $0 } ?? source }

    package func matches(_ target: SyncTarget) -> Bool {
        guard target.source == source else { return false }
        guard let resource else { return true }
        // A held path is written with or without its leading slash.
        return target.isManifest ? target.name == resource : target.name == "/" + resource || target.name == resource
    }
}

/// How long sync waits between requests for one resource, beyond its freshness.
package struct SyncTiming: Sendable, Equatable {
    /// The least time between two requests for a resource that is never fresh.
    package var minimumInterval: Duration = .seconds(60)
    /// The first wait after a failure; doubled for each failure after it.
    package var firstBackoff: Duration = .seconds(30)
    /// The longest wait after failures.
    package var maximumBackoff: Duration = .seconds(3600)

    package init() {}

    /// The wait after `failures` failures in a row, with up to a tenth more as jitter so
    /// resources that failed together are not asked again together. The jitter comes from
    /// the resource's name (a stable hash, not a random number): replay gives the same wait.
    package func backoff(failures: Int, of name: String) -> Int64 {
        let base = firstBackoff.milliseconds
        let doubled = base << Int64(min(max(failures - 1, 0), 20))
        let wait = min(doubled, maximumBackoff.milliseconds)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return wait + Int64(hash % UInt64(max(wait / 10, 1)))
    }
}

extension Timestamp {
    func adding(milliseconds: Int64) -> Timestamp { Timestamp(milliseconds: self.milliseconds + milliseconds) }
}
