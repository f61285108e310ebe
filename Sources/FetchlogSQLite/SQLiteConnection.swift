import CSQLite

/// One SQLite connection, in the style of `FetchlogLMDB`: a thin, safe layer that knows
/// nothing of events. Not thread-safe (SQLite's serialized mode is not relied on): one
/// thread uses a connection at a time; only `interrupter` may be used from any thread.
public final class SQLiteConnection {
    let handle: OpaquePointer
    private let owner: HandleOwner
    private var authorizerBox: Unmanaged<AuthorizerBox>?
    private var progressBox: Unmanaged<ProgressBox>?

    /// Opens (or creates) the database at `path`; `":memory:"` for one in memory. Extension
    /// loading is off, as are the writable schema and untrusted schema functions
    /// (`SQLITE_DBCONFIG_DEFENSIVE`, `TRUSTED_SCHEMA` off).
    public init(path: String = ":memory:", readOnly: Bool = false) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let error = SQLiteError.from(db, code: code)
            sqlite3_close_v2(db)
            throw error
        }
        handle = db
        owner = HandleOwner(db)
        sqlite3_extended_result_codes(db, 1)
        _ = fetchlog_sqlite3_disable_load_extension(db)
        _ = fetchlog_sqlite3_defensive(db)
        _ = fetchlog_sqlite3_no_trusted_schema(db)
    }

    deinit {
        authorizerBox?.release()
        progressBox?.release()
    }

    /// The version of the SQLite library linked (`3.40.1`).
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// True when `sql` ends a complete statement (`sqlite3_complete`): what a shell asks
    /// before it runs a line, or waits for more.
    public static func isComplete(_ sql: String) -> Bool { sqlite3_complete(sql) != 0 }

    /// Runs `sql`, every statement in it, ignoring any rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let error = SQLiteError(code: sqlite3_extended_errcode(handle),
                                    message: message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle)))
            sqlite3_free(message)
            throw error
        }
    }

    /// Compiles `sql`'s first statement.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        let (statement, _) = try prepareFirst(sql)
        guard let statement else { throw SQLiteError(code: SQLITE_MISUSE, message: "no statement in the SQL given") }
        return statement
    }

    /// Compiles the first statement of `sql`: the statement (nil when there is only
    /// whitespace or comments) and the UTF-8 offset of what follows it.
    public func prepareFirst(_ sql: String) throws(SQLiteError) -> (SQLiteStatement?, restOffset: Int) {
        var utf8 = Array(sql.utf8)
        utf8.append(0)
        var statement: OpaquePointer?
        var restOffset = 0
        let code = utf8.withUnsafeBufferPointer { buffer -> Int32 in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { start in
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v3(handle, start, Int32(buffer.count), 0, &statement, &tail)
                restOffset = tail.map { start.distance(to: $0) } ?? buffer.count - 1
                return code
            }
        }
        guard code == SQLITE_OK else { throw SQLiteError.from(handle, code: code) }
        return (statement.map { SQLiteStatement(handle: $0, connection: self) }, restOffset)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Limit `category` (`SQLITE_LIMIT_…`) set to `value`; returns the one before.
    /// A negative `value` only reads it.
    @discardableResult
    public func limit(_ category: Int32, _ value: Int32) -> Int32 { sqlite3_limit(handle, category, value) }

    /// Something any thread may call to stop this connection's running statement.
    public var interrupter: SQLiteInterrupter { SQLiteInterrupter(owner: owner) }

    /// Calls `body` about every `instructions` virtual-machine steps while a statement runs;
    /// when it returns true, the statement stops with `SQLITE_INTERRUPT`. nil removes it.
    public func setProgressHandler(every instructions: Int32, _ body: (() -> Bool)?) {
        progressBox?.release()
        progressBox = nil
        guard let body else {
            sqlite3_progress_handler(handle, 0, nil, nil)
            return
        }
        let box = Unmanaged.passRetained(ProgressBox(body))
        progressBox = box
        sqlite3_progress_handler(handle, instructions, { context in
            Unmanaged<ProgressBox>.fromOpaque(context!).takeUnretainedValue().body() ? 1 : 0
        }, box.toOpaque())
    }

    /// Asks `body` about each action a statement compiles to (`sqlite3_set_authorizer`):
    /// a statement with an action it denies does not compile. nil removes it.
    public func setAuthorizer(_ body: ((SQLiteAction) -> SQLiteAuthorization)?) {
        authorizerBox?.release()
        authorizerBox = nil
        guard let body else {
            sqlite3_set_authorizer(handle, nil, nil)
            return
        }
        let box = Unmanaged.passRetained(AuthorizerBox(body))
        authorizerBox = box
        sqlite3_set_authorizer(handle, { context, code, a, b, c, d in
            let action = SQLiteAction(code: code, first: a.map { String(cString: $0) }, second: b.map { String(cString: $0) },
                                      database: c.map { String(cString: $0) }, trigger: d.map { String(cString: $0) })
            return switch Unmanaged<AuthorizerBox>.fromOpaque(context!).takeUnretainedValue().body(action) {
            case .allow: SQLITE_OK
            case .deny: SQLITE_DENY
            case .ignore: SQLITE_IGNORE
            }
        }, box.toOpaque())
    }
}

/// Closes the handle when the last of the connection and its interrupters is gone.
final class HandleOwner: @unchecked Sendable {
    let handle: OpaquePointer
    init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { sqlite3_close_v2(handle) }
}

/// Stops a connection's running statement from any thread (`sqlite3_interrupt`, which SQLite
/// documents as safe to call from another thread while the connection is open; holding this
/// keeps it open).
public struct SQLiteInterrupter: Sendable {
    let owner: HandleOwner
    /// Stops the statement running now, if any, with `SQLITE_INTERRUPT`.
    public func interrupt() { sqlite3_interrupt(owner.handle) }
}

/// One action a statement being compiled would take, as the authorizer is asked.
public struct SQLiteAction: Sendable, Equatable {
    /// `SQLITE_SELECT`, `SQLITE_READ`, `SQLITE_INSERT`, `SQLITE_PRAGMA`, `SQLITE_FUNCTION`, ….
    public let code: Int32
    /// The first detail: the table for READ/INSERT/…, the pragma's name, the function's name.
    public let first: String?
    /// The second detail: the column for READ/UPDATE, the pragma's argument.
    public let second: String?
    /// The database (`main`, `temp`, an attached one).
    public let database: String?
    /// The trigger or view the action comes from, if any.
    public let trigger: String?
}

/// What the authorizer answers.
public enum SQLiteAuthorization: Sendable {
    /// Let the action be compiled.
    case allow
    /// Refuse the whole statement (`SQLITE_AUTH`, "not authorized").
    case deny
    /// Compile it, reading NULL instead (a column read), or skip it.
    case ignore
}

private final class ProgressBox {
    let body: () -> Bool
    init(_ body: @escaping () -> Bool) { self.body = body }
}

private final class AuthorizerBox {
    let body: (SQLiteAction) -> SQLiteAuthorization
    init(_ body: @escaping (SQLiteAction) -> SQLiteAuthorization) { self.body = body }
}
