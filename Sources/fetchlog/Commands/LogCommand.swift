import ArgumentParser
import FetchlogCore
import FetchlogSQL
import FetchlogSources
import Foundation

/// `log …`: the same subcommands, grammar and answers on the command line and in the shell.
struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Inspect, verify, export and import the event log.",
        subcommands: [Stats.self, Tail.self, Show.self, Verify.self, Export.self, Import.self, Compact.self, Salvage.self]
    )

    static let usages: [String: String] = [
        "tail": "log tail [N] (or -n N)", "show": "log show SEQ", "stats": "log stats", "verify": "log verify",
        "export": "log export [--out FILE] [--from SEQ | --since SEQ]", "import": "log import FILE|-",
        "compact": "log compact [--before SEQ | --older-than DURATION] [--dry-run] [--rewrite]",
        "salvage": "log salvage --out FILE",
    ]
    static let usage = "log tail [N] | show SEQ | stats | verify | export [--out FILE] [--from SEQ | --since SEQ] | import FILE|- | compact [--before SEQ | --older-than DURATION] [--dry-run] [--rewrite] | salvage --out FILE"

    struct Stats: SharedCommand {
        static let configuration = CommandConfiguration(abstract: "Counts per kind and source, bytes, first and last seq and time.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions
        @Flag(name: .long, help: .hidden) var json = false
        var legacyJSON: Bool { json }

        func run() async throws {
            try await runOnCommandLine(legacyJSON: json)
        }

        func output(_ context: CommandContext) async throws -> Output? {
            let stats = try context.maintenance.statistics()
            return .record(pairs: LogRendering.statsPairs(stats, store: context.maintenance), json: LogRendering.statsJSON(stats, store: context.maintenance))
        }
    }

    struct Tail: SharedCommand {
        static let configuration = CommandConfiguration(abstract: "The last events, one row each (log tail 2 or log tail -n 2).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions
        @Option(name: .shortAndLong, help: "How many events, 0 to 1000000000 (10 by default).", transform: Bounded.whole("-n", 0 ... 1_000_000_000)) var n: Int?
        @Argument(help: "How many events, as -n.", transform: Bounded.whole("COUNT", 0 ... 1_000_000_000)) var count: Int?

        func validate() throws {
            if let n, let count, n != count { throw ValidationError("give the count once: -n \(n) or \(count)") }
            if (n ?? count ?? 0) < 0 { throw ValidationError("the count must be 0 or more") }
        }

        func run() async throws { try await runOnCommandLine() }

        func output(_ context: CommandContext) async throws -> Output? {
            let events = try context.maintenance.tail(n ?? count ?? 10)
            return .table(columns: ["seq", "recorded at", "kind", "source", "outcome", "bytes", "request"],
                          rows: events.map(LogRendering.tailRow), records: events.map(LogRendering.tailRecord))
        }
    }

    struct Show: SharedCommand {
        static let configuration = CommandConfiguration(abstract: "One event: its envelope, then its body (pretty-printed when JSON).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions
        @Argument(help: "The event's seq.", transform: Bounded.seq("SEQ", from: 1)) var seq: UInt64

        func run() async throws { try await runOnCommandLine() }

        func output(_ context: CommandContext) async throws -> Output? {
            let event = try context.maintenance.event(at: seq)
            let out = OutputBuffer(collect: true)
            LogRendering.show(event, into: out)
            return .message(out.collected, json: EventJSON.value(of: event))
        }
    }

    struct Verify: SharedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every record: checksums, seq order, decodability.",
            discussion: "Exits 2 naming the first bad seq when anything is wrong.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions

        func run() async throws {
            // Opening the store already lets LMDB read the main and `meta` databases,
            // so the layout check runs before the open, not only inside output().
            if let error = Verify.structureError(StoreMaintenance.pageDamage(at: URL(filePath: storeOptions.path))) {
                printError(error.message)
                throw ExitCode(error.status)
            }
            try await runOnCommandLine()
        }

        /// The page-header check of the file's own layout: an error when LMDB cannot read
        /// the file safely; nil when it can (a missing file is left to the store open, which
        /// explains it better). Damage LMDB reads around is `structureNotes`' to name.
        static func structureError(_ problems: [StoreMaintenance.PageDamage]) -> CommandError? {
            guard let first = problems.first(where: { !$0.readsSafely }) else { return nil }
            let others = problems.filter { $0 != first }
            var lines = others.prefix(9).map { "also \($0)" }
            if others.count > 9 { lines.append("… \(problems.count) problems in all") }
            return CommandError(message: "damaged: \(first)" + lines.map { "\n" + $0 }.joined()
                                    + "\nLMDB cannot read this file safely; run `log salvage --out FILE` to export every readable event",
                                status: ExitStatus.damaged)
        }

        func output(_ context: CommandContext) async throws -> Output? {
            if let error = Verify.structureError(StoreMaintenance.pageDamage(at: URL(filePath: context.maintenance.path))) { throw error }
            // What is left is damage LMDB reads around (an overflow page's own header): every
            // record and body is still checked, so the answer says what is damaged and what is not.
            let verification = try context.maintenance.verify()
            let structure = verification.pages
            let report = verification.records
            // The read model (`sql/`, issue 44): every file against its digests, its stamp
            // against the log's. Derived, so damage there is said (exit 2) but loses nothing.
            let readModel = (try? ReadModel.stamp(of: context.maintenance)).flatMap { ReadModel.problems(storePath: context.maintenance.path, stamp: $0) }
            let readModelDamaged = readModel.map { !$0.damaged.isEmpty } ?? false
            var fields: [(String, JSONValue)] = [
                ("ok", .bool(report.isHealthy && structure.isEmpty && !readModelDamaged)), ("checked", .number(report.checked)), ("lastSeq", .number(Int(report.lastSeq))),
                ("problems", .array(report.problems.map { .object([("seq", .number(Int($0.seq))), ("reason", .string($0.reason))]) })),
                ("pages", .array(structure.map { .string($0.description) })),
            ]
            if let readModel {
                fields.append(("readModel", .object([("files", .number(readModel.files)), ("behind", .bool(readModel.behind)),
                                                     ("damaged", .array(readModel.damaged.map { .string($0) }))])))
            }
            let json = JSONValue.object(fields)
            let whole = report.checked == 0 ? "the log is empty" : "\(report.checked) events, seq 1…\(report.lastSeq), every checksum valid"
            var readModelLine: String?
            if let readModel, !readModelDamaged {
                readModelLine = readModel.behind
                    ? "ok: read model (sql/): behind the log, every file as its digests say; the next one-shot rebuilds it"
                    : "ok: read model (sql/): \(readModel.files) files, every one as its digests say, stamped with the log's last record"
            }
            if report.isHealthy && structure.isEmpty && !readModelDamaged {
                return .message("ok: " + whole + (readModelLine.map { "\n" + $0 } ?? ""), json: json)
            }
            var lines: [String] = []
            if !structure.isEmpty {
                lines += structure.prefix(10).map { "damaged: \($0)" }
                if structure.count > 10 { lines.append("… \(structure.count) damaged pages in all") }
                lines.append("LMDB reads around this damage (it does not use these headers to read), so the store opens and reads; a write that frees these pages would trust them, so move the events to a new store: `log export --out FILE`, then `log import FILE` with a new --store")
                if report.isHealthy { lines.append("intact: every record and every body it refers to (\(whole), every body's SHA-256 as referenced)") }
            }
            if !report.isHealthy {
                lines.append("damaged: first bad seq \(report.problems[0].seq): \(report.problems[0].reason)")
                lines += report.problems.dropFirst().prefix(9).map { "also \($0)" }
                if report.problems.count > 10 { lines.append("… \(report.problems.count) problems in all") }
            }
            if let readModel, readModelDamaged {
                lines += readModel.damaged.map { "damaged: read model sql/\($0)" }
                if report.isHealthy && structure.isEmpty { lines.append("intact: the log (\(whole))") }
                lines.append("the read model is derived from the log: the next one-shot (`sql`, `items`, `query`) rebuilds it, or delete sql/ (nothing is lost)")
            } else if let readModelLine {
                lines.append(readModelLine)
            }
            var error = CommandError(message: lines.joined(separator: "\n"), status: ExitStatus.damaged)
            error.output = .message("", json: json)
            throw error
        }
    }

    struct Export: SharedCommand {
        static let configuration = CommandConfiguration(
            abstract: "The log as NDJSON, one event a line (Schemas/event.schema.json).",
            discussion: "A body is a string holding its exact text when it is valid UTF-8, else base64. NDJSON in every --format.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions
        @Option(name: .long, help: "Write to this file instead of standard output.") var out: String?
        @Option(name: .long, help: "Start at this seq.", transform: Bounded.seq("--from")) var from: UInt64?
        @Option(name: .long, help: "Only what is newer than this seq (the last seq a previous export wrote): what is new since.",
                transform: Bounded.seq("--since")) var since: UInt64?

        func validate() throws {
            if from != nil && since != nil { throw ValidationError("give --from SEQ or --since SEQ, not both (--since N is --from N+1)") }
        }

        func run() async throws { try await runOnCommandLine() }

        func output(_ context: CommandContext) async throws -> Output? {
            let from = from ?? since.map { $0 == .max ? $0 : $0 + 1 } ?? 1
            guard let out else {
                try context.maintenance.exportNDJSON(from: from) { context.write($0) }
                return nil
            }
            var count = 0
            var bytes = 0
            var lastWritten: UInt64 = 0
            do {
                // 0600: a log export carries every body, as private as the store itself.
                try SafeFile.write(to: out, mode: 0o600) { sink in
                    lastWritten = try context.maintenance.exportNDJSON(from: from) { line in
                        count += line.last == "\n" ? 1 : 0
                        bytes += line.utf8.count
                        try sink(line)
                    }
                }
            } catch let error as SafeFile.Failure {
                throw CommandError.failed(error.description)
            } catch let error as StoreError {
                throw CommandError.failed("\(error.description); \(out) was left as it was")
            }
            if SafeFile.isStandardOutput(out) { return nil }
            let next = count == 0 ? "" : "; next time: --since \(lastWritten)"
            return .message("wrote \(count) events (\(Format.bytes(bytes))) to \(out)\(next)",
                            json: .object([("file", .string(out)), ("events", .number(count)), ("bytes", .number(bytes)),
                                           ("lastSeq", .number(Int(lastWritten)))]))
        }
    }

    struct Compact: SharedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Drop the bodies later bodies superseded; keep every event's header.",
            discussion: """
                A fetched body is superseded when a later body of the same resource decoded and is the one held now: no view at the head reads it, so every view stays byte for byte as it was. Each event keeps its header (when, what, status, validators, body size and SHA-256). `--at` before the compaction horizon names the resources whose body is gone. Freed pages are reused by later writes; --rewrite also returns them to the file system (LMDB's compacting copy, swapped in atomically; the store must not be open elsewhere).
                """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions
        @Option(name: .long, help: "Only events before this seq.", transform: Bounded.seq("--before")) var before: UInt64?
        @Option(name: .customLong("older-than"), help: "Only events recorded longer ago than this, 0s to 36500d (30d, 12h, 90m, 45s, 2w).") var olderThan: String?
        @Flag(name: .customLong("dry-run"), help: "Say what would be dropped; change nothing.") var dryRun = false
        @Flag(help: "Then rewrite the data file compactly, returning the space to the file system.") var rewrite = false

        func validate() throws {
            if before != nil && olderThan != nil { throw ValidationError("give --before SEQ or --older-than DURATION, not both") }
            if let olderThan { _ = try Bounded.durationText(olderThan, "--older-than") }
            if dryRun && rewrite { throw ValidationError("--dry-run changes nothing, so it cannot --rewrite: give one of them") }
        }

        func run() async throws { try await runOnCommandLine() }

        func output(_ context: CommandContext) async throws -> Output? {
            if rewrite && context.session != nil {
                throw CommandError.usage("the shell holds the store open, so it cannot be rewritten: run `fetchlog log compact --rewrite` from the command line")
            }
            let recordedBefore = olderThan.flatMap(DurationText.seconds).map { seconds in
                Timestamp(milliseconds: context.clock.now().milliseconds - Int64(seconds) * 1000)
            }
            let plan: Compaction.Plan
            do {
                plan = try context.maintenance.compactionPlan(before: before, recordedBefore: recordedBefore)
            } catch let error as MaintenanceError {
                throw ExitStatus.of(error)
            }
            var json: [(String, JSONValue)] = [
                ("dryRun", .bool(dryRun)), ("events", .number(plan.events)), ("resources", .number(plan.resources.count)),
                ("bodyBytes", .number(plan.bodyBytes)), ("horizon", .number(Int(plan.horizon))),
                ("byResource", .array(plan.resources.map { resource in
                    .object([("source", .string(resource.key.source)), ("path", .string(resource.key.path)),
                             ("events", .number(resource.seqs.count)), ("bodyBytes", .number(resource.bodyBytes)),
                             ("heldSeq", .number(Int(resource.heldSeq))), ("fromSeq", .number(Int(resource.nextBodySeq)))])
                })),
            ]
            let what = "\(plan.events) superseded bod\(plan.events == 1 ? "y" : "ies") of \(plan.resources.count) resource\(plan.resources.count == 1 ? "" : "s") (\(Format.bytes(plan.bodyBytes)) as received)"
            if dryRun {
                var lines = ["would drop \(what); every event keeps its header; views at the head stay as they are"]
                for resource in plan.resources.prefix(20) {
                    lines.append("  \(resource.key.source) \(resource.key.path): \(resource.seqs.count) (seq \(resource.seqs.first!)…\(resource.seqs.last!)), the body held is seq \(resource.heldSeq)")
                }
                if plan.resources.count > 20 { lines.append("  … \(plan.resources.count - 20) more resources") }
                return .message(lines.joined(separator: "\n"), json: .object(json))
            }
            let bar = ProgressBar()
            let started = ContinuousClock.now
            let progress: @Sendable (Int, Int) -> Void = { done, total in
                bar.draw(done: done, total: total, bytes: 0, since: started, label: "compacting")
            }
            // In the shell, through its store, which folds the change.
            let done = try await context.session?.store.compact(plan, progress: progress) ?? context.maintenance.compact(plan, progress: progress)
            bar.clear()
            json += [("compacted", .number(done.events)), ("freedBytes", .number(done.freedBytes)),
                     ("bodiesRemoved", .number(done.bodiesRemoved)), ("bodyBytesRemoved", .number(done.bodyBytesRemoved))]
            var message = done.events == 0 && done.bodiesRemoved == 0
                ? "nothing to compact: every body held is the last of its resource"
                : "dropped \(what); freed \(Format.bytes(done.freedBytes)) inside data.mdb (\(done.bodiesRemoved) bod\(done.bodiesRemoved == 1 ? "y" : "ies") stored apart removed)"
            let horizon = try context.maintenance.compactionHorizon()
            if horizon > 0 { message += "\nviews at the head are unchanged; --at answers with every body from seq \(horizon) on" }
            if rewrite {
                let result: StoreRewrite.Result
                do { result = try context.maintenance.closeAndRewrite() } catch let error as MaintenanceError {
                    throw ExitStatus.of(error)
                }
                message += "\nrewrote data.mdb: \(Format.bytes(result.bytesBefore)) → \(Format.bytes(result.bytesAfter)) (\(Format.bytes(max(0, result.bytesBefore - result.bytesAfter))) returned to the file system)"
                json += [("fileBytesBefore", .number(result.bytesBefore)), ("fileBytesAfter", .number(result.bytesAfter))]
            } else if done.freedBytes > 0 {
                message += "\nLMDB reuses the freed pages for later writes; `log compact --rewrite` returns them to the file system"
            }
            return .message(message, json: .object(json))
        }
    }

    struct Salvage: SharedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export every readable event of a damaged store as NDJSON (log import takes it).",
            discussion: "Reads the data file with Fetchlog's own bounds-checked reader, never with LMDB, and never writes to the store. Exits 2 when events were lost.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions
        @Option(name: .long, help: "Write the salvaged events to this file.") var out: String

        func run() async throws {
            // The store is not opened: LMDB could crash on the very damage being salvaged.
            try await renderOnCommandLine { _ in try Salvage.salvage(URL(filePath: storeOptions.path), out: out) }
        }

        func output(_ context: CommandContext) async throws -> Output? {
            try Salvage.salvage(URL(filePath: context.maintenance.path), out: out)
        }

        static func salvage(_ directory: URL, out: String) throws -> Output {
            let report: StoreMaintenance.Salvage
            do { report = try StoreMaintenance.salvage(at: directory) } catch let error as MaintenanceError {
                throw ExitStatus.of(error)
            }
            let lines = report.events
            do {
                // 0600: as private as the store the bodies came from.
                try SafeFile.write(to: out, mode: 0o600) { sink in
                    for event in lines { try sink(EventJSON.line(for: event) + "\n") }
                }
            } catch let error as SafeFile.Failure {
                throw CommandError.failed(error.description)
            }
            let lost = report.lost
            let lostText = lost.isEmpty ? "none lost" : "lost \(lost.count): seq " + lost.prefix(20).map(String.init).joined(separator: ", ") + (lost.count > 20 ? ", …" : "")
            let how = report.scannedPages ? " (the tree is broken: every page of the file was scanned)" : ""
            let json = JSONValue.object([
                ("file", .string(out)), ("salvaged", .number(report.salvaged)),
                ("lost", .array(lost.map { .number(Int($0)) })), ("scannedPages", .bool(report.scannedPages)),
                ("problems", .array(report.problems.map { .string($0) })),
            ])
            let message = "salvaged \(report.salvaged) events to \(out)\(how); \(lostText)"
            guard lost.isEmpty else {
                // Exit 2, as `log verify` on damage: a script must not take a lossy salvage for a whole one.
                var error = CommandError(message: "\(lost.count) event\(lost.count == 1 ? " was" : "s were") lost: each is a `salvage.lost` intent in \(out) (its body says why)",
                                         status: ExitStatus.damaged)
                error.output = .message(message, json: json)
                throw error
            }
            return .message(message, json: json)
        }
    }

    struct Import: SharedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge an NDJSON export into this store: every event it does not hold yet, byte for byte.",
            discussion: "Events keep their origin (the store and seq they were first recorded at), so importing an export twice, or A's into B and B's into A, adds nothing the second time. An export from before origins imports only into an empty store.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions
        @Argument(help: "The NDJSON file, or - for standard input.") var file: String

        func validate() throws {
            guard file != "-" else { return }
            var info = stat()
            guard stat(file, &info) == 0 else { throw ValidationError("cannot read \(file): \(SafeFile.reason(errno))") }
            guard info.st_mode & S_IFMT != S_IFDIR else { throw ValidationError("\(file) is a directory: give an NDJSON file from `log export`") }
        }

        func run() async throws { try await runOnCommandLine() }

        func output(_ context: CommandContext) async throws -> Output? {
            if file == "-" && context.session != nil {
                throw CommandError.usage("in the shell, give the file: log import FILE (the shell's own input is its commands)")
            }
            // A replica's log is a copy of its stream: events enter through the stream only
            // (said before a private copy of the input is made).
            if context.maintenance.isAttachedToStream { throw ExitStatus.of(MaintenanceError.attachedToStream) }
            // The import reads its input twice (check, then write): anything but a regular
            // file (stdin, a pipe, <(…)) is first copied into a private file of its own.
            var info = stat()
            let regular = file != "-" && stat(file, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
            let copy: PrivateCopy? = regular ? nil : try PrivateCopy(of: file)
            defer { copy?.remove() }
            let path = copy?.path ?? file
            let summary: ImportSummary
            let bar = ProgressBar()
            let started = ContinuousClock.now
            defer { bar.clear() }
            let progress: @Sendable (ImportProgress) -> Void = { progress in
                bar.draw(done: progress.events, total: progress.total, bytes: progress.bytes, since: started,
                         label: progress.phase == .checking ? "checking" : "importing")
            }
            do {
                // In the shell, through its store, which folds what was added.
                if let session = context.session {
                    summary = try await session.store.merge(file: path, progress: progress)
                } else {
                    summary = try context.maintenance.merge(file: path, progress: progress)
                }
            } catch MaintenanceError.unreadable(_, let reason) {
                throw CommandError.failed("cannot read \(file): \(reason)")
            } catch let error as MaintenanceError {
                throw ExitStatus.of(error)
            }
            let held = summary.alreadyHeld == 0 ? "" : " (\(summary.alreadyHeld) already held)"
            let seqs = summary.imported == 0 ? "" : summary.firstSeq == summary.lastSeq ? ", seq \(summary.firstSeq)" : ", seq \(summary.firstSeq)…\(summary.lastSeq)"
            return .message("imported \(summary.imported) event\(summary.imported == 1 ? "" : "s") into \(context.maintenance.path)\(seqs)\(held)",
                            json: .object([("imported", .number(summary.imported)), ("alreadyHeld", .number(summary.alreadyHeld)),
                                           ("firstSeq", .number(Int(summary.firstSeq))), ("lastSeq", .number(Int(summary.lastSeq))),
                                           ("store", .string(context.maintenance.path))]))
        }
    }
}

enum LogRendering {
    static func statsPairs(_ stats: LogStatistics, store log: StoreMaintenance) -> [(String, String)] {
        let info = log.environmentInfo
        var pairs: [(String, String)] = [
            ("store", log.path),
            ("", "id \(log.metadata.storeID), format \(log.metadata.formatVersion), created \(log.metadata.createdAt)"),
        ]
        guard stats.events > 0 else { return pairs + [("events", "0 (the log is empty)")] }
        pairs += [
            ("events", "\(stats.events) (seq \(stats.firstSeq)…\(stats.lastSeq))"),
            ("recorded", "\(stats.firstRecordedAt!.iso8601) … \(stats.lastRecordedAt!.iso8601)"),
            ("bytes", "\(stats.recordBytes) in records (\(Format.bytes(stats.recordBytes))), \(stats.bodyBytes) in bodies"),
            ("bodies", "\(stats.distinctBodies) stored once (\(Format.bytes(stats.distinctBodyBytes))), saving \(Format.bytes(stats.bodyBytesSaved)) of copies"),
            ("compacted", stats.compactedEvents == 0 ? "none" : "\(stats.compactedEvents) superseded bodies dropped (\(Format.bytes(stats.compactedBodyBytes)) as received); --at holds every body from seq \((try? log.compactionHorizon()) ?? 0) on"),
            ("merged", stats.mergedEvents == 0 ? "none" : "\(stats.mergedEvents) events from other stores (log import)"),
            ("by kind", stats.byKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")),
            ("by source", stats.bySource.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")),
            ("map", "\(Format.bytes(info.mapSize)), page \(info.pageSize) B, \(info.lastPageNumber + 1) pages used"),
        ]
        return pairs
    }

    static func statsJSON(_ stats: LogStatistics, store log: StoreMaintenance) -> JSONValue {
        func counts(_ d: [String: Int]) -> JSONValue { .object(d.map { ($0.key, .number($0.value)) }) }
        return .object([
            ("store", .string(log.path)),
            ("storeId", .string(log.metadata.storeID)),
            ("events", .number(stats.events)),
            ("firstSeq", .number(stats.firstSeq)),
            ("lastSeq", .number(stats.lastSeq)),
            ("firstRecordedAt", stats.firstRecordedAt.map { .string($0.iso8601) } ?? .null),
            ("lastRecordedAt", stats.lastRecordedAt.map { .string($0.iso8601) } ?? .null),
            ("recordBytes", .number(stats.recordBytes)),
            ("bodyBytes", .number(stats.bodyBytes)),
            ("distinctBodies", .number(stats.distinctBodies)),
            ("distinctBodyBytes", .number(stats.distinctBodyBytes)),
            ("bodyBytesSaved", .number(stats.bodyBytesSaved)),
            ("compactedEvents", .number(stats.compactedEvents)), ("compactedBodyBytes", .number(stats.compactedBodyBytes)),
            ("compactionHorizon", .number(Int((try? log.compactionHorizon()) ?? 0))), ("mergedEvents", .number(stats.mergedEvents)),
            ("byKind", counts(stats.byKind)),
            ("bySource", counts(stats.bySource)),
        ])
    }

    static func tailRow(_ event: Event) -> [String] {
        [String(event.seq), event.recordedAt.iso8601, event.kind.name, event.source, Format.outcome(event),
         event.body.map { Format.bytes($0.count) } ?? "-", event.request.map { "\($0.method) \($0.url)" } ?? event.label]
    }

    static func tailRecord(_ event: Event) -> JSONValue { EventSummary.record(of: event) }

    static func show(_ event: Event, into out: OutputBuffer) {
        out.line("seq          \(event.seq)")
        out.line("recorded at  \(event.recordedAt.iso8601)")
        out.line("kind         \(event.kind.name)")
        out.line("source       \(event.source)")
        if !event.label.isEmpty { out.line("label        \(event.label)") }
        out.line("attempt      \(event.attempt)")
        out.line("duration     " + (event.durationMicros.map { String(format: "%.3f ms", Double($0) / 1000) } ?? "unknown"))
        if let request = event.request {
            out.line("request      \(request.method) \(request.url)")
            for header in request.headers { out.line("  \(header.name): \(header.value)") }
            // The body a POST sent, as sent (a replay of the request needs it).
            if let sent = request.body {
                let text = String(validating: sent, as: UTF8.self).map { $0.replacingOccurrences(of: "\n", with: "\\n") }
                out.line("  (body, \(sent.count) bytes) " + (text ?? "binary; `fetchlog log export` carries it as base64"))
            }
        }
        if let response = event.response {
            out.line("response     \(response.status)")
            for header in response.headers { out.line("  \(header.name): \(header.value)") }
        }
        if let failure = event.failure { out.line("failure      \(failure.failureClass.name): \(failure.message)") }
        out.line("checksum     \(EventJSON.checksum(of: event))")
        if let origin = event.origin { out.line("origin       \(origin.store) seq \(origin.seq) (merged by log import)") }
        if let compacted = event.compactedBody {
            out.line("body         \(compacted.size) bytes, compacted away (a later body superseded it): sha256 \(SHA256.hex(digest: compacted.sha256)), crc32c \(String(compacted.crc32c, radix: 16))")
            return
        }
        guard let body = event.body else {
            out.line("body         none")
            return
        }
        out.line("body         \(body.count) bytes")
        out.line("")
        if let json = try? JSONValue.parse(bytes: body) {
            out.line(json.prettyText())
        } else if let text = String(validating: body, as: UTF8.self) {
            out.write(text.hasSuffix("\n") ? text : text + "\n")
        } else {
            out.line("(binary: \(body.count) bytes; `fetchlog log export` carries them as base64)")
        }
    }
}

/// A private copy (0600, in a directory of its own) of an input that can be read only
/// once, for the import's two passes.
struct PrivateCopy {
    let directory: String
    var path: String { directory + "/input.ndjson" }

    init(of file: String) throws {
        var template = Array((NSTemporaryDirectory() + "/fetchlog-import-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CommandError.failed("cannot make a temporary directory: \(SafeFile.reason(errno))") }
        directory = String(cString: made)
        let source = file == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: file)
        guard let source else { throw CommandError.failed("cannot read \(file): \(SafeFile.reason(errno))") }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CommandError.failed("cannot copy \(file): \(SafeFile.reason(errno))") }
        let sink = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty { try sink.write(contentsOf: chunk) }
        try sink.close()
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
