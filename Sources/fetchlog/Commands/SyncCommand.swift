import ArgumentParser
import Dispatch
import FetchlogCore
import FetchlogShell
import Foundation
import Synchronization

/// `fetchlog sync [SOURCE[/RESOURCE]…] [--once]`: keeps the store's resources fresh by
/// their own freshness (issue 37). The deciding and fetching are `SyncRunner`'s (a client
/// of the store); this is the command line's door: options, rows, the claim and signals.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Keep every resource fresh: push pending writes, revalidate what is due, sleep until the next is due.",
        discussion: """
        Every resource of every source a manifest defines (selected: false left out) and every \
        resource held of the other sources is revalidated when it falls due (its ttl, else the \
        upstream's freshness), with its validators; a resource with writes of this store \
        waiting has them pushed first. At most --per-origin requests at once per origin.

        Rows on stdout (resource, outcome: fresh, refreshed, not-modified, failed, pushed, \
        backing-off, missing; next due), a summary on stderr. --format ndjson streams one \
        line per attempt and per outcome (and, without --once, per sleep).

        --once: one pass, then exit: 0 when everything is fresh or refreshed, 1 when anything \
        failed (or still waits out a backoff). Without it, sync sleeps until the next resource \
        falls due, or until a write is recorded (`item set` here or in another process: sent \
        then), and runs until SIGINT (exit 130) or SIGTERM (exit 0), each stop saying what \
        was recorded. A second sync on the same \
        store is refused at once with exit status 75 (the running one does the work).
        """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var network: NetworkOptions
    @OptionGroup var outputOptions: OutputOptions
    @Argument(help: ArgumentHelp("Only these: a source, or SOURCE/RESOURCE (a manifest resource's name, or a held path).", valueName: "source[/resource]"))
    var only: [String] = []
    @Flag(help: "One pass, then exit (for cron).") var once = false
    @Option(name: .customLong("per-origin"), help: ArgumentHelp("Requests at once per origin, 1 to 64.", valueName: "n"),
            transform: Bounded.whole("--per-origin", 1 ... 64))
    var perOrigin: Int = 4

    func validate() throws {
        for selector in only where selector.isEmpty || selector.hasPrefix("/") {
            throw ValidationError("sync takes SOURCE or SOURCE/RESOURCE, not '\(selector)'")
        }
    }

    func run() async throws {
        let configuration = try reportingErrors { try network.configuration() }
        let maintenance = try reportingErrors { try storeOptions.open() }
        let clock = configuration.clock
        // One sync per store: a second is refused before it opens the store for fetching.
        let claim = try reportingErrors { try SyncClaim.take(maintenance.path, started: clock.now()) }
        defer { claim.release() }
        let store = try await reportingErrors { try await openStore(maintenance, clock: clock, fetching: configuration) }
        let mode = try outputOptions.mode() ?? .table
        var renderer = Renderer()
        renderer.mode = mode
        let known = Set(store.durableState.manifests.keys).union(store.durableState.sources.plugins.map(\.source.rawValue))
        for selector in only.map(SyncSelector.init) where !known.contains(selector.source) {
            await store.close()
            throw ValidationError("sync: no source named '\(selector.source)'\(Suggest.didYouMean(selector.source, known.sorted())): \(known.sorted().joined(separator: ", "))")
        }
        let recorded = Recorded()
        var runner = SyncRunner(store: store, policy: FreshnessPolicy(sources: store.durableState.sources), clock: clock,
                                only: only.map(SyncSelector.init))
        runner.perOrigin = perOrigin
        let looping = !once
        runner.onEvent = { event in
            if case .attempt(let report) = event { recorded.note(report) }
            if mode == .ndjson {
                for line in Self.lines(event) { say(line.canonicalText()) }
            }
            // Without --once, each pass's rows and summary as it ends (ndjson streamed them).
            if looping, case .passed(let pass) = event {
                var renderer = Renderer()
                renderer.mode = mode
                if mode != .ndjson { writeOut(Data(renderer.render(Self.table(pass)).utf8)) }
                printError(pass.summary)
                // On a terminal, what the sleep waits for (a person watching, not a program).
                if !mode.isMachine, isatty(STDERR_FILENO) == 1 { printError(pass.statusLine) }
            }
        }
        do {
            if once {
                let pass = try await runner.pass()
                await store.close()
                keepReadModelCurrent(store)
                if mode != .ndjson { writeOut(Data(renderer.render(Self.table(pass)).utf8)) }
                printError(pass.summary)
                if pass.failed { throw ExitCode(ExitStatus.failure) }
                return
            }
            // A write recorded beside it (`item set` in another process, caught up with as it
            // is committed) wakes the loop: sent now, not at the next resource's due time.
            let following = store.followAppends()
            defer { following?.cancel() }
            let terminated = try await Self.untilTerminated { [runner] in
                try await runner.run(sleeper: TaskSleeper(store: runner.store))
            }
            await store.close()
            keepReadModelCurrent(store)
            if terminated { printError("sync stopped (SIGTERM): \(recorded.text)") }
        } catch let error as ExitCode {
            throw error
        } catch {
            await store.close()
            if Task.isCancelled || error is CancellationError {
                // Ctrl-C: whatever was in flight is abandoned, unrecorded; the rest stays.
                printError("sync interrupted: \(recorded.text)")
                throw ExitCode(ExitStatus.interrupted)
            }
            printError("\(ExitStatus.of(error).message)")
            throw ExitCode(ExitStatus.of(error).status)
        }
    }

    /// A pass's rows as a table (and records for json, csv and line).
    static func table(_ pass: SyncPass) -> Output {
        .table(columns: ["resource", "outcome", "next due", "detail"],
               rows: pass.rows.map { [$0.target.description, $0.outcome.name, $0.outcome.isPush ? "-" : $0.nextDue?.iso8601 ?? "never", $0.detail.isEmpty ? "-" : $0.detail] },
               records: pass.rows.map(\.json))
    }

    /// An event as ndjson records: a pass's start, each attempt, each outcome, each sleep.
    static func lines(_ event: SyncEvent) -> [JSONValue] {
        switch event {
        case .started(let at, let due, let of):
            return [.object([("type", .string("pass")), ("at", .string(at.iso8601)), ("due", .number(due)), ("resources", .number(of))])]
        case .attempt(let report):
            return report.attempts.compactMap { attempt in
                guard case .object(let pairs) = FetchPrinter.record(report, attempt) else { return nil }
                return .object([("type", .string("attempt"))] + pairs)
            }
        case .outcome(let row):
            guard case .object(let pairs) = row.json else { return [] }
            return [.object([("type", .string("resource"))] + pairs)]
        case .passed(let pass):
            return [.object([("type", .string("summary")), ("text", .string(pass.summary)), ("requests", .number(pass.requests)),
                             ("failed", .bool(pass.failed)), ("nextDue", pass.nextDue.map { .string($0.iso8601) } ?? .null)])]
        case .sleeping(let until):
            return [.object([("type", .string("sleep")), ("until", until.map { .string($0.iso8601) } ?? .null)])]
        }
    }

    /// Runs `body` (the loop) in a task of its own that SIGTERM (and the caller's
    /// cancellation, SIGINT's) cancels; true when SIGTERM ended it.
    static func untilTerminated(_ body: @escaping @Sendable () async throws -> Int) async throws -> Bool {
        let terminated = Atomic<Bool>(false)
        let task = Task { try await body() }
        signal(SIGTERM, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        source.setEventHandler {
            terminated.store(true, ordering: .sequentiallyConsistent)
            task.cancel()
        }
        source.resume()
        defer { source.cancel() }
        let result = await withTaskCancellationHandler { await task.result } onCancel: { task.cancel() }
        if terminated.load(ordering: .sequentiallyConsistent) { return true }
        _ = try result.get()
        return false
    }
}

/// The events recorded so far, for the words a stop ends with.
final class Recorded: Sendable {
    private let seqs = Mutex<[UInt64]>([])

    func note(_ report: FetchReport) {
        seqs.withLock { $0 += report.attempts.map(\.seq).filter { $0 > 0 } }
    }

    var text: String {
        let all = seqs.withLock { $0 }
        guard let first = all.min(), let last = all.max() else { return "no event recorded by this sync; nothing in flight was recorded" }
        return "\(all.count) event\(all.count == 1 ? "" : "s") recorded (seq \(first)…\(last)); a request in flight when it stopped was not"
    }
}
