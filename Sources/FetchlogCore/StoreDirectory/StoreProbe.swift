import Foundation
import FetchlogLMDB

/// Decides, without changing a byte, whether a directory may be opened as a store.
package enum StoreProbe {
    enum Verdict {
        /// No data yet: the store is created.
        case fresh
        /// A Fetchlog store of a format this build reads.
        case existing
    }

    /// `rewrite.tmp`: what a `log compact --rewrite` that did not finish leaves (a copy not
    /// yet swapped in); opening the store removes it. `push.lock`: the push claim (`PushClaim`).
    static let allowedFiles: Set<String> = ["data.mdb", "lock.mdb", StoreRewrite.temporaryName, PushClaim.fileName, SyncClaim.fileName, readModelName]

    /// `sql/`: the SQL read model (issue 35), derived from the log: deleting it loses nothing.
    /// `sql.tmp-PID`: one being written (a writer that died leaves it; the next removes it).
    package static let readModelName = "sql"
    package static let readModelTemporaryPrefix = "sql.tmp-"

    static func check(_ path: String) throws -> Verdict {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { return .fresh }
        guard isDirectory.boolValue else { throw StoreError.notADirectory(path: path) }
        let names = try fm.contentsOfDirectory(atPath: path).sorted()
        let strangers = names.filter { !allowedFiles.contains($0) && !$0.hasPrefix(readModelTemporaryPrefix) }
        if !strangers.isEmpty { throw StoreError.foreignFiles(path: path, names: strangers) }
        if names.isEmpty || names.allSatisfy({ $0 == readModelName || $0.hasPrefix(readModelTemporaryPrefix) }) { return .fresh }
        guard names.contains("data.mdb") else { throw StoreError.lockFileWithoutData(path: path) }
        try checkDataFileHeader(path)
        return try checkContents(path)
    }

    /// Reads LMDB's two meta pages and checks the file is as long as they say.
    /// Layout (liblmdb 0.9, 64-bit): page header 16 bytes, then MDB_meta: magic u32
    /// 0xBEEFC0DE, version u32, address, mapsize, two MDB_db of 48 bytes (the first's
    /// md_pad holds the page size), last_pg at +136, txnid at +144.
    private static func checkDataFileHeader(_ path: String) throws {
        let file = path + "/data.mdb"
        guard let handle = FileHandle(forReadingAtPath: file) else {
            throw StoreError.notLMDB(path: path, reason: "it cannot be read")
        }
        defer { try? handle.close() }
        // The meta pages are read before the file's size is taken: a writer in another
        // process writes its data pages (growing the file) before the meta page naming
        // them, so a size taken after the meta is never smaller than what it claims.
        // (Taken before, a commit in between looked like a truncated file.)
        let head = (try? handle.read(upToCount: 152)) ?? Data()
        func u32(_ data: Data, _ at: Int) -> UInt32 {
            data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
        }
        func u64(_ data: Data, _ at: Int) -> UInt64 {
            data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt64.self) }
        }
        func fileSize() -> Int {
            var info = stat()
            return fstat(handle.fileDescriptor, &info) == 0 ? Int(info.st_size) : 0
        }
        guard head.count == 152 else {
            throw StoreError.truncatedDataFile(path: path, size: fileSize(), expectedAtLeast: 2 * 4096)
        }
        guard u32(head, 16) == 0xBEEF_C0DE else { throw StoreError.notLMDB(path: path, reason: "no LMDB magic number") }
        guard u32(head, 20) == 1 else { throw StoreError.notLMDB(path: path, reason: "LMDB data version \(u32(head, 20))") }
        let pageSize = Int(u32(head, 40))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw StoreError.notLMDB(path: path, reason: "implausible page size \(pageSize)")
        }
        var lastPage = u64(head, 136)
        var txnID = u64(head, 144)
        try handle.seek(toOffset: UInt64(pageSize))
        let second = (try? handle.read(upToCount: 152)) ?? Data()
        if second.count == 152, u32(second, 16) == 0xBEEF_C0DE, u64(second, 144) > txnID {
            lastPage = u64(second, 136)
            txnID = u64(second, 144)
        }
        // Overflow-safe: a damaged meta page may claim any page number.
        let (pages, overflow) = Int(clamping: lastPage).addingReportingOverflow(1)
        let (needed, overflow2) = max(pages, 2).multipliedReportingOverflow(by: pageSize)
        let size = fileSize()
        if overflow || overflow2 || size < needed {
            throw StoreError.truncatedDataFile(path: path, size: size, expectedAtLeast: overflow || overflow2 ? Int.max : needed)
        }
        // LMDB trusts the meta page it picks and every page header it reads; check them
        // (every database's root page, and whole trees up to a budget) with Fetchlog's own
        // reader first, so damage is exit 3 here, not a crash in whichever command reads it.
        if let problem = LMDBFileCheck.checkForOpen(dataFile: file) {
            throw problem.database == "meta" && problem.page.map({ $0 < 2 }) == true
                ? StoreError.damagedMetadata(path: path, reason: "\(problem); run \(FrontEndTerm.salvage) to export every readable event")
                : StoreError.damagedFile(path: path, reason: "\(problem)")
        }
    }

    /// Opens the environment read-only without the lock file, so nothing on disk
    /// changes, and looks for Fetchlog's metadata.
    private static func checkContents(_ path: String) throws -> Verdict {
        var options = Environment.Options()
        options.readOnly = true
        options.noLock = true
        options.maxDatabases = 16
        options.mapSize = 0
        let env: Environment
        do { env = try Environment(path: path, options: options) } catch let error as LMDBError {
            throw StoreError.notLMDB(path: path, reason: error.message)
        }
        return try env.read { txn in
            let main = try txn.openDatabase(nil)
            var names: [String] = []
            try txn.withCursor(main) { cursor in
                var entry = try cursor.get(.first)
                while let current = entry {
                    names.append(String(decoding: current.key, as: UTF8.self))
                    entry = try cursor.get(.next)
                }
            }
            if names.isEmpty { return .fresh } // created, then stopped before the first commit
            guard names.contains(StoreSchema.metaName) else { throw StoreError.foreignLMDB(path: path, databases: names) }
            let meta: Database
            do { meta = try txn.openDatabase(StoreSchema.metaName) } catch let error as LMDBError {
                throw StoreError.foreignLMDB(path: path, databases: names + ["(\(error.message))"])
            }
            guard let format = try txn.get(meta, key: StoreSchema.Key.format), String(decoding: format, as: UTF8.self) == StoreSchema.formatName else {
                throw StoreError.foreignLMDB(path: path, databases: names)
            }
            guard let versionBytes = try txn.get(meta, key: StoreSchema.Key.formatVersion),
                  let version = Int(String(decoding: versionBytes, as: UTF8.self)) else {
                throw StoreError.damagedMetadata(path: path, reason: "no readable format version")
            }
            if version > StoreSchema.formatVersion {
                throw StoreError.newerFormat(path: path, found: version, supported: StoreSchema.formatVersion)
            }
            return .existing
        }
    }
}
