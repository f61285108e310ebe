import FetchlogLMDB
import Foundation
import Synchronization

/// `log compact --rewrite`: the store's data file replaced by LMDB's compacting copy of
/// it, which gives the file system back the pages compaction (or anything) freed.
///
/// A kill at any moment leaves a valid store: the copy is written, synced and checked in
/// `rewrite.tmp/` beside the data file, then swapped in by one `rename(2)`, which is atomic:
/// before it the old file is whole, after it the new one is. A `rewrite.tmp/` left by a
/// killed run is never read and is removed at the next open.
///
/// Only a store no process has open can be rewritten (another process would go on writing
/// into the old file): every open `EventLog` holds a shared `flock` on `lock.mdb` for its
/// lifetime, and the rewrite takes it exclusively (without waiting) while it also holds the
/// opening lock, so no process opens the store while its file is swapped.
package enum StoreRewrite {
    static let temporaryName = "rewrite.tmp"

    package struct Result: Sendable, Equatable {
        package let bytesBefore: Int
        package let bytesAfter: Int
        package let events: Int
    }

    /// Why a store could not be rewritten (nothing was changed).
    package struct Refused: Error, CustomStringConvertible {
        package let reason: String
        package var description: String { reason }
    }

    /// Rewrites the store in `directory` (a file URL); no process may have it open.
    package static func rewrite(at directory: URL) throws -> Result {
        guard directory.isFileURL else { throw Refused(reason: "\(directory.absoluteString) is not a directory on this machine: give a file URL") }
        return try rewrite(at: directory.path)
    }

    /// The command line's form: the directory as written.
    package static func rewrite(at path: String) throws -> Result {
        let lock = try StoreOpening.lock(path)
        defer { lock.release() }
        guard try StoreProbe.check(path) == .existing else { throw Refused(reason: "\(path) holds no store yet: there is nothing to rewrite") }
        let inUse = try InUseLock(path: path, exclusive: true)
        defer { inUse.release() }
        let temporary = path + "/" + temporaryName
        removeLeftover(path)
        guard mkdir(temporary, 0o700) == 0 else { throw Refused(reason: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let data = path + "/data.mdb"
        let before = fileSize(data)
        var expected = 0
        do {
            let environment = try Environment(path: path)
            try environment.copyCompacting(to: temporary)
            expected = try environment.read { txn in try txn.count(try txn.openDatabase(StoreSchema.eventsName)) }
        }
        // As private as the store (LMDB's copy is made 0644), and on disk before it
        // replaces the original.
        chmod(temporary + "/data.mdb", 0o600)
        try syncFile(temporary + "/data.mdb")
        // And it must read: the same number of events, under a fresh environment.
        do {
            let copy = try Environment(path: temporary)
            let count = try copy.read { txn in try txn.count(try txn.openDatabase(StoreSchema.eventsName)) }
            guard count == expected else {
                throw Refused(reason: "the compacted copy holds \(count) events where the store holds \(expected); the store was left as it was")
            }
        }
        guard rename(temporary + "/data.mdb", data) == 0 else {
            throw Refused(reason: "cannot swap the copy in: \(String(cString: strerror(errno))); the store was left as it was")
        }
        try syncFile(path)
        removeLeftover(path)
        return Result(bytesBefore: before, bytesAfter: fileSize(data), events: expected)
    }

    /// Removes `rewrite.tmp/` (a copy never swapped in); true when there was one.
    @discardableResult
    static func removeLeftover(_ path: String) -> Bool {
        let temporary = path + "/" + temporaryName
        guard FileManager.default.fileExists(atPath: temporary) else { return false }
        try? FileManager.default.removeItem(atPath: temporary)
        return true
    }

    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    private static func syncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Refused(reason: "cannot open \(path) to sync it: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Refused(reason: "cannot sync \(path): \(String(cString: strerror(errno)))") }
    }
}

/// A `flock` on the store's `lock.mdb`: shared by every open store for its lifetime,
/// exclusive for a rewrite. (LMDB locks lock.mdb with `fcntl`, which is independent of `flock`.)
final class InUseLock: Sendable {
    /// The open `lock.mdb`, -1 once released (or when there was none to lock).
    private let fd: Mutex<Int32>

    init(path: String, exclusive: Bool) throws {
        let fd = open(path + "/lock.mdb", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if exclusive, errno == ENOENT { self.fd = Mutex(-1); return }
            throw StoreError.notAccessible(path: path, reason: "lock.mdb cannot be opened (\(String(cString: strerror(errno))))")
        }
        self.fd = Mutex(fd)
        var result: Int32
        repeat { result = flock(fd, (exclusive ? LOCK_EX | LOCK_NB : LOCK_SH)) } while result != 0 && errno == EINTR
        if result != 0 {
            let code = errno
            close(fd)
            self.fd.withLock { $0 = -1 }
            if exclusive && code == EWOULDBLOCK {
                throw StoreRewrite.Refused(reason: "another process has \(path) open (a shell, a fetch, a follower): close it and run \(FrontEndTerm.rewriteCompaction) again; nothing was changed")
            }
            throw StoreError.notAccessible(path: path, reason: "lock.mdb cannot be locked (\(String(cString: strerror(code))))")
        }
    }

    func release() {
        fd.withLock { fd in
            guard fd >= 0 else { return }
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }

    deinit { release() }
}
