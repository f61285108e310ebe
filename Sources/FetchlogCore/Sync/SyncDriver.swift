import Synchronization

/// One store's sync inside a long-lived process (`serve --sync`): the loop and a pass
/// asked for now (`POST /api/sync`) take turns, so one resource is never asked twice at
/// once, and the process holds the store's sync claim for as long as the driver lives.
package final class SyncDriver: Sendable {
    package let runner: SyncRunner
    private let turn = PassTurn()
    private let state = Mutex(SyncLoopStatus())

    /// What the loop is doing now, for a reader (`GET /api/sync`, the page's sync panel).
    package var status: SyncLoopStatus { state.withLock { $0 } }

    package init(_ runner: SyncRunner) {
        self.runner = runner
    }

    /// One pass now, after the one running (if any) ends.
    package func passNow() async throws -> SyncPass {
        await turn.take()
        state.withLock { $0.passing = true }
        do {
            let pass = try await runner.pass()
            state.withLock { status in
                status.passing = false
                status.lastPass = pass
            }
            await turn.give()
            return pass
        } catch {
            state.withLock { $0.passing = false }
            await turn.give()
            throw error
        }
    }

    /// Passes until the task is cancelled, sleeping until the next resource falls due: the
    /// runner's loop, each pass taking its turn with those asked for now.
    package func run(sleeper: any SyncSleeper) async throws {
        state.withLock { $0.running = true }
        defer { state.withLock { $0.running = false } }
        try await runner.run(sleeper: sleeper) { try await self.passNow() }
    }
}

/// A driver's loop as a reader sees it: whether it runs, whether a pass (the loop's or one
/// asked for now) is under way, and the last pass that ended.
package struct SyncLoopStatus: Sendable, Equatable {
    /// True from the loop's start until it ends (cancelled, or a pass threw).
    package var running = false
    package var passing = false
    package var lastPass: SyncPass?
}

/// Whose turn it is to run a pass: first come, first served.
private actor PassTurn {
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func give() {
        if waiting.isEmpty { taken = false } else { waiting.removeFirst().resume() }
    }
}
