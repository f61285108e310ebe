import Foundation
import Synchronization

/// One `sync` at a time per store. Two syncs on one store would ask for the same resources
/// twice and race to push the same writes; the second is pointless, so it does not wait its
/// turn (a cron job firing while the last run is still going would pile up): it is refused
/// at once, naming the sync that runs (`SyncClaim.Held`).
///
/// The claim is an exclusive `flock` on `sync.lock` in the store directory, tried without
/// blocking, holding the holder's pid and start. The kernel drops the lock when the process
/// ends, however it ends (kill -9 too), so a claim is never left behind; and a `flock` is
/// per open file, so two syncs in one process exclude each other as well.
package final class SyncClaim: Sendable {
    /// The file in the store directory (`StoreProbe.allowedFiles` lets it be).
    package static let fileName = "sync.lock"

    /// Another sync holds the store's claim.
    package struct Held: Error, CustomStringConvertible {
        /// Its pid and start, as its `sync.lock` says (nil when the record was unreadable).
        package let pid: Int32?
        package let started: Timestamp?
        package let store: String

        package var description: String {
            let who = pid.map { "pid \($0)" + (started.map { ", started \($0.iso8601)" } ?? "") } ?? "another process"
            return "another sync is running on \(store) (\(who)); nothing was done"
        }
    }

    /// The locked `sync.lock`, -1 once released.
    private let fd: Mutex<Int32>

    private init(fd: Int32) { self.fd = Mutex(fd) }

    /// Takes the claim on the store at `directory`, or throws `Held` at once when a sync holds it.
    package static func take(_ directory: String, started: Timestamp) throws -> SyncClaim {
        let path = directory + "/" + fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.notAccessible(path: directory, reason: "\(fileName) cannot be opened (\(String(cString: strerror(errno))))") }
        var result: Int32
        repeat { result = flock(fd, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        guard result == 0 else {
            let code = errno
            let record = Self.record(fd)
            close(fd)
            guard code == EWOULDBLOCK else {
                throw StoreError.notAccessible(path: directory, reason: "\(fileName) cannot be locked (\(String(cString: strerror(code))))")
            }
            throw Held(pid: record?.pid, started: record?.started, store: directory)
        }
        let text = JSONValue.object([("pid", .number(Int(getpid()))), ("started", .number(Int(started.milliseconds)))]).canonicalText() + "\n"
        let bytes = Array(text.utf8)
        _ = ftruncate(fd, 0)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return SyncClaim(fd: fd)
    }

    /// Ends the claim: the record is emptied (a free claim names nobody), then unlocked.
    package func release() {
        fd.withLock { fd in
            guard fd >= 0 else { return }
            _ = ftruncate(fd, 0)
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }

    deinit { release() }

    private static func record(_ fd: Int32) -> (pid: Int32, started: Timestamp)? {
        var bytes = [UInt8](repeating: 0, count: 512)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0, let json = try? JSONValue.parse(bytes: Array(bytes.prefix(count))),
              let pid = json["pid"]?.intValue, case .number(let ms)? = json["started"], let millis = Int64(ms) else { return nil }
        return (Int32(pid), Timestamp(milliseconds: millis))
    }
}
