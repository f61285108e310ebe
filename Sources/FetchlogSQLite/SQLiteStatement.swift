import CSQLite

/// One compiled statement of a connection. Not thread-safe: use it on the thread that uses
/// its connection; it is finalized when released.
public final class SQLiteStatement {
    let handle: OpaquePointer
    /// The connection, kept alive as long as its statement.
    public let connection: SQLiteConnection

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// The SQL text the statement was compiled from.
    public var sql: String { String(cString: sqlite3_sql(handle)) }
    /// True when running the statement cannot change the database file
    /// (`sqlite3_stmt_readonly`): what a read-only query must be.
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }
    /// 1 for `EXPLAIN`, 2 for `EXPLAIN QUERY PLAN`, else 0.
    public var explainMode: Int32 { sqlite3_stmt_isexplain(handle) }
    /// How many columns a row has.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }
    /// Column `index`'s name, as the query named it.
    public func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }
    /// Column `index`'s declared type when it is a table's column (`INTEGER`), else nil.
    public func declaredType(_ index: Int) -> String? {
        sqlite3_column_decltype(handle, Int32(index)).map { String(cString: $0) }
    }
    /// Every column's name, in order.
    public var columnNames: [String] { (0 ..< columnCount).map(columnName) }

    /// Binds `value` to parameter `index` (from 1).
    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let code: Int32 = switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let v): sqlite3_bind_int64(handle, index, v)
        case .real(let v): sqlite3_bind_double(handle, index, v)
        case .text(let v):
            v.utf8CString.withUnsafeBufferPointer { fetchlog_sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count - 1)) }
        case .blob(let v):
            v.withUnsafeBytes { fetchlog_sqlite3_bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count)) }
        }
        guard code == SQLITE_OK else { throw SQLiteError.from(connection.handle, code: code) }
    }

    /// Binds `values` to parameters 1, 2, ….
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
    }

    /// Runs the statement to its next row: true when a row is ready (read it with
    /// `value(at:)`), false when it is done.
    public func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        let error = SQLiteError.from(connection.handle, code: code)
        sqlite3_reset(handle)
        throw error
    }

    /// Runs the statement to its end, for one that returns no rows.
    public func run() throws(SQLiteError) {
        while try step() {}
        reset()
    }

    /// Column `index` of the current row.
    public func value(at index: Int) -> SQLiteValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes = sqlite3_column_text(handle, column) else { return .text("") }
            let buffer = UnsafeBufferPointer(start: bytes, count: count)
            // Text SQLite holds is not always valid UTF-8 (a blob cast to text): repaired.
            return .text(String(decoding: buffer, as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    /// About how many bytes column `index` of the current row takes as JSON text, read
    /// without converting it: text's bytes and quotes, a blob's hex literal (`"x'…'"`), a
    /// number's digits, `null`. What an answer's byte cap counts before it converts a value.
    public func jsonByteCount(at index: Int) -> Int {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER, SQLITE_FLOAT: return 24
        case SQLITE_TEXT: return Int(sqlite3_column_bytes(handle, column)) + 2
        case SQLITE_BLOB: return 2 * Int(sqlite3_column_bytes(handle, column)) + 5
        default: return 4
        }
    }

    /// The current row, every column.
    public var row: [SQLiteValue] { (0 ..< columnCount).map(value(at:)) }

    /// Back to before the first row, bindings kept.
    public func reset() { sqlite3_reset(handle) }
    /// Every parameter back to NULL.
    public func clearBindings() { sqlite3_clear_bindings(handle) }
}
