import CLMDB
import Logging

/// One LMDB environment (a directory holding `data.mdb` and `lock.mdb`).
///
/// Thread rules: the environment may be shared across threads. Read transactions are
/// short and closure-scoped (`read`), so nothing holds a reader slot across user think
/// time; the environment is opened with MDB_NOTLS so a reader is not tied to a thread.
/// Write transactions exist only inside `write`, on the calling thread, and the body
/// must not suspend (it is synchronous by type).
///
/// `@unchecked Sendable`: the LMDB handle is safe across threads with MDB_NOTLS; the map resize is serialised by `mapLock` against every transaction, and write transactions never leave `write`.
public final class Environment: @unchecked Sendable {
    /// How an environment is opened: set before ``Environment/init(path:options:)``;
    /// liblmdb fixes them for the life of the handle.
    public struct Options: Sendable {
        /// Initial map size in bytes; the map grows (doubling) whenever it fills.
        public var mapSize: Int = 256 << 20
        /// How many named databases may be opened (`mdb_env_set_maxdbs`); opening one more
        /// fails with `MDB_DBS_FULL`.
        public var maxDatabases: UInt32 = 8
        /// Read transactions open at once across every process sharing the environment
        /// (`mdb_env_set_maxreaders`); past it a read fails with `MDB_READERS_FULL`.
        public var maxReaders: UInt32 = 126
        /// Opened `MDB_RDONLY`: any write transaction fails, and stale reader slots are left
        /// alone (clearing them writes the lock file).
        public var readOnly = false
        /// No lock file at all: for inspecting a directory without touching it.
        public var noLock = false
        /// Skip fsync at commit. Never used by the engine; benchmarks compare with it.
        public var noSync = false
        /// Where map growth is logged (`notice`).
        public var logger = LibraryLogging.logger(label: "fetchlog.lmdb")
        /// The defaults: a 256 MiB map that grows, 8 named databases, 126 readers, read-write,
        /// locked and synced at every commit.
        public init() {}
    }

    /// The directory opened, as given: named in every ``LMDBError`` of this environment.
    public let path: String
    let handle: OpaquePointer
    private let mapLock = ReadWriteLock()
    private let logger: Logger
    /// Reader slots of dead processes cleared when this environment was opened.
    public private(set) var staleReadersCleared: Int32 = 0

    /// Opens the environment in the directory `path`, which must exist; liblmdb creates
    /// `data.mdb` and `lock.mdb` in it when absent (mode 0600). Unless read-only or without
    /// a lock, clears the reader slots of dead processes (``staleReadersCleared``). Throws
    /// ``LMDBError`` naming the step that failed.
    public init(path: String, options: Options = Options()) throws {
        self.path = path
        logger = options.logger
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "mdb_env_create", path)
        guard let env else { throw LMDBError(code: MDB_PANIC, operation: "mdb_env_create", path: path) }
        do {
            try check(mdb_env_set_mapsize(env, Environment.roundToPage(options.mapSize)), "mdb_env_set_mapsize", path)
            try check(mdb_env_set_maxdbs(env, options.maxDatabases), "mdb_env_set_maxdbs", path)
            try check(mdb_env_set_maxreaders(env, options.maxReaders), "mdb_env_set_maxreaders", path)
            var flags = UInt32(MDB_NOTLS)
            if options.readOnly { flags |= UInt32(MDB_RDONLY) }
            if options.noLock { flags |= UInt32(MDB_NOLOCK) }
            if options.noSync { flags |= UInt32(MDB_NOSYNC) }
            // 0600: the log holds whatever the upstreams sent; it is nobody else's to read.
            try check(mdb_env_open(env, path, flags, 0o600), "mdb_env_open", path)
        } catch {
            mdb_env_close(env)
            throw error
        }
        handle = env
        if !options.readOnly && !options.noLock {
            var dead: Int32 = 0
            mdb_reader_check(env, &dead)
            staleReadersCleared = dead
        }
    }

    deinit { mdb_env_close(handle) }

    // MARK: Transactions

    private enum Step<R> { case done(R), mapFull, resized }

    /// Runs `body` in a read transaction and ends it before returning. Copy out what
    /// you need: buffers handed to `body` are valid only inside it.
    public func read<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        while true {
            let step: Step<R> = try mapLock.withReadLock {
                var raw: OpaquePointer?
                let rc = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &raw)
                if rc == MDB_MAP_RESIZED { return .resized }
                try check(rc, "mdb_txn_begin(read)", path)
                let txn = ReadTransaction(raw!)
                return .done(try body(txn))
            }
            switch step {
            case .done(let value): return value
            case .mapFull, .resized: try adoptResizedMap()
            }
        }
    }

    /// Opens existing named databases in a read transaction that is committed (not
    /// aborted) so the handles stay open for the environment, as liblmdb keeps handles a
    /// committed read-only transaction opened. nil when one of them does not exist. Unlike
    /// `write`, it never waits for another process's write transaction.
    public func openExistingDatabases(_ names: [String]) throws -> [Database]? {
        while true {
            // Another process grew the map since this environment opened: adopt its size.
            let step: Step<[Database]?> = try mapLock.withReadLock {
                var raw: OpaquePointer?
                let rc = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &raw)
                if rc == MDB_MAP_RESIZED { return .resized }
                try check(rc, "mdb_txn_begin(read)", path)
                return .done(try openAndCommit(raw!, names))
            }
            switch step {
            case .done(let value): return value
            case .mapFull, .resized: try adoptResizedMap()
            }
        }
    }

    private func openAndCommit(_ raw: OpaquePointer, _ names: [String]) throws -> [Database]? {
        do {
            var databases: [Database] = []
            for name in names {
                var dbi: MDB_dbi = 0
                let rc = mdb_dbi_open(raw, name, 0, &dbi)
                if rc == MDB_NOTFOUND {
                    mdb_txn_abort(raw)
                    return nil
                }
                if rc != 0 { mdb_txn_abort(raw) }
                try check(rc, "mdb_dbi_open(\(name))", path)
                databases.append(Database(dbi: dbi, name: name))
            }
            try check(mdb_txn_commit(raw), "mdb_txn_commit(read)", path)
            return databases
        }
    }

    /// Runs `body` in a write transaction and commits it. When the map is full, the
    /// transaction is aborted, the map grows, and `body` runs again from the start, so
    /// `body` must derive everything it writes from what it reads in the transaction.
    /// Throwing from `body` aborts.
    public func write<R>(_ body: (inout WriteTransaction) throws -> R) throws -> R {
        while true {
            let step: Step<R> = try mapLock.withReadLock {
                var raw: OpaquePointer?
                let rc = mdb_txn_begin(handle, nil, 0, &raw)
                if rc == MDB_MAP_RESIZED { return .resized }
                try check(rc, "mdb_txn_begin(write)", path)
                var txn = WriteTransaction(raw!)
                do {
                    let value = try body(&txn)
                    try txn.commit()
                    return .done(value)
                } catch let error as LMDBError where error.isMapFull {
                    return .mapFull
                }
            }
            switch step {
            case .done(let value): return value
            case .mapFull: try growMap()
            case .resized: try adoptResizedMap()
            }
        }
    }

    // MARK: Map size

    /// The current map size in bytes.
    public var mapSize: Int { info.mapSize }

    /// What `mdb_env_info` and `mdb_env_stat` say of the environment, read at one moment:
    /// for diagnostics (how full the map is, who reads).
    public struct Info: Sendable {
        /// The map's size in bytes: the most the data file may grow to before the map grows.
        public let mapSize: Int
        /// The last page in use; times `pageSize` it is how much of the data file is used.
        public let lastPageNumber: Int
        /// The id of the last committed write transaction: it moves with every commit.
        public let lastTransactionID: Int
        /// The reader slots the lock file has (``Options/maxReaders``).
        public let maxReaders: UInt32
        /// Reader slots taken now, by every process: more than live readers means stale slots.
        public let readersInUse: UInt32
        /// The database page size in bytes (the OS page size when the file was created).
        public let pageSize: UInt32
    }

    /// The environment's ``Info`` now, read without a transaction.
    public var info: Info {
        var raw = MDB_envinfo()
        mdb_env_info(handle, &raw)
        var stat = MDB_stat()
        mdb_env_stat(handle, &stat)
        return Info(mapSize: raw.me_mapsize, lastPageNumber: raw.me_last_pgno, lastTransactionID: raw.me_last_txnid,
                    maxReaders: raw.me_maxreaders, readersInUse: raw.me_numreaders, pageSize: stat.ms_psize)
    }

    /// Doubles the map (at least to `minimum`). Waits until no transaction of this
    /// process is active, as LMDB requires.
    public func growMap(minimum: Int = 0) throws {
        try mapLock.withWriteLock {
            let current = info.mapSize
            let target = Environment.roundToPage(max(current * 2, minimum))
            try check(mdb_env_set_mapsize(handle, target), "mdb_env_set_mapsize(\(target))", path)
            logger.notice("LMDB map grown", metadata: ["path": "\(path)", "from": "\(current)", "to": "\(target)"])
        }
    }

    /// Another process grew the map beyond ours: adopt its size.
    private func adoptResizedMap() throws {
        try mapLock.withWriteLock {
            try check(mdb_env_set_mapsize(handle, 0), "mdb_env_set_mapsize(0)", path)
            logger.debug("LMDB map size adopted from another process", metadata: ["path": "\(path)", "size": "\(info.mapSize)"])
        }
    }

    /// Writes a compacted copy of the environment (free pages left out, pages renumbered)
    /// as `directory/data.mdb`: LMDB's own `mdb_env_copy2(MDB_CP_COMPACT)`, a consistent
    /// snapshot taken in one read transaction.
    public func copyCompacting(to directory: String) throws {
        try check(mdb_env_copy2(handle, directory, UInt32(MDB_CP_COMPACT)), "mdb_env_copy2(MDB_CP_COMPACT)", directory)
    }

    /// Forces the data to disk (only needed after `noSync` writes).
    public func sync() throws {
        try check(mdb_env_sync(handle, 1), "mdb_env_sync", path)
    }

    private static func roundToPage(_ size: Int) -> Int {
        let page = 4096
        return max(page * 4, (size + page - 1) / page * page)
    }

    // MARK: Databases

    /// Opens a named database; `create` makes it when absent (a write transaction).
    public func openDatabase(_ name: String?, create: Bool) throws -> Database {
        if create {
            return try write { txn in try txn.openDatabase(name, create: true) }
        }
        return try read { txn in try txn.openDatabase(name) }
    }
}
