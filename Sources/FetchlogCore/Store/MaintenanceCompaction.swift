import Foundation

/// Compaction through the store: planning which superseded bodies go, dropping them, and
/// rewriting the data file compactly.
extension StoreMaintenance {
    /// Which bodies a compaction would drop: those of events before `before` (a seq) and
    /// recorded before `recordedBefore`, when given, that a later body superseded.
    /// Cancelled (Ctrl-C): `MaintenanceError.cancelled`, nothing changed.
    package func compactionPlan(before: UInt64? = nil, recordedBefore: Timestamp? = nil) throws -> Compaction.Plan {
        do {
            return try Compaction.plan(log, sources: sources, before: before, recordedBefore: recordedBefore)
        } catch let error as CompactionCancelled {
            throw MaintenanceError.cancelled(error.description)
        }
    }

    /// Drops the bodies `plan` names; every event keeps its header. An open `Store` on this
    /// log must fold the change (`Store.compact` does).
    package func compact(_ plan: Compaction.Plan, progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }) throws -> BodyCompaction {
        try log.compactBodies(plan.seqs, horizon: plan.horizon, progress: progress)
    }

    /// Plans and drops, in one call, the superseded bodies of events before `before` (a seq)
    /// and recorded before `recordedBefore`, when given. Every view at the head stays as it
    /// was; `--at` before the horizon lacks the dropped bodies.
    @discardableResult
    package func compact(before: UInt64? = nil, recordedBefore: Timestamp? = nil) throws -> BodyCompaction {
        try compact(compactionPlan(before: before, recordedBefore: recordedBefore))
    }

    /// Closes the log and rewrites the data file compactly (LMDB's compacting copy, swapped
    /// in atomically), returning freed pages to the file system. The store must not be open
    /// elsewhere (`MaintenanceError.rewriteRefused`); this value is unusable afterwards.
    package func closeAndRewrite() throws -> StoreRewrite.Result {
        log.close()
        do { return try StoreRewrite.rewrite(at: log.path) } catch let error as StoreRewrite.Refused {
            throw MaintenanceError.rewriteRefused(error.description)
        }
    }
}

extension Store {
    /// `StoreMaintenance.compact(before:recordedBefore:)` on this store, folding the change.
    @discardableResult
    package func compact(before: UInt64? = nil, recordedBefore: Timestamp? = nil) async throws -> BodyCompaction {
        try await compact(maintenance.compactionPlan(before: before, recordedBefore: recordedBefore))
    }

    /// Drops the bodies `plan` names and folds the change into the state.
    package func compact(_ plan: Compaction.Plan, progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }) async throws -> BodyCompaction {
        let done = try maintenance.compact(plan, progress: progress)
        try await catchUp()
        return done
    }
}
