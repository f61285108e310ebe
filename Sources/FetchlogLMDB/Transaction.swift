import CLMDB

/// A read-only transaction. Not copyable and not Sendable: it lives inside
/// `Environment.read` on one thread and is aborted when that closure returns.
public struct ReadTransaction: ~Copyable {
    let txn: OpaquePointer
    var path: String { environmentPath(txn) }

    init(_ txn: OpaquePointer) {
        self.txn = txn
    }

    deinit { mdb_txn_abort(txn) }

    /// The value of `key` in `db`, nil when absent. The buffer points into the map: valid
    /// only until the transaction ends, so copy out what you keep.
    public func get(_ db: Database, key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        try lmdbGet(txn, db, key, path)
    }

    /// A look-up in `db` for code that cannot borrow the transaction (a closure handed to
    /// a decoder). Valid only while this transaction lives: call it inside the `read` body,
    /// never after. A failed look-up answers nil.
    public func unsafeGetter(_ db: Database) -> (UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let txn = self.txn, path = self.path
        return { key in try? lmdbGet(txn, db, key, path) }
    }

    /// The value under the ``SequenceKey`` of `seq`, nil when absent; valid until the
    /// transaction ends.
    public func get(_ db: Database, seq: UInt64) throws -> UnsafeRawBufferPointer? {
        try SequenceKey.with(seq) { try lmdbGet(txn, db, $0, path) }
    }

    /// Runs `body` with a cursor over `db`, closed when `body` returns; what it hands out
    /// is valid until the transaction ends.
    public func withCursor<R>(_ db: Database, _ body: (inout Cursor) throws -> R) throws -> R {
        var cursor = try Cursor(txn, db)
        return try body(&cursor)
    }

    /// The number of entries in `db`, as of this transaction (`mdb_stat`, no scan).
    public func count(_ db: Database) throws -> Int { try lmdbCount(txn, db, path) }

    /// Opens an existing named database (nil: the unnamed main database).
    public func openDatabase(_ name: String?) throws -> Database {
        try lmdbOpen(txn, name, create: false, path)
    }
}

/// A write transaction: not copyable, not Sendable, never crosses an `await`.
/// `commit()` consumes it; dropping it without commit aborts it.
public struct WriteTransaction: ~Copyable {
    let txn: OpaquePointer
    var path: String { environmentPath(txn) }

    init(_ txn: OpaquePointer) {
        self.txn = txn
    }

    deinit { mdb_txn_abort(txn) }

    /// Commits. LMDB frees the transaction whether or not the commit succeeds.
    public consuming func commit() throws {
        let path = self.path
        let rc = mdb_txn_commit(txn)
        discard self
        try check(rc, "mdb_txn_commit", path)
    }

    /// The value of `key` in `db` as this transaction sees it (its own writes included), nil
    /// when absent; valid until the transaction writes again or ends.
    public func get(_ db: Database, key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        try lmdbGet(txn, db, key, path)
    }

    /// The value under the ``SequenceKey`` of `seq` as this transaction sees it, nil when absent.
    public func get(_ db: Database, seq: UInt64) throws -> UnsafeRawBufferPointer? {
        try SequenceKey.with(seq) { try lmdbGet(txn, db, $0, path) }
    }

    /// Stores `value` under `key` in `db`, replacing what was there unless `flags` says
    /// otherwise; liblmdb copies both buffers, so they need live only for the call.
    public func put(_ db: Database, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: PutFlags = []) throws {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        try check(mdb_put(txn, db.dbi, &k, &v, flags.rawValue), "mdb_put(\(db.name ?? "main"))", path)
    }

    /// Stores the UTF-8 bytes of `value` under those of `key`: for small text records (a
    /// schema version, a store id).
    public func put(_ db: Database, key: String, value: String) throws {
        var key = key, value = value
        try key.withUTF8 { k in
            try value.withUTF8 { v in try put(db, key: UnsafeRawBufferPointer(k), value: UnsafeRawBufferPointer(v)) }
        }
    }

    /// Reserves `count` bytes for `key` and lets `fill` write them in place (MDB_RESERVE):
    /// the record is encoded straight into the database page, with no extra copy.
    public func reserve(_ db: Database, key: UnsafeRawBufferPointer, count: Int, flags: PutFlags = [],
                        fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: count, mv_data: nil)
        try check(mdb_put(txn, db.dbi, &k, &v, flags.rawValue | UInt32(MDB_RESERVE)), "mdb_put(reserve, \(db.name ?? "main"))", path)
        try fill(UnsafeMutableRawBufferPointer(start: v.mv_data, count: count))
    }

    /// Removes `key` from `db`; false when it was not there (not an error: the caller's
    /// wish holds either way).
    @discardableResult
    public func delete(_ db: Database, key: UnsafeRawBufferPointer) throws -> Bool {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        let rc = mdb_del(txn, db.dbi, &k, nil)
        if rc == MDB_NOTFOUND { return false }
        try check(rc, "mdb_del", path)
        return true
    }

    /// Removes every entry of `db` (keeps the database).
    public func clear(_ db: Database) throws {
        try check(mdb_drop(txn, db.dbi, 0), "mdb_drop", path)
    }

    /// Runs `body` with a cursor over `db` as this transaction sees it, closed when `body` returns.
    public func withCursor<R>(_ db: Database, _ body: (inout Cursor) throws -> R) throws -> R {
        var cursor = try Cursor(txn, db)
        return try body(&cursor)
    }

    /// The number of entries in `db`, this transaction's writes included (`mdb_stat`, no scan).
    public func count(_ db: Database) throws -> Int { try lmdbCount(txn, db, path) }

    /// Opens a named database (nil: the unnamed main database), creating it when `create`
    /// and absent. The handle outlives the transaction once it commits.
    public func openDatabase(_ name: String?, create: Bool) throws -> Database {
        try lmdbOpen(txn, name, create: create, path)
    }
}

/// Cursor positioning operations.
public enum CursorOperation: Sendable {
    /// The first entry, in key order.
    case first
    /// The last entry, in key order.
    case last
    /// The entry after the cursor's (the first when the cursor is not yet placed).
    case next
    /// The entry before the cursor's (the last when the cursor is not yet placed).
    case previous
    /// The entry the cursor is on, read again.
    case current
    /// The first key greater than or equal to the given key.
    case setRange
    /// Exactly the given key.
    case set

    var raw: MDB_cursor_op {
        switch self {
        case .first: MDB_FIRST
        case .last: MDB_LAST
        case .next: MDB_NEXT
        case .previous: MDB_PREV
        case .current: MDB_GET_CURRENT
        case .setRange: MDB_SET_RANGE
        case .set: MDB_SET_KEY
        }
    }
}

/// A cursor, closed when it goes out of scope. Buffers it returns are valid only
/// until the transaction ends.
public struct Cursor: ~Copyable {
    let cursor: OpaquePointer
    var path: String { environmentPath(mdb_cursor_txn(cursor)) }

    init(_ txn: OpaquePointer, _ db: Database) throws {
        var raw: OpaquePointer?
        try check(mdb_cursor_open(txn, db.dbi, &raw), "mdb_cursor_open", environmentPath(txn))
        cursor = raw!
    }

    deinit { mdb_cursor_close(cursor) }

    /// Positions the cursor; nil when there is no such entry.
    public mutating func get(_ op: CursorOperation, key: UnsafeRawBufferPointer? = nil) throws
        -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var k = MDB_val(mv_size: key?.count ?? 0, mv_data: UnsafeMutableRawPointer(mutating: key?.baseAddress))
        var v = MDB_val()
        let rc = mdb_cursor_get(cursor, &k, &v, op.raw)
        if rc == MDB_NOTFOUND { return nil }
        try check(rc, "mdb_cursor_get", path)
        return (UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
                UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
    }

    /// Positions the cursor on the first key at or after the ``SequenceKey`` of `seq`: where a
    /// scan of a log from `seq` starts; nil when every key is smaller.
    public mutating func seek(seq: UInt64) throws -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var b = seq.bigEndian
        return try withUnsafeBytes(of: &b) { try get(.setRange, key: $0) }
    }
}

// Shared by both transaction kinds.

/// The environment's directory, for error messages (kept out of the transaction
/// types so they stay trivially destructible and `commit()` can `discard self`).
func environmentPath(_ txn: OpaquePointer?) -> String {
    guard let txn, let env = mdb_txn_env(txn) else { return "?" }
    var raw: UnsafePointer<CChar>?
    guard mdb_env_get_path(env, &raw) == 0, let raw else { return "?" }
    return String(cString: raw)
}

func lmdbGet(_ txn: OpaquePointer, _ db: Database, _ key: UnsafeRawBufferPointer, _ path: String) throws -> UnsafeRawBufferPointer? {
    var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
    var v = MDB_val()
    let rc = mdb_get(txn, db.dbi, &k, &v)
    if rc == MDB_NOTFOUND { return nil }
    try check(rc, "mdb_get(\(db.name ?? "main"))", path)
    return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
}

func lmdbCount(_ txn: OpaquePointer, _ db: Database, _ path: String) throws -> Int {
    var stat = MDB_stat()
    try check(mdb_stat(txn, db.dbi, &stat), "mdb_stat", path)
    return stat.ms_entries
}

func lmdbOpen(_ txn: OpaquePointer, _ name: String?, create: Bool, _ path: String) throws -> Database {
    var dbi: MDB_dbi = 0
    let flags = create ? UInt32(MDB_CREATE) : 0
    try check(mdb_dbi_open(txn, name, flags, &dbi), "mdb_dbi_open(\(name ?? "main"))", path)
    return Database(dbi: dbi, name: name)
}
