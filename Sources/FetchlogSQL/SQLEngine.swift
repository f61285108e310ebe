import CSQLite
import FetchlogCore
import FetchlogSQLite
import Foundation
import Synchronization

/// One SQLite connection holding a state's tables (`SQLTables`), built when a query names
/// them and rebuilt when the state it is asked about moved on; queries run read-only,
/// bounded in time, interruptible.
///
/// Not thread-safe: one thread uses an engine at a time (`SQLService` gives each store one
/// on its own queue). `interrupter` may be used from any thread.
package final class SQLEngine {
    private let connection: SQLiteConnection
    /// Tables built: qualified name (lowercased) → the seq and confirmed flag built at.
    /// What each was built from: the seq, or — for a table whose inputs are known — the change
    /// tokens of the sources that feed it (`ChangeTokens`), so another source's fetch leaves
    /// it as it is; and whether confirmed-only.
    private var built: [String: (version: [UInt64], confirmed: Bool)] = [:]
    /// How many tables this engine has built (tests see a table kept as it was by it).
    package private(set) var tablesBuilt = 0
    /// How many rows this engine has written into tables (tests see a page's rows added
    /// to a table kept by segments, not the table written again).
    package private(set) var rowsWritten = 0
    /// Per table kept by segments (`ViewSegment`): each segment's token and row count, in
    /// order, and the table's columns.
    private var segmentsBuilt: [String: (tokens: [[UInt64]], counts: [Int], columns: [String])] = [:]
    /// The tables the last statement named, as `SQLSubject.tableNames` writes them.
    private var namedTables: [String] = []
    /// A read model on disk (`ReadModel`) this engine reads instead of building tables.
    private let readModel: String?
    private var attached: Set<String> = []
    /// Saved views created now: name (lowercased) → SQL.
    private var created: [String: String] = [:]
    private let cancelled = StopFlag()
    /// Set when the running statement's time ran out (by the timer or the progress handler).
    private let timedOut = StopFlag()
    private var deadline: ContinuousClock.Instant?
    /// Reads the log's events up to a seq as `events` rows.
    private let events: (UInt64) throws -> [JSONValue]

    /// The default time limit of a query.
    package static let defaultTimeLimit: Duration = .seconds(10)
    /// The most memory SQLite may hold in this process (`sqlite3_hard_heap_limit64`): a
    /// statement whose compilation alone grows without end (CTEs that each name the one before
    /// twice) cannot be stopped by the time limit, which SQLite checks only while it runs; this
    /// stops it with "out of memory" instead of the machine's memory. Set once, for the process.
    package static let heapLimit: Int64 = 1 << 30
    private static let heapLimitSet: Void = { _ = sqlite3_hard_heap_limit64(heapLimit) }()

    /// The most bytes a string or blob may grow to in a query (`SQLITE_LIMIT_LENGTH`).
    package static let maxLength: Int32 = 64 << 20

    package convenience init(events: @escaping (UInt64) throws -> [JSONValue]) throws {
        try self.init(connection: SQLiteConnection(), readModel: nil, events: events)
    }

    /// An engine over the read model in `directory` (its `main` file opened read-only; each
    /// source's file attached when a query names it).
    package convenience init(readModel directory: String) throws {
        try self.init(connection: SQLiteConnection(path: ReadModel.file(of: nil, in: directory), readOnly: true),
                      readModel: directory, events: { _ in [] })
    }

    private init(connection: SQLiteConnection, readModel: String?, events: @escaping (UInt64) throws -> [JSONValue]) throws {
        _ = Self.heapLimitSet
        self.connection = connection
        self.readModel = readModel
        self.events = events
        connection.limit(SQLITE_LIMIT_LENGTH, Self.maxLength)
        connection.limit(SQLITE_LIMIT_SQL_LENGTH, 1 << 20)
        connection.limit(SQLITE_LIMIT_ATTACHED, 10)
        connection.setProgressHandler(every: 4000) { [cancelled, unowned self] in
            if cancelled.isSet { return true }
            if let deadline = self.deadline, ContinuousClock.now >= deadline { return true }
            if self.timedOut.isSet { return true }
            return false
        }
    }

    /// Clears a stop left by an earlier call, before the next one starts (`SQLService`).
    package func resetStop() {
        cancelled.set(false)
        timedOut.set(false)
    }

    /// Stops the query running now (Ctrl-C, a cancelled task); safe from any thread.
    package var interrupter: @Sendable () -> Void {
        let stop = connection.interrupter
        return { [cancelled] in
            cancelled.set(true)
            stop.interrupt()
        }
    }

    /// Runs the query `sql` (one statement: SELECT, WITH, VALUES or EXPLAIN) over `state`'s
    /// tables. `confirmed`: manifest resources without pending changes. `limit`: the time a
    /// query may take.
    package func query(_ sql: String, state: LogState, confirmed: Bool = false, limit: Duration = SQLEngine.defaultTimeLimit) throws(SQLError) -> SQLAnswer {
        do {
            return try answer(sql, subject: SQLSubject(state: state, confirmed: confirmed), bounds: Bounds(time: limit))
        } catch let error as SQLError {
            throw error
        } catch {
            throw SQLError(.invalid, "\(error)")
        }
    }

    /// Only a query runs as one: CREATE VIEW and DROP VIEW go through the store, the rest is refused.
    private func refuseUnlessQuery(_ sql: String) throws(SQLError) {
        switch SQLText.classify(sql) {
        case .query: return
        case .empty: throw SQLError(.refused, "no SQL statement given")
        case .createView, .dropView:
            throw SQLError(.refused, "CREATE VIEW and DROP VIEW save an event: run them through the store (fetchlog sql, the shell), not as a query")
        case .other(let word):
            throw Self.refusal(word)
        }
    }

    /// Checks that `select` compiles as a saved view named `name` over `state`'s tables, read-only:
    /// what `CREATE VIEW` does before its event is appended. Returns its columns.
    package func validateView(name: String, select: String, state: LogState) throws(SQLError) -> [String] {
        let lowered = name.lowercased()
        let subject = SQLSubject(state: state, confirmed: false)
        // The name rule (issue 44) lives in one place; a view of this very name is the caller's to say.
        try SavedViewName.validate(name, against: SavedViewName.taken(in: state, except: name))
        guard SQLText.classify(select) == .query else {
            throw SQLError(.refused, "a saved view is CREATE VIEW name AS SELECT …: its body must be a query")
        }
        // A view that names itself would never compile; SQLite says so.
        let statement = try prepare(select, subject: subject, excluding: lowered)
        return statement.columnNames
    }

    /// One table as `.tables` and `.schema` show it.
    package struct TableDescription: Equatable, Sendable {
        /// A view's name, `SOURCE.RESOURCE`, a saved view's name.
        package let name: String
        package let columns: [SQLColumn]
        /// True for a saved view.
        package let isView: Bool
        /// A saved view's SELECT.
        package let select: String?

        /// What sqlite3's `.schema` prints for it.
        package var ddl: String {
            if let select { return "CREATE VIEW \(SQLEngine.quoteIfNeeded(name)) AS \(select);" }
            let body = columns.map { SQLEngine.quoteIfNeeded($0.name) + ($0.declaredType.map { " " + $0 } ?? "") }
            return "CREATE TABLE \(name.split(separator: ".").map { SQLEngine.quoteIfNeeded(String($0)) }.joined(separator: ".")) (\(body.joined(separator: ", ")));"
        }
    }

    /// Every table (or the one named `only`) with its columns, built for `state`.
    package func describe(_ only: String? = nil, state: LogState, confirmed: Bool = false) throws(SQLError) -> [TableDescription] {
        try describe(only, subject: SQLSubject(state: state, confirmed: confirmed))
    }

    /// Every table (or the one named `only`) of `subject` with its columns.
    package func describe(_ only: String? = nil, subject: SQLSubject) throws(SQLError) -> [TableDescription] {
        var names = subject.tableNames
        if let only {
            let wanted = only.lowercased()
            names = names.filter { $0.lowercased() == wanted }
            if names.isEmpty {
                let known = subject.tableNames
                throw SQLError(.invalid, "no table named '\(only)'\(Suggest.didYouMean(only, known)). Tables: \(known.joined(separator: ", "))")
            }
        }
        var described: [TableDescription] = []
        for name in names {
            if let view = subject.savedViews[name.lowercased()] {
                let columns: [SQLColumn]
                do {
                    columns = try prepare("SELECT * FROM \(Self.quote(name))", subject: subject).columnNames.map { SQLColumn(name: $0, declaredType: nil) }
                } catch {
                    columns = []
                }
                described.append(TableDescription(name: name, columns: columns, isView: true, select: view.sql))
                continue
            }
            let quoted = name.split(separator: ".").map { Self.quote(String($0)) }.joined(separator: ".")
            try ensureTables(for: quoted, subject: subject, excluding: nil)
            described.append(TableDescription(name: name, columns: try columns(of: name), isView: false, select: nil))
        }
        return described
    }

    /// A name as SQL writes it: bare when it is a plain word, else quoted.
    package static func quoteIfNeeded(_ name: String) -> String {
        let plain = !name.isEmpty && name.utf8.allSatisfy { $0 == 0x5F || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }
            && !(name.utf8.first! >= 0x30 && name.utf8.first! <= 0x39)
        return plain ? name : quote(name)
    }

    // MARK: - Preparing

    private func prepare(_ sql: String, subject: SQLSubject, excluding: String? = nil) throws(SQLError) -> SQLiteStatement {
        try ensureTables(for: sql, subject: subject, excluding: excluding)
        connection.setAuthorizer(Self.readOnly)
        defer { connection.setAuthorizer(nil) }
        let prepared: (SQLiteStatement?, restOffset: Int)
        do {
            prepared = try connection.prepareFirst(sql)
        } catch {
            throw explain(error, sql: sql, subject: subject)
        }
        guard let statement = prepared.0 else { throw SQLError(.refused, "no SQL statement given") }
        let rest = String(decoding: Array(sql.utf8)[prepared.restOffset...], as: UTF8.self)
        if SQLText.tokens(rest).contains(where: { $0.text != ";" }) {
            throw SQLError(.refused, "one statement at a time: run the statements after the first ';' on their own")
        }
        guard statement.isReadOnly else { throw SQLError(.refused, "refused: the statement would change the database; queries here are read-only") }
        return statement
    }

    /// What the authorizer lets a user's statement do: read, select, call functions, recurse.
    private static func readOnly(_ action: SQLiteAction) -> SQLiteAuthorization {
        switch action.code {
        case SQLITE_SELECT, SQLITE_READ, SQLITE_RECURSIVE: return .allow
        case SQLITE_UPDATE:
            // A table-valued function (json_each, json_tree, pragma_table_info) declares its
            // columns when a query names it, and SQLite asks for each column of the schema
            // table as an UPDATE while it does: refused, every json_each failed ("vtable
            // constructor failed"). A user's own write to sqlite_master never gets here:
            // SQLite refuses it first ("may not be modified"; writable_schema is a pragma
            // refused below), and stmt_readonly is checked after.
            let table = action.first?.lowercased() ?? ""
            return ["sqlite_master", "sqlite_temp_master", "sqlite_schema", "sqlite_temp_schema"].contains(table) ? .allow : .deny
        case SQLITE_FUNCTION:
            // load_extension is off at the connection; these are refused by name as well.
            let name = action.second?.lowercased() ?? ""
            return ["load_extension", "fts3_tokenizer", "readfile", "writefile", "edit"].contains(name) ? .deny : .allow
        case SQLITE_PRAGMA:
            let name = action.first?.lowercased() ?? ""
            return ["table_info", "table_xinfo", "table_list"].contains(name) ? .allow : .deny
        default: return .deny
        }
    }

    private static func refusal(_ word: String) -> SQLError {
        SQLError(.refused, "refused: \(word) is not a query. Fetchlog's tables are views of the log, read-only: run SELECT, WITH, VALUES or EXPLAIN; CREATE VIEW and DROP VIEW save or drop a view (an event). The log changes by fetch and item add|set|delete")
    }

    // MARK: - Running

    /// What one statement may take. `time` is wall-clock from its first step to the last row
    /// handed over — SQLite's steps, turning values into JSON and what the caller does with
    /// each row (rendering, writing) all count — and is enforced twice: the progress handler
    /// between SQLite's steps and a timer that interrupts a step running past it (the row
    /// loop checks it between rows). `rows`: stop reading after this many (not an error).
    /// `bytes`: the most an answer may hold, each value counted as its JSON text with its
    /// column's key (what an answer of row objects takes); past it the statement stops with
    /// ``SQLError/Kind-swift.enum/tooLarge`` before the value that would pass it is converted.
    /// `skip`: rows stepped over first, never converted nor counted (a page's offset).
    /// `peeks`: once `rows` are handed over, one more step says whether more follow.
    package struct Bounds: Sendable, Equatable {
        package var time: Duration
        package var skip: Int
        package var rows: Int?
        package var bytes: Int?
        package var peeks: Bool

        package init(time: Duration = SQLEngine.defaultTimeLimit, skip: Int = 0, rows: Int? = nil, bytes: Int? = nil, peeks: Bool = false) {
            self.time = time
            self.skip = skip
            self.rows = rows
            self.bytes = bytes
            self.peeks = peeks
        }
    }

    /// Runs the query `sql` over `subject`'s tables, handing `columns` its column names and
    /// then `row` each row as SQLite yields it: nothing is held, so memory does not grow with
    /// the answer. Returns how many rows were handed over and, when `bounds.rows` stopped it,
    /// whether another row followed (stepped to, not converted). An error `row` throws ends
    /// the statement and is rethrown as it is.
    package func stream(_ sql: String, subject: SQLSubject, bounds: Bounds,
                        columns: ([String]) throws -> Void, row: ([JSONValue]) throws -> Void) throws -> (rows: Int, more: Bool) {
        try refuseUnlessQuery(sql)
        let statement = try prepare(sql, subject: subject)
        return try run(statement, sql: sql, subject: subject, bounds: bounds, columns: columns, row: row)
    }

    /// The answer to `sql` over `subject`, held whole within `bounds` (a saved view is
    /// evaluated within `SavedViewBounds`).
    package func answer(_ sql: String, subject: SQLSubject, bounds: Bounds) throws -> SQLAnswer {
        var columns: [String] = []
        var rows: [[JSONValue]] = []
        _ = try stream(sql, subject: subject, bounds: bounds, columns: { columns = $0 }, row: { rows.append($0) })
        return SQLAnswer(columns: columns, rows: rows, asOf: subject.seq)
    }

    private func run(_ statement: SQLiteStatement, sql: String, subject: SQLSubject, bounds: Bounds,
                     columns: ([String]) throws -> Void, row: ([JSONValue]) throws -> Void) throws -> (rows: Int, more: Bool) {
        let limit = bounds.time
        let deadline = ContinuousClock.now + limit
        self.deadline = deadline
        timedOut.set(false)
        // The timer's interrupt reaches a step the progress handler would not see end (one
        // value's function computing for long between two of its checks).
        let timer = DeadlineTimer(after: limit) { [timedOut, stop = connection.interrupter] in
            timedOut.set(true)
            stop.interrupt()
        }
        // Read-only while it runs too: a pragma's table-valued function (pragma_user_version,
        // pragma_optimize) runs its PRAGMA when stepped, and a statement SQLite prepares
        // again after a schema change is checked again.
        connection.setAuthorizer(Self.readOnly)
        defer {
            timer.cancel()
            // A timer that fired stops nothing after this statement (the tables the next one
            // builds read the flag through the progress handler).
            timedOut.set(false)
            self.deadline = nil
            connection.setAuthorizer(nil)
            statement.reset()
        }
        let names = statement.columnNames
        // Each value's key in a row object (`"name":`) and its separator count with it.
        let keyBytes = SQLAnswer.keys(names).map { $0.utf8.count + 4 }
        var count = 0
        var skipped = 0
        var more = false
        var bytes = 0
        func overTime() -> Bool { timedOut.isSet || ContinuousClock.now >= deadline }
        func stopped() -> SQLError {
            if cancelled.isSet { return SQLError(.interrupted, "interrupted: the query was stopped") }
            return SQLError(.timeLimit, "the query ran past its time limit of \(Self.text(limit)) and was stopped; a longer limit lets it finish (fetchlog sql --timeout SECONDS; timeLimit in the library)")
        }
        try columns(names)
        do {
            while try statement.step() {
                if skipped < bounds.skip {
                    skipped += 1
                    if overTime() || cancelled.isSet { throw stopped() }
                    continue
                }
                if let most = bounds.rows, count >= most {
                    more = true
                    break
                }
                var values: [JSONValue] = []
                values.reserveCapacity(names.count)
                for index in names.indices {
                    if let cap = bounds.bytes {
                        bytes += keyBytes[index] + statement.jsonByteCount(at: index)
                        if bytes > cap { throw Self.tooLarge(cap: cap, rows: count) }
                    }
                    values.append(Self.json(statement.value(at: index)))
                }
                if overTime() || cancelled.isSet { throw stopped() }
                try row(values)
                count += 1
                if overTime() || cancelled.isSet { throw stopped() }
                // Stopped at once when nobody asked whether more follow.
                if let most = bounds.rows, count >= most, !bounds.peeks { break }
            }
        } catch let error as SQLiteError {
            if error.isInterrupt { throw stopped() }
            throw explain(error, sql: sql, subject: subject)
        }
        return (count, more)
    }

    private static func tooLarge(cap: Int, rows: Int) -> SQLError {
        SQLError(.tooLarge, "the answer passed its cap of \(ByteText.describe(cap)) after \(rows) row\(rows == 1 ? "" : "s") and was stopped: ask for fewer rows (LIMIT, or limit=N&offset=M to page) or fewer and shorter columns (substr, length)")
    }

    /// An SQL value as JSON: integers and reals as numbers, text as a string, a blob as its
    /// hex literal text (`x'00ff'`), NULL as null.
    package static func json(_ value: SQLiteValue) -> JSONValue {
        switch value {
        case .null: .null
        case .integer(let i): .number(String(i))
        case .real(let d): d.isFinite ? .number(d == d.rounded() && abs(d) < 1e15 ? String(format: "%.1f", d) : "\(d)") : .null
        case .text(let s): .string(s)
        case .blob(let bytes): .string(hexLiteral(bytes))
        }
    }

    /// `x'00ff'`: two characters a byte from a table, not a formatter per byte (60 MB of blob
    /// took minutes that way, outside the time limit's reach).
    package static func hexLiteral(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: bytes.count * 2 + 3) { out in
            out[0] = UInt8(ascii: "x")
            out[1] = UInt8(ascii: "'")
            var at = 2
            for byte in bytes {
                out[at] = digits[Int(byte >> 4)]
                out[at + 1] = digits[Int(byte & 0x0f)]
                at += 2
            }
            out[at] = UInt8(ascii: "'")
            return at + 1
        }
    }

    private static func text(_ limit: Duration) -> String {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.3g s", seconds)
    }

    // MARK: - Errors with what exists

    private func explain(_ error: SQLiteError, sql: String, subject: SQLSubject) -> SQLError {
        // A function or table the authorizer refused fails as SQLITE_ERROR "not authorized…",
        // not SQLITE_AUTH: refused all the same.
        if error.isDenied || error.message.hasPrefix("not authorized") || error.message.hasSuffix("may not be modified") {
            return SQLError(.refused, "refused: \(error.message) — the statement would change or reach outside the store's tables; queries here are read-only")
        }
        if error.primaryCode == SQLITE_NOMEM {
            return SQLError(.invalid, "the statement needed more than the \(Self.heapLimit >> 20) MiB SQLite may hold here and was stopped (out of memory): simplify it")
        }
        var message = error.message
        if message.hasPrefix("no such table: ") {
            let name = String(message.dropFirst("no such table: ".count))
            let known = subject.tableNames
            message += Suggest.didYouMean(name, known) + ". Tables: " + known.joined(separator: ", ")
        } else if message.hasPrefix("no such column: ") {
            let name = String(message.dropFirst("no such column: ".count))
            let unique = Array(Set(namedColumns)).sorted()
            message += Suggest.didYouMean(name.split(separator: ".").last.map(String.init) ?? name, unique)
            if !unique.isEmpty { message += ". Columns of the tables named: " + unique.joined(separator: ", ") }
        }
        return SQLError(.invalid, message)
    }

    /// Every table name a query may use over `state` (building none): `.tables`, completion.
    package static func tableNames(in state: LogState) -> [String] { SQLSubject(state: state, confirmed: false).tableNames }

    // MARK: - Building tables

    /// Builds (or rebuilds, when built at another seq) every table `sql` names, and the saved
    /// views it names with theirs; over a read model on disk, attaches the files that hold them.
    private func ensureTables(for sql: String, subject: SQLSubject, excluding: String?) throws(SQLError) {
        var mentions = SQLText.mentions(sql)
        // What the statement itself names (not what the saved views it names read): the
        // columns "did you mean" offers are these tables' and views'.
        let outer = mentions
        namedTables = subject.tableNames.filter { name in
            let parts = name.lowercased().split(separator: ".", maxSplits: 1).map(String.init)
            return parts.count == 2 ? outer.qualified.contains { $0.0 == parts[0] && $0.1 == parts[1] } : outer.names.contains(parts[0])
        }
        // A saved view's own tables, and views it names, transitively.
        var views: [String] = []
        var queue = Array(mentions.names)
        var seen = Set<String>()
        while let name = queue.popLast() {
            guard seen.insert(name).inserted, name != excluding, let view = subject.savedViews[name] else { continue }
            views.append(name)
            let inner = SQLText.mentions(view.sql)
            mentions.names.formUnion(inner.names)
            mentions.qualified += inner.qualified
            queue += inner.names
        }
        do {
            for name in subject.viewNames + [SQLTables.eventsName] where mentions.names.contains(name.lowercased()) {
                guard let state = subject.state else { continue }
                if name == SQLTables.eventsName {
                    try build(key: name, version: [subject.seq], confirmed: false) { [events] in
                        SQLTables.eventsTable((try? events(state.seq)) ?? [])
                    }
                } else {
                    let segments = state.sources.views.first { $0.name == name }?.segments
                    try build(key: name.lowercased(), version: Self.version(of: name, in: state), confirmed: false,
                              segments: segments.map { make in { make(state).map { ("main." + Self.quote(name), $0) } } }) {
                        SQLTables.viewTable(name, state: state)
                    }
                }
            }
            var needed: [(String, String)] = []
            for (schema, table) in mentions.qualified {
                guard let source = subject.resources.first(where: { $0.source.lowercased() == schema }),
                      let resource = source.resources.first(where: { $0.lowercased() == table }) else { continue }
                needed.append((source.source, resource))
            }
            let schemas = Set(needed.map { $0.0.lowercased() })
            let room = Int(connection.limit(SQLITE_LIMIT_ATTACHED, -1))
            if attached.union(schemas).count > room {
                // Sources this query does not name are let go first.
                for name in attached.subtracting(schemas) { try detach(name) }
                if schemas.count > room {
                    throw SQLError(.invalid, "this query names \(schemas.count) sources; SQLite attaches at most \(room) databases at once, so one query may name at most \(room) sources (a store may hold any number): split it, or save a view per group of sources")
                }
            }
            for (source, resource) in needed {
                if !attached.contains(source.lowercased()) {
                    let file = readModel.map { ReadModel.file(of: source, in: $0) } ?? ":memory:"
                    try connection.execute("ATTACH DATABASE \(Self.literal(file)) AS \(Self.quote(source))")
                    attached.insert(source.lowercased())
                }
                guard let state = subject.state else { continue }
                // Without writes folded, the optimistic items are the confirmed ones: kept by page.
                let table = Self.quote(source) + "." + Self.quote(resource)
                try build(key: source.lowercased() + "." + resource.lowercased(), version: Self.version(of: "items/\(source)/\(resource)", in: state),
                          confirmed: subject.confirmed, segments: { ItemsSegments.of(state, source: source, resource: resource).map { (table, $0) } }) {
                    SQLTables.resourceTable(source: source, resource: resource, state: state, confirmedOnly: subject.confirmed)
                }
            }
            try createViews(views.reversed(), saved: subject.savedViews)
        } catch let error as SQLError {
            throw error
        } catch let error as SQLiteError {
            if error.isInterrupt { throw SQLError(.interrupted, "interrupted: the query was stopped") }
            throw SQLError(.invalid, "could not build the tables: \(error.message)")
        } catch {
            throw SQLError(.invalid, "could not build the tables: \(error)")
        }
    }

    /// The columns of the tables the last query named (for "did you mean").
    private var namedColumns: [String] { namedTables.flatMap { (try? columns(of: $0))?.map(\.name) ?? [] } }

    /// Table `name`'s (a view's, `SOURCE.RESOURCE`) columns as the connection holds them.
    private func columns(of name: String) throws(SQLError) -> [SQLColumn] {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        // An unqualified name is looked up as a query looks it up: a saved view is a TEMP view.
        let pragma = parts.count == 2 ? "PRAGMA \(Self.quote(parts[0])).table_info(\(Self.quote(parts[1])))" : "PRAGMA table_info(\(Self.quote(parts[0])))"
        do {
            let statement = try connection.prepare(pragma)
            var columns: [SQLColumn] = []
            while try statement.step() {
                guard case .text(let column) = statement.value(at: 1) else { continue }
                if column == "_empty" { continue }
                let type: String? = if case .text(let t) = statement.value(at: 2), !t.isEmpty { t } else { nil }
                columns.append(SQLColumn(name: column, declaredType: type))
            }
            return columns
        } catch {
            throw SQLError(.invalid, error.message)
        }
    }

    private func detach(_ schema: String) throws {
        try connection.execute("DETACH DATABASE \(Self.quote(schema))")
        attached.remove(schema)
        for key in built.keys where key.hasPrefix(schema + ".") {
            built[key] = nil
            segmentsBuilt[key] = nil
        }
    }

    /// Builds table `key` unless it was built at `version`. With `segments` (a view's list
    /// as `ViewSegment`s), a table built before keeps the rows of the segments whose tokens
    /// still lead and takes the rest's records: what a change costs is what it changed.
    /// `segments` gives the table's qualified name with them.
    private func build(key: String, version: [UInt64], confirmed: Bool, segments: (() -> (table: String, parts: [ViewSegment])?)? = nil,
                       make: () throws -> SQLTable?) throws {
        if let done = built[key], done.version == version, done.confirmed == confirmed { return }
        let segmented = segments?()
        let parts = segmented?.parts
        if let segmented, let kept = segmentsBuilt[key], built[key]?.confirmed == confirmed,
           try extend(segmented.table, kept: kept, with: segmented.parts) {
            built[key] = (version, confirmed)
            segmentsBuilt[key] = (segmented.parts.map(\.token), segmented.parts.map(\.count), kept.columns)
            return
        }
        segmentsBuilt[key] = nil
        guard let table = try make() else { return }
        try Self.write(table, into: connection)
        tablesBuilt += 1
        rowsWritten += table.rows.count
        // A view with no list is one row of its members, `asOf` among them: that moves with
        // every event, so such a table is never taken as current by its sources' tokens.
        built[key] = (table.columns.contains { $0.name == "asOf" } ? [] : version, confirmed)
        if let parts, parts.reduce(0, { $0 + $1.count }) == table.rows.count {
            segmentsBuilt[key] = (parts.map(\.token), parts.map(\.count), table.columns.map(\.name))
        }
    }

    /// Brings the table of `key` (built from segments `kept`) to `parts`: the rows of the
    /// leading segments whose tokens are unchanged stay, the rest are deleted, and the
    /// records of the segments from the first change on are inserted. False (nothing
    /// changed) when a record has a member the table has no column for: it is built whole.
    private func extend(_ name: String, kept: (tokens: [[UInt64]], counts: [Int], columns: [String]), with parts: [ViewSegment]) throws -> Bool {
        var same = 0
        while same < min(kept.tokens.count, parts.count), kept.tokens[same] == parts[same].token { same += 1 }
        let keptRows = kept.counts.prefix(same).reduce(0, +)
        var records: [JSONValue] = []
        for part in parts[same...] { records += part.records() }
        let index = Dictionary(uniqueKeysWithValues: kept.columns.enumerated().map { ($1, $0) })
        var rows: [[SQLiteValue]] = []
        rows.reserveCapacity(records.count)
        for record in records {
            var row = [SQLiteValue](repeating: .null, count: kept.columns.count)
            guard case .object(let members) = record else { return false }
            // The first of a repeated member, as `SQLTables.records` takes it.
            for (member, value) in members.reversed() {
                guard let at = index[member] else { return false }
                row[at] = SQLTables.value(value)
            }
            rows.append(row)
        }
        try connection.execute("BEGIN")
        do {
            try connection.execute("DELETE FROM \(name) WHERE rowid > \(keptRows)")
            if !rows.isEmpty {
                let insert = try connection.prepare("INSERT INTO \(name) (rowid, \(kept.columns.map(Self.quote).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: kept.columns.count + 1).joined(separator: ",")))")
                for (offset, row) in rows.enumerated() {
                    try insert.bind([.integer(Int64(keptRows + offset + 1))] + row)
                    try insert.run()
                }
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        rowsWritten += rows.count
        return true
    }

    /// What view `name` (a fixed view, `items/SOURCE/RESOURCE`) is built from in `state`: the
    /// change tokens of the sources that feed it, or — when those are not known (`status`,
    /// which reads every source) — the seq. A leading 0 or 1 keeps the two kinds apart.
    private static func version(of name: String, in state: LogState) -> [UInt64] {
        guard let inputs = ViewCatalog.inputs(of: name, in: state.sources) else { return [0, state.seq] }
        return [1] + state.changes.key(for: inputs)
    }

    /// Creates `table` in `connection` (dropping one of its name), its rows in one transaction.
    package static func write(_ table: SQLTable, into connection: SQLiteConnection) throws {
        let name = (table.schema == "main" ? "main" : Self.quote(table.schema)) + "." + Self.quote(table.name)
        let columns = table.columns.isEmpty ? [SQLColumn(name: "_empty", declaredType: nil)] : table.columns
        let definition = columns.map { column in Self.quote(column.name) + (column.declaredType.map { " " + $0 } ?? "") }
        try connection.execute("BEGIN")
        do {
            try connection.execute("DROP TABLE IF EXISTS \(name); CREATE TABLE \(name) (\(definition.joined(separator: ", ")))")
            if !table.rows.isEmpty {
                let insert = try connection.prepare("INSERT INTO \(name) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ",")))")
                for row in table.rows {
                    try insert.bind(row)
                    try insert.run()
                }
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Creates the saved views in `names` (dependencies first), as TEMP views so they read
    /// every attached source; a view whose SQL changed is made again.
    private func createViews(_ names: [String], saved: [String: SavedView]) throws(SQLError) {
        for name in names {
            guard let view = saved[name] else { continue }
            if created[name] == view.sql { continue }
            do {
                try connection.execute("DROP VIEW IF EXISTS temp.\(Self.quote(view.name)); CREATE TEMP VIEW \(Self.quote(view.name)) AS \(view.sql)")
                created[name] = view.sql
            } catch {
                created[name] = nil
                throw SQLError(.invalid, "saved view '\(view.name)' no longer compiles: \(error.message) (DROP VIEW \(view.name) removes it; other tables are unaffected)")
            }
        }
        // A view dropped since: gone from here too.
        for (name, _) in created where saved[name] == nil {
            try? connection.execute("DROP VIEW IF EXISTS temp.\(Self.quote(name))")
            created[name] = nil
        }
    }

    /// `'text'`, with `'` doubled.
    package static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// `"name"`, with `"` doubled.
    package static func quote(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}

/// Set from any thread to stop the running query; read by the progress handler.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set(_ on: Bool) { value.store(on, ordering: .relaxed) }
}

/// Calls `fire` once `after` has passed, on a thread of its own, unless cancelled first:
/// the wall-clock half of a statement's time limit.
final class DeadlineTimer: @unchecked Sendable {
    private let source: any DispatchSourceTimer

    init(after: Duration, fire: @escaping @Sendable () -> Void) {
        let source = DispatchSource.makeTimerSource(queue: .global())
        let (seconds, attoseconds) = after.components
        let nanoseconds = seconds > Int64(Int.max / 1_000_000_000) - 1 ? Int.max : Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        source.schedule(deadline: .now() + .nanoseconds(nanoseconds))
        source.setEventHandler(handler: fire)
        source.resume()
        self.source = source
    }

    func cancel() { source.cancel() }
}
