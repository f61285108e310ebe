import Foundation

/// Keeps a store's resources fresh: a client of the store (every request goes through it,
/// and so through its one gateway), deciding what to ask from `SyncPlan` alone.
///
/// A pass pushes this store's pending writes first (so the refetch reads them back), then
/// revalidates every due resource with its validators, at most `perOrigin` requests at once
/// per origin. A manifest resource's family (a child and its parents) is one job, run in
/// order: a child's fetch lists its parent first, so two jobs never ask for one resource
/// at once. `run` repeats passes, sleeping until the next resource falls due.
package struct SyncRunner: Sendable {
    package let store: Store
    package let policy: FreshnessPolicy
    /// What "now" is for every decision: injectable, so a test or a replay drives time.
    package let clock: any WallClock
    package let only: [SyncSelector]
    /// Requests at once per origin (a host, or the stand-in upstream every request goes to).
    package var perOrigin = 4
    package var timing = SyncTiming()
    /// Told of every attempt, push and outcome as it happens (rows, ndjson lines).
    package var onEvent: @Sendable (SyncEvent) -> Void = { _ in }

    package init(store: Store, policy: FreshnessPolicy, clock: any WallClock, only: [SyncSelector] = []) {
        self.store = store
        self.policy = policy
        self.clock = clock
        self.only = only
    }

    /// The plan at the clock's now, from the log as it is now (another process's fetches included).
    package func plan() async throws -> SyncPlan {
        _ = try await store.catchUp()
        let store = store
        return SyncPlan(state: store.durableState, policy: policy, now: clock.now(), storeID: store.maintenance.metadata.storeID,
                        only: only, timing: timing, presenting: { store.presentedHeaders(of: $0) })
    }

    /// Passes until the task is cancelled, sleeping between them until the next resource
    /// falls due (one wake-up per due time: nothing is polled). Returns the passes' count.
    /// `pass` runs one (`SyncDriver` takes turns with a pass asked for now); by default, this
    /// runner's own.
    @discardableResult
    package func run(sleeper: any SyncSleeper, pass: (@Sendable () async throws -> SyncPass)? = nil) async throws -> Int {
        var passes = 0
        var nextDue: Timestamp?
        var writes: Set<SyncWriteMark> = []
        while !Task.isCancelled {
            if passes > 0, case let waking = try await plan(), waking.due.isEmpty {
                // Woken before anything fell due (a write not yet due, another process's
                // fetch): no pass, the same sleep again, said only when its end moved.
                if waking.nextDue != nextDue { onEvent(.sleeping(until: waking.nextDue)) }
                (nextDue, writes) = (waking.nextDue, waking.writes)
            } else {
                let done = if let pass { try await pass() } else { try await self.pass() }
                passes += 1
                (nextDue, writes) = (done.nextDue, done.writes)
                onEvent(.sleeping(until: nextDue))
            }
            try await sleeper.sleep(until: nextDue, planned: writes, clock: clock)
        }
        return passes
    }

    /// One pass: pushes, then every due resource revalidated. Throws `CancellationError`
    /// when cancelled (what was recorded stays recorded; the attempts told to `onEvent` say what).
    package func pass() async throws -> SyncPass {
        let plan = try await plan()
        onEvent(.started(at: plan.now, due: plan.due.count, of: plan.entries.count))
        var rows: [SyncRow] = []
        var pushed: [String: SyncRow] = [:]
        for entry in plan.due where entry.pushesWrites(at: plan.now) {
            let row = await push(entry)
            pushed[entry.target.description] = row
            onEvent(.outcome(row))
        }
        let state = store.durableState
        let results = try await fetchAll(jobs(plan.due, state: state), state: state)
        // Back online: a source that was failing and answered now has its writes sent at
        // once, not after their own backoff (a Retry-After a write was told while it was down).
        let recovered = Set(plan.due.filter { entry in
            entry.failures > 0 && (results[entry.target].map { !$0.outcome.isFailure && !$0.reports.isEmpty } ?? false)
        }.map(\.target.source))
        for entry in plan.entries where recovered.contains(entry.target.source) && entry.pendingWrites > 0
            && pushed[entry.target.description] == nil {
            let row = await push(entry)
            pushed[entry.target.description] = row
            onEvent(.outcome(row))
        }
        let after = try await self.plan()
        var requests = 0
        for entry in plan.entries {
            if let row = pushed[entry.target.description] {
                rows.append(row)
                requests += row.requests
            }
            let next = after.entries.first { $0.target == entry.target }
            let nextDue = next?.dueAt.map { max($0, after.now) }
            var row = SyncRow(target: entry.target, outcome: .fresh, nextDue: nextDue, requests: 0)
            if let result = results[entry.target] {
                row.requests = result.reports.reduce(0) { $0 + $1.attempts.count }
                row.outcome = result.outcome
            } else if entry.isDue(at: plan.now) {
                // Due, yet nothing was asked (a child whose parents hold no item): still missing.
                row.outcome = next?.level == .fresh ? .fresh : .missing
            } else if entry.failures > 0 {
                row.outcome = .backingOff
            }
            requests += row.requests
            rows.append(row)
            // Every resource's state after the pass, asked or not (what ndjson streams).
            onEvent(.outcome(row))
        }
        var pass = SyncPass(rows: rows, nextDue: after.nextDue, requests: requests, at: plan.now)
        pass.waitingWrites = after.entries.reduce(0) { $0 + $1.pendingWrites }
        pass.writes = after.writes
        pass.inDoubt = after.inDoubt
        onEvent(.passed(pass))
        return pass
    }

    /// Sends `entry`'s pending writes; the answers are recorded by the store.
    private func push(_ entry: SyncEntry) async -> SyncRow {
        var row = SyncRow(target: entry.target, outcome: .pushed(0), nextDue: nil, requests: 0)
        do {
            // Nobody asked for this push now: a write in doubt is sent again only when safe.
            let report = try await store.push(source: entry.target.source, resource: entry.target.name, automatic: false, who: .unattended)
            let unsent = report.failed.count + report.paused.count
            row.requests = report.confirmed.count + report.conflicts.count + report.rejected.count + report.failed.count
            row.outcome = unsent > 0 ? .failed("\(unsent) write\(unsent == 1 ? "" : "s") not sent") : .pushed(report.confirmed.count)
        } catch {
            row.outcome = .failed("push: \(error)")
        }
        return row
    }

    /// A job: what one task fetches, in order, and the origin its requests go to.
    struct Job: Sendable {
        let origin: String
        /// The targets asked for, in order (a family's deepest due members).
        let leaders: [SyncTarget]
        /// Every target whose outcome the job's reports tell (leaders and their ancestors).
        let covers: [SyncTarget]
    }

    /// The due entries as jobs: one per manifest family, one per held resource.
    func jobs(_ due: [SyncEntry], state: LogState) -> [Job] {
        var jobs: [Job] = []
        var families: [String: [SyncTarget]] = [:]
        var familyOrder: [String] = []
        for entry in due {
            let target = entry.target
            guard target.isManifest, let manifest = state.manifests[target.source]?.manifest else {
                jobs.append(Job(origin: origin(of: target.source, state: state), leaders: [target], covers: [target]))
                continue
            }
            let key = target.source + "/" + Self.ancestors(of: target.name, in: manifest).last!
            if families[key] == nil { familyOrder.append(key) }
            families[key, default: []].append(target)
        }
        for key in familyOrder {
            let members = families[key]!
            guard let manifest = state.manifests[members[0].source]?.manifest else { continue }
            // A member another due member descends from is fetched as that one's parent.
            let leaders = members.filter { member in
                !members.contains { $0 != member && Self.ancestors(of: $0.name, in: manifest).dropFirst().contains(member.name) }
            }
            var covers: [SyncTarget] = []
            for leader in leaders {
                for name in Self.ancestors(of: leader.name, in: manifest).reversed() where !covers.contains(where: { $0.name == name }) {
                    covers.append(SyncTarget(source: leader.source, resource: name, parent: manifest.resource(name)?.parent))
                }
            }
            jobs.append(Job(origin: origin(of: members[0].source, state: state), leaders: leaders, covers: covers))
        }
        return jobs
    }

    /// `name`, its parent, its parent's parent… (a manifest's parents never loop).
    static func ancestors(of name: String, in manifest: RestManifest) -> [String] {
        var chain = [name]
        while let parent = manifest.resource(chain.last!)?.parent, !chain.contains(parent) { chain.append(parent) }
        return chain
    }

    /// Where a source's requests go: the stand-in upstream's base when one is set (every request
    /// goes there), else the scheme, host and port of the source's base.
    func origin(of source: String, state: LogState) -> String {
        if let base = store.upstream.base { return base }
        guard let base = state.plugin(source)?.realBase else { return source }
        guard let url = URL(string: base), let host = url.host else { return base }
        return (url.scheme ?? "") + "://" + host + (url.port.map { ":\($0)" } ?? "")
    }

    /// Every job, at most `perOrigin` at once per origin (origins side by side).
    private func fetchAll(_ jobs: [Job], state: LogState) async throws -> [SyncTarget: SyncResult] {
        let byOrigin = Dictionary(grouping: jobs, by: \.origin)
        let width = max(1, perOrigin)
        return try await withThrowingTaskGroup(of: [SyncTarget: SyncResult].self) { group in
            for (_, queue) in byOrigin {
                group.addTask {
                    try await withThrowingTaskGroup(of: [SyncTarget: SyncResult].self) { lane in
                        var results: [SyncTarget: SyncResult] = [:]
                        var next = 0
                        // A sliding window: a job starts as one ends.
                        while next < min(width, queue.count) {
                            let job = queue[next]
                            lane.addTask { try await run(job, state: state) }
                            next += 1
                        }
                        while let done = try await lane.next() {
                            results.merge(done) { $1 }
                            if next < queue.count {
                                let job = queue[next]
                                lane.addTask { try await run(job, state: state) }
                                next += 1
                            }
                        }
                        return results
                    }
                }
            }
            var all: [SyncTarget: SyncResult] = [:]
            for try await results in group { all.merge(results) { $1 } }
            return all
        }
    }

    /// One job's fetches, each report told as it ends and filed under the target it is of.
    private func run(_ job: Job, state: LogState) async throws -> [SyncTarget: SyncResult] {
        var results: [SyncTarget: SyncResult] = [:]
        for target in job.covers { results[target] = SyncResult() }
        let manifest = state.manifests[job.leaders[0].source].map { ManifestSource($0.manifest) }
        let file = { (report: FetchReport) -> SyncTarget? in
            guard let manifest else { return job.covers.first }
            let name = manifest.resource(ofLabel: report.resource.path)?.name
            return job.covers.first { $0.name == name }
        }
        for leader in job.leaders {
            do {
                if leader.isManifest {
                    var filed: [(SyncTarget?, FetchReport)] = []
                    _ = try await store.fetchManifestResource(source: Source(leader.source), resource: leader.name) { report in
                        filed.append((file(report), report))
                        onEvent(.attempt(report))
                    }
                    for case let (target?, report) in filed { results[target]?.reports.append(report) }
                } else {
                    guard let resource = state.resource(source: leader.source, label: leader.name) else {
                        results[leader]?.error = "\(leader) is no longer a resource its source knows"
                        continue
                    }
                    let report = try await store.fetch(resource)
                    onEvent(.attempt(report))
                    results[leader]?.reports.append(report)
                }
            } catch {
                if Task.isCancelled { throw CancellationError() }
                results[leader]?.error = "\(error)"
            }
        }
        return results
    }
}

/// What a job's fetches told of one target.
struct SyncResult: Sendable {
    var reports: [FetchReport] = []
    var error: String?

    var outcome: SyncOutcome {
        if let error { return .failed(error) }
        for report in reports {
            if case .failed(let failureClass, let message) = report.outcome { return .failed("\(failureClass): \(message)") }
        }
        if reports.contains(where: { $0.outcome == .fetched }) { return .refreshed }
        return reports.isEmpty ? .missing : .notModified
    }
}
