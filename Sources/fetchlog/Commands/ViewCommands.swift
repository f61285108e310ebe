import ArgumentParser
import FetchlogCore
import FetchlogSQL
import FetchlogSources
import Foundation

/// `replay [--to SEQ] [--verify]`, on the command line and in the shell.
struct ReplayCommand: SharedCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rebuild every view from the log alone; print each view's events and SHA-256.",
        discussion: "--verify compares with the live state (checkpoint + tail) and exits 2 naming any view that differs. --diff compares this build's reading of the log with the views recorded by the build that saved the last checkpoint, and lists what changed.")
    static let usage = "replay [--to SEQ] [--verify] [--diff]"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Option(help: "Replay up to this seq.", transform: Bounded.seq("--to")) var to: UInt64?
    @Flag(help: "Compare with the live state.") var verify = false
    @Flag(help: "Compare this build's views with those recorded at the last checkpoint (by the build that saved it): items added, removed, changed.")
    var diff = false

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        if diff {
            guard to == nil, !verify else { throw CommandError.usage("--diff replays to the recorded seq and compares there: drop --to and --verify") }
            return try replayDiff(context)
        }
        let last = try context.maintenance.lastSeq()
        if let to { try context.maintenance.checkSeq(to) }
        if verify, let to, to != last {
            throw CommandError.usage("--verify compares with the live state, which is at seq \(last): drop --to")
        }
        let bar = ProgressBar()
        let started = ContinuousClock.now
        let (replayed, perSource) = try context.maintenance.replay(to: to, progress: { seq, last in
            bar.draw(done: Int(seq), total: Int(last), bytes: 0, since: started, label: "replaying")
        })
        bar.clear()
        // Saved views (issue 35) are views: their rows are hashed too, through the SQL engine
        // of the store (opened only when there are some, or to verify).
        var store: Store?
        func opened() async throws -> Store {
            if let store { return store }
            let made: Store
            if let session = context.session { made = session.store } else { made = try await openStore(context.maintenance, clock: context.clock) }
            store = made
            return made
        }
        var hashes = ViewCatalog.hashes(of: replayed)
        // A saved view that could not be evaluated (past its bounds, no longer compiling):
        // why, by name. It is never "same" nor "verified" (issue 44).
        var failures: [String: String] = [:]
        if !replayed.savedViews.isEmpty {
            for saved in await Self.savedViewHashes(of: replayed, store: try await opened()) {
                hashes.append((saved.view, saved.sha256))
                if let failure = saved.failure { failures[saved.view] = failure }
            }
        }
        var live: [String: String]?
        var liveSeq: UInt64 = 0
        if verify {
            // The shell's own store state (durable part), or the store opened afresh.
            let store = try await opened()
            let state = context.session != nil ? store.durableState : store.snapshot.state
            liveSeq = state.seq
            let savedLive = await Self.savedViewHashes(of: state, store: store)
            for saved in savedLive where failures[saved.view] == nil {
                if let failure = saved.failure { failures[saved.view] = "live: " + failure }
            }
            live = Dictionary(uniqueKeysWithValues: (ViewCatalog.hashes(of: state) + savedLive.map { ($0.view, $0.sha256) }).map { ($0.view, $0.sha256) })
        }
        var rows: [[String]] = []
        var records: [JSONValue] = []
        for (view, hash) in hashes {
            // A saved view may read any table, the log's own included: every event feeds it.
            // A manifest resource's items read its source's events.
            let fed = ViewCatalog.sources(in: replayed.sources)[view]
                ?? (view.hasPrefix("items/") ? Set(view.split(separator: "/").dropFirst().prefix(1).map(String.init)) : [])
            let events = replayed.savedViews[view] != nil ? Int(replayed.seq) : fed.reduce(0) { $0 + perSource[$1, default: 0] }
            let failure = failures[view]
            var row = [view, String(events), failure == nil ? hash : "FAILED: " + failure!]
            var record: [(String, JSONValue)] = [("view", .string(view)), ("events", .number(events)),
                                                 ("sha256", failure == nil ? .string(hash) : .null)]
            if let failure { record.append(("error", .string(failure))) }
            if let live {
                row.append(failure != nil ? "FAILED" : live[view] == hash ? "same" : "DIFFERS")
                record.append(("matchesLive", .bool(failure == nil && live[view] == hash)))
            }
            rows.append(row)
            records.append(.object(record))
        }
        var footer = "replayed \(replayed.seq) events" + (replayed.seq > 0 ? " (seq 1…\(replayed.seq))" : "")
        let columns = ["view", "events", "sha256"] + (live == nil ? [] : ["live"])
        let failed = failures.keys.sorted()
        let failedText = failed.map { "\($0) (\(failures[$0]!))" }.joined(separator: "; ")
        guard let live else {
            if !failed.isEmpty { printError("saved view\(failed.count == 1 ? "" : "s") that could not be evaluated: \(failedText)") }
            return .table(columns: columns, rows: rows, records: records, footer: footer)
        }
        let differing = hashes.filter { live[$0.view] != $0.sha256 && failures[$0.view] == nil }.map(\.view)
        if differing.isEmpty && failed.isEmpty {
            footer += "\nverified: every view of the live state (seq \(liveSeq)) hashes the same"
            return .table(columns: columns, rows: rows, records: records, footer: footer)
        }
        var problems: [String] = []
        if !differing.isEmpty { problems.append("live state differs from the replay in: \(differing.joined(separator: ", "))") }
        if !failed.isEmpty { problems.append("saved view\(failed.count == 1 ? "" : "s") that could not be evaluated, so not verified: \(failedText)") }
        var error = CommandError(message: problems.joined(separator: "; "), status: ExitStatus.damaged)
        error.output = .table(columns: columns, rows: rows, records: records, footer: footer)
        throw error
    }
}

extension ReplayCommand {
    /// Each saved view of `state`, by name, with the SHA-256 of its export (`export NAME`) as
    /// of `state`, evaluated within `SavedViewBounds`; or, when it could not be (past its
    /// time or bytes, no longer compiling, naming what is gone), why: `failure`.
    static func savedViewHashes(of state: LogState, store: Store) async -> [(view: String, sha256: String, failure: String?)] {
        var hashes: [(view: String, sha256: String, failure: String?)] = []
        for name in state.savedViews.keys.sorted() {
            do {
                let answer = try await store.savedViewAnswer(name, state: state)
                hashes.append((name, SHA256.hex(SavedViewExport.document(name: name, answer: answer).canonicalText()), nil))
            } catch {
                hashes.append((name, SHA256.hex("error: \(error)"), "\(error)"))
            }
        }
        return hashes
    }

    /// At most this many changes of one view are printed as rows (all are in JSON).
    static let rowsPerView = 10

    func replayDiff(_ context: CommandContext) throws -> Output? {
        let bar = ProgressBar()
        let started = ContinuousClock.now
        defer { bar.clear() }
        let result = try context.maintenance.replayDiff(progress: { seq, last in
            bar.draw(done: Int(seq), total: Int(last), bytes: 0, since: started, label: "replaying")
        })
        var rows: [[String]] = []
        var records: [JSONValue] = []
        for view in result.views {
            records.append(.object([("view", .string(view.view)), ("status", .string(view.status)),
                                    ("changes", .array(view.changes.map(\.json)))]))
            if view.changes.isEmpty {
                rows.append([view.view, view.status, "", "", ""])
                continue
            }
            for change in view.changes.prefix(Self.rowsPerView) {
                rows.append([view.view, change.kind.rawValue, change.path, change.before?.canonicalText() ?? "", change.after?.canonicalText() ?? ""])
            }
            if view.changes.count > Self.rowsPerView {
                rows.append([view.view, "…", "\(view.changes.count - Self.rowsPerView) more (--format json lists all)", "", ""])
            }
        }
        let differing = result.views.filter { $0.status != "same" }.count
        let footer = "replayed to seq \(result.seq) with reducers v\(LogState.reducerVersion) (recorded by v\(result.recordedReducerVersion)): "
            + (differing == 0 ? "every view reads the same" : "\(differing) of \(result.views.count) views differ")
        return .table(columns: ["view", "change", "path", "recorded", "now"], rows: rows, records: records, footer: footer)
    }
}

/// `export VIEW [--at SEQ] [--out FILE]`, on the command line and in the shell.
struct ExportCommand: SharedCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "A view as canonical JSON (sorted keys, stable numbers, final newline).",
        discussion: "Views: \(Engine.sources.exportNames.joined(separator: ", ")); for each resource of a source defined by a manifest (source add FILE), items/SOURCE/RESOURCE and facets/SOURCE/RESOURCE (source list names them; --schema generates theirs); saved views (CREATE VIEW) by their names. Schemas/<view>.schema.json describes each fixed view. Canonical JSON in every --format.")
    static let usage = "export VIEW [--at SEQ] [--out FILE]"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Argument(help: "The view.") var view: String
    @Argument(help: "Write to this file (as --out).") var file: String?
    @Option(help: "The state as of this seq (time travel).", transform: Bounded.seq("--at")) var at: UInt64?
    @Option(help: "Write to this file.") var out: String?
    @Flag(help: "The view's JSON Schema instead (items/… and facets/… views: generated from the manifest and the data).")
    var schema = false
    @Flag(help: "The server's truth alone: changes waiting to be sent (item add/set/delete) left out.") var confirmed = false // issue 26

    func validate() throws {
        if file != nil && out != nil { throw ValidationError("give the file once: --out FILE or FILE") }
    }

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        let held = try await context.state(at: at)
        let state = confirmed ? held.confirmedOnly : held
        let json: JSONValue
        if let saved = state.savedViews[view] {
            // A saved SQL view (issue 35): its rows, as a view.
            let store: Store
            if let open = context.session?.store { store = open } else { store = try await openStore(context.maintenance, clock: context.clock) }
            // Within the bounds a saved view has everywhere (issue 44): past them, it fails by name.
            let answer: SQLAnswer
            do {
                answer = try await SQLCommand.reporting { try await store.savedViewAnswer(view, state: held, confirmed: confirmed) }
            } catch let error as CommandError {
                throw CommandError(message: "saved view \(view) could not be exported: \(error.message)", status: error.status)
            }
            if schema { return .json(SavedViewExport.schema(name: view, sql: saved.sql, answer: answer)) }
            json = SavedViewExport.document(name: view, answer: answer)
        } else {
            json = try Self.document(view, state: state, maintenance: context.maintenance)
        }
        if schema {
            guard let generated = ManifestSchemas.schema(of: view, state: state) else {
                throw CommandError.failed("\(view)'s schema is a file: Schemas/\(view).schema.json (generated schemas are for items/SOURCE/RESOURCE and facets/SOURCE/RESOURCE)")
            }
            return .json(generated)
        }
        guard let path = out ?? file else { return .json(json) }
        let text = json.canonicalText() + "\n"
        do { try SafeFile.write(Data(text.utf8), to: path) } catch let error as SafeFile.Failure {
            throw CommandError.failed(error.description)
        }
        if SafeFile.isStandardOutput(path) { return nil }
        return .message("wrote \(view) (seq \(state.seq), \(Format.bytes(text.utf8.count))) to \(path)",
                        json: .object([("view", .string(view)), ("seq", .number(Int(state.seq))), ("file", .string(path)),
                                       ("bytes", .number(text.utf8.count))]))
    }
}

extension ExportCommand {
    /// `view` as of `state`, or the refusal of a view that reads a body `log compact`
    /// dropped: `export`'s answer, and `GET /api/views/NAME`'s.
    static func document(_ view: String, state: LogState, maintenance: StoreMaintenance) throws -> JSONValue {
        let json: JSONValue
        do { json = try ViewCatalog.export(view, state: state) } catch { throw CommandError.failed(error.description) }
        if let notice = CompactedBodiesNotice.check(view: view, state: state) { throw try compactedError(notice, store: maintenance) }
        return json
    }
}

/// A view asked for at a point whose bodies `log compact` dropped: says which, and from
/// where the answer is whole again; the headers stay readable with `log show`.
func compactedError(_ notice: CompactedBodiesNotice, store: StoreMaintenance) throws -> CommandError {
    let horizon = try store.compactionHorizon()
    var error = CommandError.failed(notice.description
        + ". --at answers with every body from seq \(horizon) on; `log show SEQ` still shows each event's header (status, validators, body size and SHA-256)")
    error.output = .message("", json: .object([
        ("view", .string(notice.view)), ("seq", .number(Int(notice.seq))), ("horizon", .number(Int(horizon))),
        ("compacted", .array(notice.resources.map { .object([("source", .string($0.key.source)), ("path", .string($0.key.path)), ("seq", .number(Int($0.seq)))]) })),
    ]))
    return error
}
