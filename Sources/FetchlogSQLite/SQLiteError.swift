import CSQLite

/// An SQLite result code that is not success, with the connection's message at the time and,
/// for a statement that did not compile, the byte offset in the SQL where SQLite stopped.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code (`SQLITE_ERROR`, `SQLITE_INTERRUPT`, …).
    public let code: Int32
    /// SQLite's own message (`no such table: x`).
    public let message: String
    /// Where in the SQL text (UTF-8 bytes) the error was found, when SQLite says.
    public let offset: Int?

    /// An error with `code`, `message` and, if known, the `offset` in the SQL.
    public init(code: Int32, message: String, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    /// The primary result code (the low byte of the extended one).
    public var primaryCode: Int32 { code & 0xff }
    /// True when the statement was stopped by `SQLiteConnection.interrupt()` (or a progress
    /// handler that said stop).
    public var isInterrupt: Bool { primaryCode == SQLITE_INTERRUPT }
    /// True when an authorizer refused an action.
    public var isDenied: Bool { primaryCode == SQLITE_AUTH }

    /// SQLite's message.
    public var description: String { message }

    static func from(_ db: OpaquePointer?, code: Int32) -> SQLiteError {
        guard let db else { return SQLiteError(code: code, message: String(cString: sqlite3_errstr(code))) }
        let offset = sqlite3_error_offset(db)
        return SQLiteError(code: sqlite3_extended_errcode(db), message: String(cString: sqlite3_errmsg(db)),
                           offset: offset >= 0 ? Int(offset) : nil)
    }
}
