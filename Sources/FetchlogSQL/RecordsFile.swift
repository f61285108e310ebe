import FetchlogCore
import FetchlogSQLite
import Foundation

/// What the read model's files of records (`items.sqlite`, `copies.sqlite`) share: each holds
/// a catalog table and one `records_N` table of JSON texts per entry (named by number, so any
/// name is safe), row N+1 the record at position N; a new file copies the entries whose
/// inputs did not move from the file it replaces (`prior`, attached as `prior`).
enum RecordsFile {
    /// A new file at `path` (no journal: it is in a directory no reader opens until done)
    /// with `catalog` run in it, and `prior` attached when some entry is to be copied and it
    /// exists. Returns the connection and whether `prior` is attached.
    static func create(_ path: String, catalog: String, prior: String?, copying: Bool) throws -> (connection: SQLiteConnection, copying: Bool) {
        // Made with the directory's modes before SQLite opens it (issue 44).
        try ReadModel.createFile(path)
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        try connection.execute(catalog)
        let attach = copying && prior.map { FileManager.default.fileExists(atPath: $0) } == true
        if attach, let prior { try connection.execute("ATTACH DATABASE \(SQLEngine.literal(prior)) AS prior") }
        return (connection, attach)
    }

    /// Makes table `table` of `records` and then runs `entry` (the catalog's row), in one
    /// transaction.
    static func write(_ records: some Sequence<String>, into table: String, _ connection: SQLiteConnection, entry: () throws -> Void) throws {
        try connection.execute("BEGIN")
        try connection.execute("CREATE TABLE \(table) (record TEXT)")
        let insert = try connection.prepare("INSERT INTO \(table) (rowid, record) VALUES (?, ?)")
        for (position, record) in records.enumerated() {
            try insert.bind([.integer(Int64(position + 1)), .text(record)])
            try insert.run()
        }
        try entry()
        try connection.execute("COMMIT")
    }

    /// Makes table `table` a copy of the prior file's table `held`, then runs `entry`, in one transaction.
    static func copy(_ held: String, into table: String, _ connection: SQLiteConnection, entry: () throws -> Void) throws {
        try connection.execute("BEGIN")
        try connection.execute("CREATE TABLE \(table) (record TEXT)")
        try connection.execute("INSERT INTO \(table) (rowid, record) SELECT rowid, record FROM prior.\(SQLEngine.quote(held))")
        try entry()
        try connection.execute("COMMIT")
    }

    /// Reads a file's records by position; the connection lives as long as the reader.
    final class Reader: @unchecked Sendable {
        // One caller at a time: a one-shot command reads one page.
        private let connection: SQLiteConnection
        private let table: String

        init(connection: SQLiteConnection, table: String) {
            self.connection = connection
            self.table = table
        }

        /// The records at `positions`, in that order; `ItemsReadModelError` when one is missing.
        func records(at positions: [Int]) throws -> [String] {
            let select = try connection.prepare("SELECT record FROM \(SQLEngine.quote(table)) WHERE rowid = ?")
            return try positions.map { position in
                try select.bind([.integer(Int64(position + 1))])
                defer { select.reset() }
                guard try select.step(), case .text(let text) = select.value(at: 0) else {
                    throw ItemsReadModelError(message: "record \(position) of \(table) is missing")
                }
                return text
            }
        }
    }
}
