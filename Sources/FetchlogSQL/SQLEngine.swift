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
    private var built: [String: (seq: UInt64, confirmed: Bool, columns: [SQLColumn])] = [:]
    private var attached: Set<String> = []
    /// Saved views created now: name (lowercased) → SQL.
    private var created: [String: String] = [:]
    private let cancelled = StopFlag()
    private var deadline: ContinuousClock.Instant?
    /// Reads the log's events up to a seq as `events` rows.
    private let events: (UInt64) throws -> [JSONValue]

    /// The default time limit of a query.
    package static let defaultTimeLimit: Duration = .seconds(10)
    /// The most bytes a string or blob may grow to in a query (`SQLITE_LIMIT_LENGTH`).
    package static let maxLength: Int32 = 64 << 20

    package init(events: @escaping (UInt64) throws -> [JSONValue]) throws {
        connection = try SQLiteConnection()
        self.events = events
        connection.limit(SQLITE_LIMIT_LENGTH, Self.maxLength)
        connection.limit(SQLITE_LIMIT_SQL_LENGTH, 1 << 20)
        connection.limit(SQLITE_LIMIT_ATTACHED, 10)
        connection.setProgressHandler(every: 4000) { [cancelled, unowned self] in
            if cancelled.isSet { return true }
            if let deadline = self.deadline, ContinuousClock.now >= deadline { return true }
            return false
        }
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
    /// query may take. `maxRows`: stop reading after this many (the answer says so by its size).
    package func query(_ sql: String, state: LogState, confirmed: Bool = false, limit: Duration = SQLEngine.defaultTimeLimit,
                       maxRows: Int? = nil) throws(SQLError) -> SQLAnswer {
        switch SQLText.classify(sql) {
        case .query: break
        case .empty: throw SQLError(.refused, "no SQL statement given")
        case .createView, .dropView:
            throw SQLError(.refused, "CREATE VIEW and DROP VIEW save an event: run them through the store (fetchlog sql, the shell), not as a query")
        case .other(let word):
            throw Self.refusal(word)
        }
        let statement = try prepare(sql, state: state, confirmed: confirmed)
        return try run(statement, sql: sql, state: state, limit: limit, maxRows: maxRows)
    }

    /// Checks that `select` compiles as a saved view named `name` over `state`'s tables, read-only:
    /// what `CREATE VIEW` does before its event is appended. Returns its columns.
    package func validateView(name: String, select: String, state: LogState) throws(SQLError) -> [String] {
        let lowered = name.lowercased()
        if SQLTables.viewNames(in: state).contains(where: { $0.lowercased() == lowered }) || lowered == SQLTables.eventsName
            || state.manifests.keys.contains(where: { $0.lowercased() == lowered }) || lowered.hasPrefix("sqlite_") {
            throw SQLError(.refused, "'\(name)' is taken: tables, sources and sqlite_ names cannot be a saved view's name")
        }
        guard SQLText.classify(select) == .query else {
            throw SQLError(.refused, "a saved view is CREATE VIEW name AS SELECT …: its body must be a query")
        }
        // A view that names itself would never compile; SQLite says so.
        let statement = try prepare(select, state: state, confirmed: false, excluding: lowered)
        return statement.columnNames
    }

    /// One table as `.tables` and `.schema` show it.
    package struct TableDescription: Equatable, Sendable {
        /// `shows`, `census.gnomes`, a saved view's name.
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
        var names = Self.tableNames(in: state)
        if let only {
            let wanted = only.lowercased()
            names = names.filter { $0.lowercased() == wanted }
            if names.isEmpty {
                let known = Self.tableNames(in: state)
                throw SQLError(.invalid, "no table named '\(only)'\(Suggest.didYouMean(only, known)). Tables: \(known.joined(separator: ", "))")
            }
        }
        var described: [TableDescription] = []
        for name in names {
            if let view = state.savedViews.values.first(where: { $0.name == name }) {
                let columns: [SQLColumn]
                do {
                    columns = try prepare("SELECT * FROM \(Self.quote(name))", state: state, confirmed: confirmed).columnNames.map { SQLColumn(name: $0, declaredType: nil) }
                } catch {
                    columns = []
                }
                described.append(TableDescription(name: name, columns: columns, isView: true, select: view.sql))
                continue
            }
            let quoted = name.split(separator: ".").map { Self.quote(String($0)) }.joined(separator: ".")
            try ensureTables(for: quoted, state: state, confirmed: confirmed, excluding: nil)
            described.append(TableDescription(name: name, columns: built[name.lowercased()]?.columns ?? [], isView: false, select: nil))
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

    private func prepare(_ sql: String, state: LogState, confirmed: Bool, excluding: String? = nil) throws(SQLError) -> SQLiteStatement {
        try ensureTables(for: sql, state: state, confirmed: confirmed, excluding: excluding)
        connection.setAuthorizer(Self.readOnly)
        defer { connection.setAuthorizer(nil) }
        let prepared: (SQLiteStatement?, restOffset: Int)
        do {
            prepared = try connection.prepareFirst(sql)
        } catch {
            throw explain(error, sql: sql, state: state)
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
        case SQLITE_UPDATE where ["sqlite_master", "sqlite_schema"].contains(action.first?.lowercased() ?? ""):
            // SQLite (3.40) asks this when a table-valued function (json_each, json_tree) is
            // first used on a connection: its schema entry is written in memory. Denied, every
            // json_each failed ("vtable constructor failed"). A statement that writes the schema
            // is still refused: SQLite forbids it without writable_schema (a pragma denied
            // here), and stmt_readonly refuses any write.
            return .allow
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

    private func run(_ statement: SQLiteStatement, sql: String, state: LogState, limit: Duration, maxRows: Int?) throws(SQLError) -> SQLAnswer {
        cancelled.set(false)
        deadline = ContinuousClock.now + limit
        defer { deadline = nil }
        let columns = statement.columnNames
        var rows: [[JSONValue]] = []
        do {
            while try statement.step() {
                rows.append((0 ..< columns.count).map { Self.json(statement.value(at: $0)) })
                if let maxRows, rows.count >= maxRows { break }
            }
            statement.reset()
        } catch {
            if error.isInterrupt {
                if cancelled.isSet { throw SQLError(.interrupted, "interrupted: the query was stopped") }
                throw SQLError(.timeLimit, "the query ran past its time limit of \(Self.text(limit)) and was stopped (set another with --sql-timeout SECONDS)")
            }
            throw explain(error, sql: sql, state: state)
        }
        return SQLAnswer(columns: columns, rows: rows, asOf: state.seq)
    }

    /// An SQL value as JSON: integers and reals as numbers, text as a string, a blob as its
    /// hex literal text (`x'00ff'`), NULL as null.
    package static func json(_ value: SQLiteValue) -> JSONValue {
        switch value {
        case .null: .null
        case .integer(let i): .number(String(i))
        case .real(let d): d.isFinite ? .number(d == d.rounded() && abs(d) < 1e15 ? String(format: "%.1f", d) : "\(d)") : .null
        case .text(let s): .string(s)
        case .blob(let bytes): .string("x'" + bytes.map { String(format: "%02x", $0) }.joined() + "'")
        }
    }

    private static func text(_ limit: Duration) -> String {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.3g s", seconds)
    }

    // MARK: - Errors with what exists

    private func explain(_ error: SQLiteError, sql: String, state: LogState) -> SQLError {
        if error.isDenied {
            return SQLError(.refused, "refused: \(error.message) — the statement would change or reach outside the store's tables; queries here are read-only")
        }
        var message = error.message
        if message.hasPrefix("no such table: ") {
            let name = String(message.dropFirst("no such table: ".count))
            let known = Self.tableNames(in: state)
            message += Suggest.didYouMean(name, known) + ". Tables: " + known.joined(separator: ", ")
        } else if message.hasPrefix("no such column: ") {
            let name = String(message.dropFirst("no such column: ".count))
            // The tables this statement names, not every one built for earlier statements.
            let mentions = SQLText.mentions(sql)
            let named = built.filter { key, _ in mentions.names.contains(key) || mentions.qualified.contains { $0.0 + "." + $0.1 == key } }
            let known = named.values.flatMap { $0.columns.map(\.name) }
            let unique = Array(Set(known)).sorted()
            message += Suggest.didYouMean(name.split(separator: ".").last.map(String.init) ?? name, unique)
            if !unique.isEmpty { message += ". Columns of the tables named: " + unique.joined(separator: ", ") }
        }
        return SQLError(.invalid, message)
    }

    /// Every table name a query may use: views, `events`, `SOURCE.RESOURCE`, saved views.
    package static func tableNames(in state: LogState) -> [String] {
        SQLTables.viewNames(in: state) + [SQLTables.eventsName]
            + SQLTables.resources(in: state).flatMap { source in source.resources.map { source.source + "." + $0 } }
            + state.savedViews.keys.sorted()
    }

    // MARK: - Building tables

    /// Builds (or rebuilds, when built at another seq) every table `sql` names, and the saved
    /// views it names with theirs.
    private func ensureTables(for sql: String, state: LogState, confirmed: Bool, excluding: String?) throws(SQLError) {
        var mentions = SQLText.mentions(sql)
        // A saved view's own tables, and views it names, transitively.
        var views: [String] = []
        var queue = Array(mentions.names)
        var seen = Set<String>()
        let saved = Dictionary(uniqueKeysWithValues: state.savedViews.values.map { ($0.name.lowercased(), $0) })
        while let name = queue.popLast() {
            guard seen.insert(name).inserted, name != excluding, let view = saved[name] else { continue }
            views.append(name)
            let inner = SQLText.mentions(view.sql)
            mentions.names.formUnion(inner.names)
            mentions.qualified += inner.qualified
            queue += inner.names
        }
        do {
            for name in SQLTables.viewNames(in: state) where mentions.names.contains(name.lowercased()) {
                try build(key: name.lowercased(), state: state, confirmed: false) { SQLTables.viewTable(name, state: state) }
            }
            if mentions.names.contains(SQLTables.eventsName) {
                try build(key: SQLTables.eventsName, state: state, confirmed: false) { [events] in
                    SQLTables.eventsTable((try? events(state.seq)) ?? [])
                }
            }
            let sources = SQLTables.resources(in: state)
            var needed: [(String, String)] = []
            for (schema, table) in mentions.qualified {
                guard let source = sources.first(where: { $0.source.lowercased() == schema }),
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
                    try connection.execute("ATTACH DATABASE ':memory:' AS \(Self.quote(source))")
                    attached.insert(source.lowercased())
                }
                try build(key: source.lowercased() + "." + resource.lowercased(), state: state, confirmed: confirmed) {
                    SQLTables.resourceTable(source: source, resource: resource, state: state, confirmedOnly: confirmed)
                }
            }
            try createViews(views.reversed(), saved: saved)
        } catch let error as SQLError {
            throw error
        } catch let error as SQLiteError {
            throw SQLError(.invalid, "could not build the tables: \(error.message)")
        } catch {
            throw SQLError(.invalid, "could not build the tables: \(error)")
        }
    }

    private func detach(_ schema: String) throws {
        try connection.execute("DETACH DATABASE \(Self.quote(schema))")
        attached.remove(schema)
        for key in built.keys where key.hasPrefix(schema + ".") { built[key] = nil }
    }

    private func build(key: String, state: LogState, confirmed: Bool, make: () throws -> SQLTable?) throws {
        if let done = built[key], done.seq == state.seq, done.confirmed == confirmed { return }
        guard let table = try make() else { return }
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
        built[key] = (state.seq, confirmed, table.columns)
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

    /// `"name"`, with `"` doubled.
    package static func quote(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}

/// Set from any thread to stop the running query; read by the progress handler.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set(_ on: Bool) { value.store(on, ordering: .relaxed) }
}
