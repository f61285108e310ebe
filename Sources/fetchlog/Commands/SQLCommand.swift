import ArgumentParser
import FetchlogCore
import FetchlogSQL
import Foundation

/// `sql "QUERY" [--at SEQ] [--confirmed] [--timeout SECONDS]`, `sql --tables`, `sql --schema
/// [TABLE]` (issue 35): SQL over every view, manifest resource (`SOURCE.RESOURCE`), the log
/// (`events`) and the saved views, on the command line and in the shell.
struct SQLCommand: SharedCommand {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "SQL over the store: every view (status, each source's views: sql --tables lists them), each manifest resource as SOURCE.RESOURCE, the log as events, saved views.",
        discussion: """
        Queries (SELECT, WITH, VALUES, EXPLAIN) are read-only and stop at --timeout (10 s). \
        CREATE VIEW name AS SELECT … and DROP VIEW name save and drop a view: each is an event, so replay, --at, merged logs and replicas know it. \
        Columns are the records' members as exported: numbers, text, booleans (0/1), null; lists and objects are JSON text (json_each, json_extract). \
        --format json is an array of row objects in the query's column order; csv has a header.
        """)
    static let usage = "sql QUERY [--at SEQ] [--confirmed] [--timeout SECONDS] | sql --tables | sql --schema [TABLE]"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Argument(help: "The SQL statement (quote it); with --schema, a table.") var words: [String] = []
    @Option(help: "The state as of this seq (time travel).", transform: Bounded.seq("--at")) var at: UInt64?
    @Flag(help: "Manifest resources without the changes waiting to be sent.") var confirmed = false
    @Option(help: ArgumentHelp("Stop a query after this many seconds, 0.001 to 86400 (10).", valueName: "seconds"), transform: Bounded.seconds("--timeout"))
    var timeout: Double?
    @Flag(help: "The tables and their columns.") var tables = false
    @Flag(help: "CREATE statements of every table (or TABLE), as sqlite3's .schema.") var schema = false

    func validate() throws {
        if tables && schema { throw ValidationError("give --tables or --schema, not both") }
        if tables && !words.isEmpty { throw ValidationError("--tables takes no query") }
        if !tables && !schema && words.isEmpty { throw ValidationError("give a query: fetchlog sql \"SELECT …\" (or --tables)") }
    }

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        if context.session == nil { try Self.refuseBytesNotUTF8() }
        let statement = words.joined(separator: " ")
        let limit = Bounded.duration(seconds: timeout ?? 10)
        // A one-shot query at the head answers from the read model when it is current: no
        // fold of the log, no body decoded (issue 35, cold start).
        if context.session == nil, at == nil, !confirmed, !tables, !schema, SQLText.classify(statement) == .query {
            return try await oneShot(statement, limit: limit, context: context)
        }
        let store: Store
        if let open = context.session?.store { store = open } else { store = try await openStore(context.maintenance, clock: context.clock) }
        if let at { try context.maintenance.checkSeq(at) }
        if tables || schema {
            let state = try at.map { try store.state(asOf: $0) } ?? context.session?.state ?? store.snapshot.state
            let described = try await Self.reporting { try await store.sqlTables(schema ? words.first : nil, state: state, confirmed: confirmed) }
            if schema {
                let text = described.map(\.ddl).joined(separator: "\n")
                return .message(text, json: .array(described.map(Self.json)))
            }
            return .table(columns: ["table", "columns"], rows: described.map { [$0.name, $0.columns.map(\.name).joined(separator: ", ")] },
                          records: described.map(Self.json))
        }
        // Inside `at SEQ …` in the shell, the past it pins.
        let seq = at ?? (context.session.flatMap { $0.pinnedSeq })
        // CREATE VIEW / DROP VIEW say what they did (issue 44): saved, dropped, or nothing
        // (IF NOT EXISTS over a view that exists, IF EXISTS of none).
        switch SQLText.classify(statement) {
        case .createView where seq == nil, .dropView where seq == nil:
            let change = try await Self.reporting { try await store.sqlView(statement) }
            if context.session == nil, change.appended { keepReadModelCurrent(store) }
            return .message(change.description, json: change.json)
        default: break
        }
        guard SQLText.classify(statement) == .query else {
            // CREATE or DROP VIEW --at, anything not a query: the store says why not.
            return Self.rows(try await Self.reporting { try await store.sql(statement, at: seq, confirmed: confirmed, timeLimit: limit) })
        }
        // `.timer on` in the shell times every command, this one too.
        return try await Self.streamed(context) { columns, row in
            try await store.sqlStream(statement, at: seq, confirmed: confirmed, bounds: SQLEngine.Bounds(time: limit), columns: columns, row: row)
        }
    }

    static func rows(_ answer: SQLAnswer) -> Output {
        let footer = SQLRowPrinter.footer(rows: answer.rows.count, asOf: answer.asOf)
        return .rows(columns: answer.columns, values: answer.rows, footer: footer)
    }

    /// From the read model (`ReadModel`): current, it answers without opening the store;
    /// absent or behind, the store is opened and the read model written for the next one.
    /// One that cannot be written (a read-only directory) leaves the answer to the store.
    private func oneShot(_ statement: String, limit: Duration, context: CommandContext) async throws -> Output? {
        let path = context.maintenance.path
        let stamp = try ReadModel.stamp(of: context.maintenance)
        // Checked against its digests first (issue 44): damaged, it is rebuilt anew (nothing
        // copied from it) and the one-shot says so on stderr; it never answers.
        let opened = ReadModel.opening(storePath: path, stamp: stamp)
        var subject = try? opened.get()
        if case .failure(let problem) = opened {
            let store = try await openStore(context.maintenance, clock: context.clock)
            subject = ReadModel.rebuild(from: store, storePath: path, reusing: problem == .behind)
            noteReadModel(problem, rebuilt: subject != nil)
            if subject == nil {
                return try await Self.streamed(context) { columns, row in
                    try await store.sqlStream(statement, bounds: SQLEngine.Bounds(time: limit), columns: columns, row: row)
                }
            }
        }
        let held = subject!
        let directory = ReadModel.directory(of: path)
        let service = SQLService { try SQLEngine(readModel: directory) }
        return try await Self.streamed(context) { columns, row in
            try await service.run { engine in
                let handed = try engine.stream(statement, subject: held, bounds: SQLEngine.Bounds(time: limit), columns: columns, row: row)
                return SQLStreamed(rows: handed.rows, more: handed.more, asOf: held.seq)
            }
        }
    }

    /// Prints the rows `run` hands over as they come (`SQLRowPrinter`), in the context's
    /// format: what the command holds does not grow with the answer (issue 44). Rows printed
    /// before an error stay printed; the error (and exit status) says the answer is not whole.
    /// The shell holds up to 1 MiB before writing, so a short answer still goes through the
    /// pager whole.
    static func streamed(_ context: CommandContext,
                         _ run: (_ columns: @escaping @Sendable ([String]) throws -> Void,
                                 _ row: @escaping @Sendable ([JSONValue]) throws -> Void) async throws -> SQLStreamed) async throws -> Output? {
        let writer = HeldWriter(hold: context.session == nil ? 0 : 1 << 20, emit: context.write)
        let printer = SQLRowPrinter(renderer: context.renderer, write: writer.write)
        do {
            // Rows going to the terminal as they come would be torn by the running note.
            let answer = try await reporting(note: isatty(STDOUT_FILENO) == 0 || context.session != nil) {
                try await run({ printer.begin($0) }, { printer.row($0) })
            }
            printer.finish(footer: SQLRowPrinter.footer(rows: answer.rows, asOf: answer.asOf))
            writer.finish()
        } catch {
            printer.abandon()
            writer.finish()
            throw error
        }
        return nil
    }

    /// `CommandLine.arguments` turns bytes that are not UTF-8 into U+FFFD, so a query holding
    /// them would be answered for text the user did not write: refused, naming the argument.
    static func refuseBytesNotUTF8() throws {
        for index in 1 ..< Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[index], String(validatingCString: raw) == nil else { continue }
            throw CommandError.usage("argument \(index) of the command line is not valid UTF-8: SQL is UTF-8 text (bytes that are not would be read as U+FFFD)")
        }
    }

    /// A table as `--tables` and `--schema` print it in json.
    static func json(_ table: SQLTableDescription) -> JSONValue {
        .object([("table", .string(table.name)), ("kind", .string(table.isView ? "view" : "table")),
                 ("columns", .array(table.columns.map { column in
                     .object([("name", .string(column.name)), ("type", column.declaredType.map(JSONValue.string) ?? .null)])
                 })), ("sql", .string(table.ddl))])
    }

    /// SQL errors as the command's (`ExitStatus.of`): a refused statement is a usage error.
    static func reporting<T>(note: Bool = true, _ body: () async throws -> T) async throws -> T {
        do { return try await RunningNote.around("running", enabled: note && isatty(STDERR_FILENO) == 1, body) } catch let error as SQLError {
            throw ExitStatus.of(error)
        }
    }
}
