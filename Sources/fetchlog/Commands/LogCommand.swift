import ArgumentParser
import Fetchlog
import Foundation

struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Inspect, verify, export and import the event log.",
        subcommands: [Stats.self, Tail.self, Show.self, Verify.self, Export.self, Import.self]
    )

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Counts per kind and source, bytes, first and last seq and time.")
        @OptionGroup var storeOptions: StoreOptions
        @Flag(name: .long, help: "Print canonical JSON instead of text.") var json = false

        func run() throws {
            try reportingErrors {
                let log = try storeOptions.open()
                let stats = try log.statistics()
                let out = OutputBuffer()
                if json {
                    out.line(LogRendering.statsJSON(stats, log: log).canonicalText())
                } else {
                    LogRendering.stats(stats, log: log, into: out)
                }
                out.flush()
            }
        }
    }

    struct Tail: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The last events, one line each.")
        @OptionGroup var storeOptions: StoreOptions
        @Option(name: .shortAndLong, help: "How many events.") var n: Int = 10

        func validate() throws {
            guard n >= 0 else { throw ValidationError("-n must be 0 or more") }
        }

        func run() throws {
            try reportingErrors {
                let log = try storeOptions.open()
                let out = OutputBuffer()
                for event in try log.tail(n) { out.line(Format.tailLine(event)) }
                out.flush()
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One event: its envelope, then its body (pretty-printed when JSON).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The event's seq.") var seq: UInt64

        func run() throws {
            try reportingErrors {
                let log = try storeOptions.open()
                guard let event = try log.event(at: seq) else {
                    let last = try log.lastSeq()
                    printError(last == 0 ? "no event \(seq): the log is empty" : "no event \(seq): the log holds 1…\(last)")
                    throw ExitCode(ExitStatus.failure)
                }
                let out = OutputBuffer()
                LogRendering.show(event, into: out)
                out.flush()
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every record: checksums, seq order, decodability.",
            discussion: "Exits 2 naming the first bad seq when anything is wrong.")
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            try reportingErrors {
                let log = try storeOptions.open()
                let report = try log.verify()
                let out = OutputBuffer()
                if report.isHealthy {
                    out.line(report.checked == 0 ? "ok: the log is empty"
                             : "ok: \(report.checked) events, seq 1…\(report.lastSeq), every checksum valid")
                    out.flush()
                    return
                }
                out.flush()
                printError("damaged: first bad seq \(report.problems[0].seq): \(report.problems[0].reason)")
                for problem in report.problems.dropFirst().prefix(9) { printError("also \(problem)") }
                if report.problems.count > 10 { printError("… \(report.problems.count) problems in all") }
                throw ExitCode(ExitStatus.damaged)
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The log as NDJSON, one event a line (Schemas/event.schema.json).",
            discussion: "A body is a string holding its exact text when it is valid UTF-8, else base64.")
        @OptionGroup var storeOptions: StoreOptions
        @Option(name: .long, help: "Write to this file instead of standard output.") var out: String?
        @Option(name: .long, help: "Start at this seq.") var from: UInt64 = 1

        func run() throws {
            try reportingErrors {
                let log = try storeOptions.open()
                let handle: FileHandle
                if let out {
                    guard FileManager.default.createFile(atPath: out, contents: nil) else {
                        printError("cannot create \(out)")
                        throw ExitCode(ExitStatus.failure)
                    }
                    handle = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
                } else {
                    handle = .standardOutput
                }
                let buffer = OutputBuffer(handle: handle)
                try log.exportNDJSON(from: from) { buffer.write($0) }
                buffer.flush()
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load an NDJSON export into an empty store, every body byte for byte.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The NDJSON file, or - for standard input.") var file: String

        func run() throws {
            try reportingErrors {
                let log = try storeOptions.open()
                var path = file
                if file == "-" {
                    // The import reads its input twice (check, then write): keep stdin in a file.
                    path = NSTemporaryDirectory() + "fetchlog-import-\(getpid()).ndjson"
                    try FileHandle.standardInput.readDataToEndOfFile().write(to: URL(fileURLWithPath: path))
                }
                defer { if file == "-" { try? FileManager.default.removeItem(atPath: path) } }
                let count = try log.importNDJSON(path: path)
                say("imported \(count) events into \(log.path)")
            }
        }
    }
}

enum LogRendering {
    static func stats(_ stats: LogStatistics, log: EventLog, into out: OutputBuffer) {
        let info = log.environmentInfo
        out.line("store      \(log.path)")
        out.line("           id \(log.metadata.storeID), format \(log.metadata.formatVersion), created \(log.metadata.createdAt)")
        guard stats.events > 0 else {
            out.line("events     0 (the log is empty)")
            return
        }
        out.line("events     \(stats.events) (seq \(stats.firstSeq)…\(stats.lastSeq))")
        out.line("recorded   \(stats.firstRecordedAt!.iso8601) … \(stats.lastRecordedAt!.iso8601)")
        out.line("bytes      \(stats.recordBytes) in records (\(Format.bytes(stats.recordBytes))), \(stats.bodyBytes) in bodies")
        out.line("by kind    " + stats.byKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        out.line("by source  " + stats.bySource.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        out.line("map        \(Format.bytes(info.mapSize)), page \(info.pageSize) B, \(info.lastPageNumber + 1) pages used")
    }

    static func statsJSON(_ stats: LogStatistics, log: EventLog) -> JSONValue {
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
            ("byKind", counts(stats.byKind)),
            ("bySource", counts(stats.bySource)),
        ])
    }

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
        }
        if let response = event.response {
            out.line("response     \(response.status)")
            for header in response.headers { out.line("  \(header.name): \(header.value)") }
        }
        if let failure = event.failure { out.line("failure      \(failure.failureClass.name): \(failure.message)") }
        out.line("checksum     \(EventJSON.checksum(of: event))")
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
