import ArgumentParser
import FetchlogCore
import FetchlogSQL
import FetchlogShell
import FetchlogSources
import Foundation

/// The REPL's commands. Each reads the session's state (a snapshot) and returns output.
enum Commands {
    static let pageSize = 20

    // MARK: Arguments

    static func int(_ text: String?, _ what: String) throws -> Int {
        guard let text, let n = Int(text), n >= 0 else { throw CommandError.usage("give \(what) as a number") }
        return n
    }

    static func one(_ args: [String], _ usage: String) throws -> String {
        try Arguments(args, usage: usage).words(1 ... 1)[0]
    }

    /// Refuses any word or option: for commands that take none.
    static func none(_ args: [String], _ usage: String) throws {
        _ = try Arguments(args, usage: usage).words(0 ... 0)
    }

    static func text(_ value: Double?) -> String { value.map { CanonicalNumber.text($0) } ?? "-" }
    static func text(_ value: Int?) -> String { value.map(String.init) ?? "-" }
    static func text(_ value: String?) -> String { value ?? "-" }

    // MARK: help, sources

    static func help(_ session: Session, _ args: [String]) async throws -> Output? {
        if let name = args.first {
            guard args.count == 1 else { throw CommandError.usage("usage: help [COMMAND]") }
            if let dot = CommandTable.dotCommands.first(where: { $0.0.hasPrefix(name + " ") || $0.0 == name }) {
                return .message("\(dot.0)\n  \(dot.1)\n  example: \(dot.2)",
                                json: .object([("name", .string(name)), ("usage", .string(dot.0)), ("summary", .string(dot.1)), ("example", .string(dot.2))]))
            }
            guard let spec = CommandTable.find(name, in: session.commands) else {
                throw CommandError.usage("no command '\(name)'\(Suggest.didYouMean(name, CommandTable.names(in: session.commands))); type help for the list")
            }
            // A real example of a command over a manifest's resources, on this store.
            if let example = HelpExamples.example(for: spec.name, state: session.state) {
                let json: JSONValue = .object([("name", .string(spec.name)), ("usage", .string(spec.usage)), ("summary", .string(spec.summary)),
                                               ("example", .string(example))])
                return .message("\(spec.usage)\n  \(spec.summary)\n  example: \(example)", json: json)
            }
            return .message("\(spec.usage)\n  \(spec.summary)\n  example: \(spec.example)", json: spec.json)
        }
        var lines = ["Commands (help COMMAND for one; every example works on the demo store):"]
        let width = (session.commands.map(\.name.count) + [12]).max()! + 2
        for spec in session.commands {
            lines.append("  " + Format.padRight(spec.name, width) + spec.summary + "   e.g. " + spec.example)
        }
        for dot in CommandTable.dotCommands {
            let name = String(dot.0.split(separator: " ").first ?? "")
            lines.append("  " + Format.padRight(name, width) + dot.1 + "   e.g. " + dot.2)
        }
        lines.append("Exit status in scripts: 1 a command failed, 64 a command is malformed or unknown, 130 interrupted.")
        let records = session.commands.map(\.json) + CommandTable.dotCommands.map { dot in
            JSONValue.object([("name", .string(String(dot.0.split(separator: " ")[0]))), ("usage", .string(dot.0)),
                              ("summary", .string(dot.1)), ("example", .string(dot.2))])
        }
        return .message(lines.joined(separator: "\n"), json: .array(records))
    }

    static func sources(_ session: Session, _ args: [String]) async throws -> Output? {
        try none(args, "sources")
        let state = session.state
        var rows: [[String]] = []
        var records: [JSONValue] = []
        // The user's own sources are sources like the seeds (issue 36): listed after them.
        let defined = state.manifests.keys.sorted().compactMap { state.plugin($0) }
        for plugin in state.sources.plugins + defined {
            let source = plugin.source
            let keys = state.status.keys.filter { $0.source == source.rawValue }
            let held = keys.filter { state.documents[$0] != nil }.count
            let last = keys.compactMap { state.status[$0]?.lastSuccess }.max()
            rows.append([source.rawValue, plugin.realBase, String(held), last?.iso8601 ?? "never"])
            records.append(.object([("source", .string(source.rawValue)), ("base", .string(plugin.realBase)),
                                    ("held", .number(held)), ("lastSuccess", .optional(last?.iso8601))]))
        }
        return .table(columns: ["source", "base", "held", "last success"], rows: rows, records: records)
    }

    // MARK: fetch

    static func fetch(_ session: Session, _ args: [String]) async throws -> Output? {
        guard !session.isPinned else { throw CommandError.usage("at SEQ is read-only: fetch cannot run inside it") }
        // The shell fetches with the settings it was started with; these are the command
        // line's, and silently ignoring them would fetch other than asked.
        let startOnly = ["--store", "--upstream", "--offline", "--retries", "--connect-timeout", "--read-timeout", "--retry-after-cap",
                         "--deadline", "--min-rate", "--max-body", "--allow-private-hosts", "--redact-param"]
        if let given = args.first(where: { arg in startOnly.contains { arg == $0 || arg.hasPrefix($0 + "=") } }) {
            let option = given.split(separator: "=").first.map(String.init) ?? given
            throw CommandError.usage("\(option) is set when the shell starts (fetchlog \(option) … repl); this shell fetches with its own settings")
        }
        let printer = FetchPrinter()
        printer.write = { session.emit($0 + "\n") }
        printer.warn = { session.notify("warning: " + $0) }
        printer.live = !session.renderer.mode.isMachine
        return try await runFetch(args, store: session.store, shell: session.shell, policy: session.policy, printer: printer)
    }

    /// `fetch` from its words through an open store: the shell's, and `POST /api/fetch`'s.
    /// Nothing usable is a failed command that still carries the report.
    static func runFetch(_ args: [String], store: Store, shell: ShellRegistry, policy: OfflineFirst?, printer: FetchPrinter) async throws -> Output? {
        let command: FetchCommand
        let defined = Set(store.snapshot.state.manifests.keys)
        do {
            command = try FetchCommand.$registry.withValue(shell) {
                try FetchCommand.$definedSources.withValue(defined) { try FetchCommand.parse(args) }
            }
        } catch {
            throw CommandError.usage(FetchCommand.message(for: error) + "\nusage: \(CommandTable.find("fetch")!.usage)")
        }
        let reports: [FetchReport]
        do { reports = try await command.perform(store, printer, policy: policy, shell: shell) } catch let error as ValidationError {
            throw CommandError.usage(error.message + "\nusage: \(CommandTable.find("fetch")!.usage)")
        }
        let output = printer.finish(reports)
        try await store.catchUp()
        if !reports.isEmpty && !reports.contains(where: \.isUsable) {
            var error = CommandError.failed("nothing usable came back: \(FetchCommand.reason(reports))")
            error.output = output
            throw error
        }
        return output
    }

    static func asset(_ session: Session, _ args: [String]) async throws -> Output? {
        guard let verb = args.first, args.count >= 2 else { throw CommandError.usage("usage: asset show URL | asset save URL FILE [--force]") }
        let url = args[1]
        let row = AssetsView(state: session.state).asset(url)
        switch verb {
        case "show":
            guard args.count == 2 else { throw CommandError.usage("usage: asset show URL") }
            guard let row else {
                return .message("\(url): never fetched (fetch asset \(url))",
                                json: .object([("url", .string(url)), ("held", .bool(false)), ("fetched", .bool(false))]))
            }
            guard let info = row.info else {
                return .message("\(url): not held; \(row.failuresSince) failed attempts, last: \(row.lastError ?? "-")",
                                json: .object([("url", .string(url)), ("held", .bool(false)), ("failuresSince", .number(row.failuresSince)),
                                               ("lastError", .optional(row.lastError))]))
            }
            return .record(pairs: [("url", url), ("type", info.format.contentType), ("size", "\(info.size) bytes"), ("sha256", info.sha256),
                                   ("seq", row.seq.map { $0 == 0 ? "this session only" : String($0) } ?? "-")],
                           json: .object([("url", .string(url)), ("held", .bool(true)), ("contentType", .string(info.format.contentType)),
                                          ("size", .number(info.size)), ("sha256", .string(info.sha256)),
                                          ("seq", row.seq.map { $0 == 0 ? .null : .number(Int($0)) } ?? .null),
                                          ("sessionOnly", .bool(row.seq == 0))]))
        case "save":
            let arguments = try Arguments(Array(args.dropFirst()), usage: "asset save URL FILE [--force]", flags: ["force"])
            let words = try arguments.words(2 ... 2)
            let file = words[1]
            // An existing file is kept unless --force says to replace it.
            var info = stat()
            if !arguments.flag("force"), stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                throw CommandError.failed("\(file) exists: add --force to replace it")
            }
            guard let row, row.info != nil, let seq = row.seq else { throw CommandError.failed("the bytes of \(url) are not held: fetch asset \(url)") }
            let bytes: [UInt8]
            if seq == 0 {
                guard let event = session.store.session.events.last(where: { $0.label == url && $0.kind == .fetched }), let body = event.body else {
                    throw CommandError.failed("the bytes of \(url) are not held")
                }
                bytes = body
            } else {
                guard let body = try session.maintenance.event(at: seq).body else { throw CommandError.failed("event \(seq) has no body") }
                bytes = body
            }
            do { try SafeFile.write(Data(bytes), to: file) } catch let error as SafeFile.Failure {
                throw CommandError.failed(error.description)
            }
            let sha = SHA256.hex(bytes)
            return .message("wrote \(bytes.count) bytes (sha256 \(sha)) to \(file)",
                            json: .object([("url", .string(url)), ("file", .string(file)), ("bytes", .number(bytes.count)), ("sha256", .string(sha))]))
        default:
            throw CommandError.usage("usage: asset show URL | asset save URL FILE")
        }
    }

    // MARK: status, log, replay, export, at, diff

    static func status(_ session: Session, _ args: [String]) async throws -> Output? {
        try await session.runShared(StatusCommand.self, args, usage: StatusCommand.usage)
    }

    static func source(_ session: Session, _ args: [String]) async throws -> Output? {
        guard !args.isEmpty else { throw CommandError.usage("usage: \(SourceCommand.usage)") }
        return try await session.runShared(SourceCommand.self, args, usage: SourceCommand.usage, subcommandUsage: SourceCommand.usages)
    }

    static func log(_ session: Session, _ args: [String]) async throws -> Output? {
        guard !args.isEmpty else { throw CommandError.usage("usage: \(LogCommand.usage)") }
        return try await session.runShared(LogCommand.self, args, usage: LogCommand.usage, subcommandUsage: LogCommand.usages)
    }

    static func replay(_ session: Session, _ args: [String]) async throws -> Output? {
        try await session.runShared(ReplayCommand.self, args, usage: ReplayCommand.usage)
    }

    static func export(_ session: Session, _ args: [String]) async throws -> Output? {
        try await session.runShared(ExportCommand.self, args, usage: ExportCommand.usage)
    }

    static func at(_ session: Session, _ args: [String]) async throws -> Output? {
        guard args.count >= 2 else { throw CommandError.usage("usage: at SEQ COMMAND…") }
        let seq: UInt64
        do { seq = try Bounded.checkedSeq(args[0], "at") } catch { throw CommandError.usage("\(error), not '\(args[0])'\nusage: at SEQ COMMAND…") }
        guard args[1] != "at" else { throw CommandError.usage("at cannot nest") }
        return try await session.pinned(at: seq) { try await session.run(args[1], Array(args.dropFirst(2))) }
    }

    static func diff(_ session: Session, _ args: [String]) async throws -> Output? {
        guard args.count == 3 else { throw CommandError.usage("usage: diff SEQ1 SEQ2 VIEW") }
        let a: UInt64, b: UInt64
        do { (a, b) = (try Bounded.checkedSeq(args[0], "diff"), try Bounded.checkedSeq(args[1], "diff")) } catch {
            throw CommandError.usage("\(error), not '\(args[0])' '\(args[1])'\nusage: diff SEQ1 SEQ2 VIEW")
        }
        return try await viewDiff(session.store, view: args[2], from: a, to: b)
    }

    /// `view` from seq `a` to `b` in `store`: the shell's `diff`, and `GET /api/diff`'s.
    static func viewDiff(_ store: Store, view: String, from a: UInt64, to b: UInt64) async throws -> Output {
        for seq in [a, b] { try store.maintenance.checkSeq(seq) }
        let before: JSONValue, after: JSONValue
        do {
            // Time travel is the store's (its checkpoint and the tail when it can).
            let states = [try store.state(asOf: a), try store.state(asOf: b)]
            for state in states {
                if let notice = CompactedBodiesNotice.check(view: view, state: state) { throw try compactedError(notice, store: store.maintenance) }
            }
            if !ViewCatalog.exportNames(in: states[1]).contains(view), states.contains(where: { $0.savedViews[view] != nil }) {
                // A saved view (issue 35): its export at each seq; where it was not saved
                // (yet, or any more), no rows.
                var exports: [JSONValue] = []
                for state in states {
                    guard state.savedViews[view] != nil else {
                        exports.append(SavedViewExport.document(name: view, answer: SQLAnswer(columns: [], rows: [], asOf: state.seq)))
                        continue
                    }
                    let answer = try await SQLCommand.reporting { try await store.savedViewAnswer(view, state: state) }
                    exports.append(SavedViewExport.document(name: view, answer: answer))
                }
                (before, after) = (exports[0], exports[1])
            } else {
                before = try ViewCatalog.export(view, state: states[0])
                after = try ViewCatalog.export(view, state: states[1])
            }
        } catch let error as ViewNameError { throw CommandError.failed(error.description) }
        // Keyed collections are compared by key (resource, id, name …), so an added row is
        // one `added` change, not a cascade of positions; values are whole JSON.
        let diff = ViewDiff(from: before, to: after)
        if diff.isEmpty { return .message("no change in \(view) between seq \(a) and \(b)", json: .array([])) }
        let rows = diff.changes.map { change -> [String] in
            [change.kind.rawValue, change.path, change.before?.canonicalText() ?? "", change.after?.canonicalText() ?? ""]
        }
        return .table(columns: ["change", "path", "seq \(a)", "seq \(b)"], rows: rows, records: diff.changes.map(\.json),
                      footer: "\(diff.changes.count) change\(diff.changes.count == 1 ? "" : "s") in \(view) from seq \(a) to \(b)")
    }
}
