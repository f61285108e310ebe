import FetchlogCore
import FetchlogSQL
import Foundation
import Hummingbird

/// SQL over HTTP (issue 35): `GET /api/sql` (a query, paged), `GET /api/sql/tables`,
/// `POST /api/sql` (CREATE VIEW / DROP VIEW, with the action token), and saved views at
/// `GET /api/views/NAME`. Each answers what `fetchlog sql … --format json` answers.
extension APIResponder {
    /// `GET /api/sql?q=…&at=SEQ&confirmed=1&limit=N&offset=M&timeout=S`: at most `limit` rows
    /// from `offset`, and whether more follow. The query reads `offset + limit + 1` rows at
    /// most, so a page of a large answer costs what the rows before it cost, never the rest.
    func sql(_ query: QueryItems) async throws -> Response {
        guard let statement = query["q"] else {
            throw APIError.badRequest("GET /api/sql needs q=QUERY (SELECT …): GET /api/sql/tables lists the tables")
        }
        switch SQLText.classify(statement) {
        case .createView, .dropView:
            // A link must not be able to write: saving is an action.
            throw APIError.badRequest("CREATE VIEW and DROP VIEW save an event: send them as POST /api/sql with {\"sql\": \"…\"} and the action token; GET /api/sql only reads")
        default: break
        }
        let limit = try Self.count(query["limit"], name: "limit", default: 100, max: Self.maxLimit)
        let offset = try Self.offset(query["offset"])
        let timeout = try Self.count(query["timeout"], name: "timeout", default: 10, max: Self.maxSQLTimeout)
        let confirmed = try Self.flag(query["confirmed"], name: "confirmed")
        let state = try self.state(at: query["at"])
        // The page is written as its rows come (the rows before `offset` are stepped over,
        // never converted), and stops at the answer's cap (issue 44: a 1 GB answer was sent
        // whole, `serve` peaking near 3 GB).
        let cap = content.maxAnswerBytes
        let page = SQLPageText(cap: cap)
        let streamed = try await Self.answeringSQL(timeout: timeout, cap: cap) {
            try await content.store.sqlStream(statement, state: state, confirmed: confirmed,
                                              bounds: SQLEngine.Bounds(time: .seconds(timeout), skip: offset, rows: limit, bytes: cap, peeks: true),
                                              columns: { page.columns = $0 }, row: { try page.add($0) })
        }
        var text = "{\"columns\":" + JSONValue.array(page.columns.map { .string($0) }).orderedText() + ",\"rows\":["
        text += page.rows.joined(separator: ",")
        text += "],\"asOf\":\(streamed.asOf),\"offset\":\(offset),\"limit\":\(limit),\"more\":\(streamed.more)}\n"
        return Self.response(text, contentType: "application/json; charset=utf-8")
    }

    /// `GET /api/sql/tables[?at=SEQ]`: as `sql --tables --format json`.
    func sqlTables(_ query: QueryItems) async throws -> Response {
        let state = try self.state(at: query["at"])
        let tables = try await Self.answeringSQL(timeout: 10) { try await content.store.sqlTables(state: state) }
        return Self.ordered(.array(tables.map(Self.json)))
    }

    /// `POST /api/sql {"sql": "CREATE VIEW …"}` or `DROP VIEW …`: the event is appended (it
    /// is in the log, so replay, `--at` and replicas know the view), answered as
    /// `sql --format json` answers it.
    func sqlSave(_ request: Request) async throws -> Response {
        let example = "{\"sql\": \"CREATE VIEW name AS SELECT …\"}"
        guard let body = try await actionBody(request, example: example), case .object(let members) = body else {
            throw APIError.badRequest("the body must be one JSON object: \(example)")
        }
        if let unknown = members.first(where: { $0.0 != "sql" }) {
            throw APIError.badRequest("the body has '\(unknown.0.prefix(40))': it takes sql")
        }
        guard let statement = body["sql"]?.stringValue else { throw APIError.badRequest("sql must be a string: \(example)") }
        let json: JSONValue
        switch SQLText.classify(statement) {
        case .createView, .dropView:
            // What it did, as `sql --format json` says it (issue 44): saved, dropped, or nothing.
            json = try await Self.answeringSQL(timeout: 10) { try await content.store.sqlView(statement) }.json
        case .query:
            throw APIError.badRequest("POST /api/sql saves (CREATE VIEW) or drops (DROP VIEW) a view: a query is GET /api/sql?q=…")
        case .empty:
            throw APIError.badRequest("no SQL statement given: \(example)")
        case .other(let word):
            throw APIError.badRequest("\(word.uppercased()) is refused: POST /api/sql takes CREATE VIEW name AS SELECT … or DROP VIEW name")
        }
        return Self.ordered(json)
    }

    // MARK: saved views at /api/views/NAME

    /// The most rows `GET /api/views/NAME` answers for a saved view: the whole answer is one
    /// response held in memory (and cached), so a view of a whole large table pages through
    /// `GET /api/sql` instead.
    static let maxSavedViewRows = 100_000

    /// The saved view `name` names in `state`, if any: one SQL takes as a table (its name
    /// passes the name rule, `SavedViewName.inForce`), by its name as SQLite compares names
    /// (ASCII letters in either case, nothing folded). Never a fixed view, `SOURCE.RESOURCE`
    /// or a view the name rule leaves out: those are not saved views here (issue 44).
    static func savedView(_ name: String, in state: LogState) -> SavedView? {
        guard !state.savedViews.isEmpty else { return nil }
        let views = SavedViewName.inForce(state.savedViews.values, viewNames: SQLTables.viewNames(in: state), resources: SQLTables.resources(in: state)).views
        if let view = views.values.first(where: { $0.name == name }) { return view }
        return views.values.first { SavedViewName.sameToSQLite($0.name, name) }
    }

    /// `{"view": NAME, "asOf": S, "count": N, "rows": [...]}`, rows in the view's column
    /// order; for the snapshot from the view cache (one query per snapshot, not per GET).
    func savedView(_ view: SavedView, state: LogState, cached: Bool) async throws -> ViewCache.Canonical {
        try await Self.savedView(view, state: state, cached: cached, content: content)
    }

    /// `savedView(_:state:cached:)` for whoever holds the content (the event stream too).
    static func savedView(_ view: SavedView, state: LogState, cached: Bool, content: ServeContent) async throws -> ViewCache.Canonical {
        let make = { () async throws -> ViewCache.Canonical in
            // One row past the cap is read to know the view is over it, and no more.
            // Within the bounds a saved view has everywhere, this server's byte cap its own.
            let answer = try await Self.answeringSQL(timeout: 10, cap: content.maxAnswerBytes) {
                try await content.store.savedViewAnswer(view.name, state: state, bytes: content.maxAnswerBytes, rows: maxSavedViewRows + 1)
            }
            guard answer.rows.count <= maxSavedViewRows else {
                throw APIError(status: .unprocessableContent,
                               message: "the saved view \(view.name) holds more than \(maxSavedViewRows) rows: page through them with GET /api/sql?q=SELECT * FROM \(view.name)&limit=1000&offset=N, or export \(view.name) with the CLI",
                               exit: 1)
            }
            return ViewCache.canonical(.object([
                ("view", .string(view.name)), ("asOf", .number(Int(answer.asOf))), ("count", .number(answer.rows.count)),
                ("rows", .array(Self.rows(answer.rows, columns: answer.columns))),
            ]), ordered: true)
        }
        return cached ? try await content.shared.views.canonical(view.name, state: state, make: make) : try await make()
    }

    /// `GET /api/views`: the views `export` takes, then the saved views.
    func viewNames(in state: LogState) -> [String] {
        // Only the saved views SQL takes as tables: one whose name now reads as a table's is not answered.
        let kept = SavedViewName.inForce(state.savedViews.values, viewNames: SQLTables.viewNames(in: state), resources: SQLTables.resources(in: state)).views
        return ViewCatalog.exportNames(in: state) + kept.values.map(\.name).sorted()
    }

    // MARK: helpers

    /// A row as an object of column → value, in column order.
    /// Rows as objects of column → value, in column order; a repeated column name is a key
    /// of its own (`SQLAnswer.keys`).
    static func rows(_ rows: some Sequence<[JSONValue]>, columns: [String]) -> [JSONValue] {
        let keys = SQLAnswer.keys(columns)
        return rows.map { values in .object(zip(keys, values).map { ($0, $1) }) }
    }

    static func ordered(_ json: JSONValue) -> Response {
        response(json.orderedText() + "\n", contentType: "application/json; charset=utf-8")
    }

    /// A table as `sql --tables --format json` prints it.
    static func json(_ table: SQLTableDescription) -> JSONValue {
        .object([("table", .string(table.name)), ("kind", .string(table.isView ? "view" : "table")),
                 ("columns", .array(table.columns.map { column in
                     .object([("name", .string(column.name)), ("type", column.declaredType.map(JSONValue.string) ?? .null)])
                 })), ("sql", .string(table.ddl))])
    }

    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// Rows to skip: 0 to `maxSQLOffset` (0).
    static func offset(_ text: String?) throws -> Int {
        guard let text else { return 0 }
        guard let n = Int(text), (0...maxSQLOffset).contains(n) else {
            throw APIError.badRequest("offset=\(text.prefix(40)) is not a count from 0 to \(maxSQLOffset)")
        }
        return n
    }

    /// `true`/`1` or `false`/`0` (false when not given).
    static func flag(_ text: String?, name: String) throws -> Bool {
        switch text {
        case nil, "false", "0": return false
        case "true", "1": return true
        default: throw APIError.badRequest("\(name)=\(text!.prefix(40)) is not true or false (1 or 0)")
        }
    }

    /// SQL errors as the API's: invalid or refused SQL 400 (exit 1 and 64, as `fetchlog sql`),
    /// a query stopped at its time limit 503 naming the limit (the server goes on; 408 would
    /// have browsers send the request again), interrupted 503 (exit 130).
    static func answeringSQL<T>(timeout: Int, cap: Int = ServeConfiguration.defaultMaxAnswerBytes, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as SQLError {
            switch error.kind {
            case .refused: throw APIError(status: .badRequest, message: error.message, exit: 64)
            case .invalid: throw APIError(status: .badRequest, message: error.message, exit: 1)
            case .timeLimit:
                throw APIError(status: .serviceUnavailable,
                               message: "the query ran past its time limit of \(timeout) s and was stopped: give timeout=SECONDS (at most \(maxSQLTimeout)), or ask for less", exit: 1)
            case .interrupted: throw APIError(status: .serviceUnavailable, message: error.message, exit: 130)
            case .tooLarge:
                throw APIError(status: .contentTooLarge,
                               message: error.message + ". This server answers at most \(ByteText.describe(cap)) (serve --max-answer BYTES): page with limit=N&offset=M", exit: 1)
            }
        }
    }
}

/// A page of `/api/sql` as text: each row's JSON object written as it comes, the whole
/// held to `cap` bytes (the engine's own count is made before converting; this one counts
/// what is written, escapes included).
final class SQLPageText: @unchecked Sendable {
    // Filled on the SQL engine's thread, read after it is done.
    var columns: [String] = [] { didSet { keys = SQLAnswer.keys(columns) } }
    private(set) var rows: [String] = []
    private var keys: [String] = []
    private var bytes = 0
    private let cap: Int

    init(cap: Int) { self.cap = cap }

    func add(_ values: [JSONValue]) throws {
        let text = JSONValue.object(zip(keys, values).map { ($0, $1) }).orderedText()
        bytes += text.utf8.count + 1
        if bytes > cap {
            throw SQLError(.tooLarge, "the answer passed its cap of \(ByteText.describe(cap)) after \(rows.count) row\(rows.count == 1 ? "" : "s") and was stopped: ask for fewer rows (limit=N&offset=M) or fewer and shorter columns (substr, length)")
        }
        rows.append(text)
    }
}
