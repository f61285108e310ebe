import Foundation
import Synchronization

/// One pusher at a time per store (issue 33). Two pushes of the same pending mutations
/// racing (two `fetchlog push`, a `serve` answering `POST /api/push`, the shell's auto-push,
/// a fetch's push first) each saw the other's `write.sending` as "in doubt" and sent it
/// again: an upstream that ignores `Idempotency-Key` applied it twice. So a push first takes
/// the store's claim, then catches up with the log and decides what to send from there:
/// what another pusher answered is answered, and a `sending` mutation with no answer has a
/// sender that is gone (it held the claim, and no longer does).
///
/// The claim is an exclusive `flock` on `push.lock` in the store directory, which holds the
/// holder's pid, start and what it does. The kernel drops the lock when the process ends,
/// however it ends (kill -9 too), so a claim is never left behind. Inside one process the
/// pushes take turns first (`Turns`), so one waits on the file lock at most, and a waiting
/// push never holds a thread of the cooperative pool: the blocking `flock` runs on a thread
/// of its own, and a cancelled wait returns at once (the thread drops the lock when it gets it).
package final class PushClaim: Sendable {
    /// The file in the store directory (`StoreProbe.allowedFiles` lets it be).
    package static let fileName = "push.lock"

    /// Who holds a store's claim, as its `push.lock` says.
    package struct Holder: Sendable, Equatable, CustomStringConvertible {
        package var pid: Int32
        package var started: Timestamp
        /// What it does: `push`, `automatic push`, `push before a fetch of catalog notes`.
        package var doing: String

        package var description: String { "pid \(pid), \(doing) started \(started.iso8601)" }

        var json: JSONValue {
            .object([("pid", .number(pid)), ("started", .number(started.milliseconds)), ("doing", .string(doing))])
        }

        init(pid: Int32, started: Timestamp, doing: String) {
            self.pid = pid
            self.started = started
            self.doing = doing
        }

        init?(json: JSONValue) {
            guard let pid = json["pid"]?.intValue, case .number(let ms)? = json["started"], let millis = Int64(ms),
                  let doing = json["doing"]?.stringValue else { return nil }
            self.init(pid: Int32(pid), started: Timestamp(milliseconds: millis), doing: doing)
        }
    }

    /// The holder this push waited for (nil: the claim was free).
    package let waitedFor: Holder?
    private let key: String
    /// The locked `push.lock`, -1 once released.
    private let fd: Mutex<Int32>

    private init(key: String, fd: Int32, waitedFor: Holder?) {
        self.key = key
        self.fd = Mutex(fd)
        self.waitedFor = waitedFor
    }

    /// Takes the claim on the store at `directory`, waiting for its holder (in this process
    /// or another) to finish; `waiting` is told who that is, once, before the wait. Throws
    /// `CancellationError` when the task is cancelled while it waits.
    package static func take(_ directory: String, as holder: Holder,
                             waiting: (@Sendable (Holder) -> Void)? = nil) async throws -> PushClaim {
        let canonical = realpath(directory, nil).map { pointer in defer { free(pointer) }; return String(cString: pointer) } ?? directory
        // Told once, of the first holder waited for (in this process, else the file's).
        var waitedFor = try await Turns.take(canonical, holder, waiting: waiting)
        let fd: Int32
        do {
            let (locked, other) = try await lockFile(canonical, tellingAbout: waitedFor == nil ? waiting : nil)
            fd = locked
            waitedFor = waitedFor ?? other
        } catch {
            Turns.release(canonical)
            throw error
        }
        // Who holds it now, for `pending` and for the next one waiting.
        let record = Array((holder.json.canonicalText() + "\n").utf8)
        _ = ftruncate(fd, 0)
        _ = record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return PushClaim(key: canonical, fd: fd, waitedFor: waitedFor)
    }

    /// Ends the claim: the record is emptied (a free claim names nobody), then unlocked.
    package func release() {
        let wasHeld = fd.withLock { fd -> Bool in
            guard fd >= 0 else { return false }
            _ = ftruncate(fd, 0)
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
            return true
        }
        if wasHeld { Turns.release(key) }
    }

    deinit { release() }

    /// Who holds the claim on the store at `directory` now: nil when it is free (a crashed
    /// holder's record may be there, but its lock went with it). Never waits: a shared lock
    /// tried without blocking, dropped at once.
    package static func holder(_ directory: String) -> Holder? {
        let fd = open(directory + "/" + fileName, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: Int32
        repeat { result = flock(fd, LOCK_SH | LOCK_NB) } while result != 0 && errno == EINTR
        if result == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        return record(fd) ?? Holder(pid: 0, started: Timestamp(milliseconds: 0), doing: "push")
    }

    /// The holder `fd`'s file names, if it names one.
    private static func record(_ fd: Int32) -> Holder? {
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0, let json = try? JSONValue.parse(bytes: Array(bytes.prefix(count))) else { return nil }
        return Holder(json: json)
    }

    /// Locks `push.lock` (created 0600 when new): at once when free, else on a thread of its
    /// own. A holder recorded in the file and alive is told before the wait, and returned.
    private static func lockFile(_ directory: String,
                                 tellingAbout waiting: (@Sendable (Holder) -> Void)?) async throws -> (fd: Int32, waitedFor: Holder?) {
        let path = directory + "/" + fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.notAccessible(path: directory, reason: "\(fileName) cannot be opened (\(String(cString: strerror(errno))))") }
        var result: Int32
        repeat { result = flock(fd, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        if result == 0 { return (fd, nil) }
        guard errno == EWOULDBLOCK else {
            let code = errno
            close(fd)
            throw StoreError.notAccessible(path: directory, reason: "\(fileName) cannot be locked (\(String(cString: strerror(code))))")
        }
        // Held by another process. Its record, when it names a live process (a `pending`
        // probing the claim holds it a moment, naming nobody new).
        var other = record(fd)
        if let holder = other, holder.pid <= 0 || (kill(holder.pid, 0) != 0 && errno != EPERM) { other = nil }
        if let other { waiting?(other) }
        let wait = FileWait(fd: fd)
        let locked = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
                wait.start(continuation)
            }
        } onCancel: {
            wait.cancel()
        }
        return (locked, other)
    }

    /// One blocking `flock` on a thread of its own, answered once: the locked fd, or
    /// `CancellationError` (the thread then unlocks and closes the fd once it has it).
    private final class FileWait: Sendable {
        private let fd: Int32
        /// The continuation until answered; `cancelled` once the task gave up.
        private let state = Mutex<(continuation: CheckedContinuation<Int32, any Error>?, cancelled: Bool)>((nil, false))

        init(fd: Int32) { self.fd = fd }

        func start(_ continuation: CheckedContinuation<Int32, any Error>) {
            let cancelledAlready = state.withLock { state -> Bool in
                if state.cancelled { return true }
                state.continuation = continuation
                return false
            }
            if cancelledAlready {
                close(fd)
                continuation.resume(throwing: CancellationError())
                return
            }
            let fd = fd
            let thread = Thread { [self] in
                var result: Int32
                repeat { result = flock(fd, LOCK_EX) } while result != 0 && errno == EINTR
                let code = errno
                let waiting = state.withLock { state -> CheckedContinuation<Int32, any Error>? in
                    defer { state.continuation = nil }
                    return state.continuation
                }
                guard let waiting else {
                    // Given up while waiting: the claim goes to the next at once.
                    if result == 0 { flock(fd, LOCK_UN) }
                    close(fd)
                    return
                }
                if result == 0 {
                    waiting.resume(returning: fd)
                } else {
                    close(fd)
                    waiting.resume(throwing: StoreError.notAccessible(path: "", reason: "\(PushClaim.fileName) cannot be locked (\(String(cString: strerror(code))))"))
                }
            }
            thread.name = "fetchlog push claim"
            thread.start()
        }

        func cancel() {
            let waiting = state.withLock { state -> CheckedContinuation<Int32, any Error>? in
                state.cancelled = true
                defer { state.continuation = nil }
                return state.continuation
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// The pushes of this process, by store: one holds the turn, the others wait in order
    /// (a continuation each, no thread held).
    private enum Turns {
        struct Waiter {
            let id: UInt64
            let holder: Holder
            let continuation: CheckedContinuation<Void, any Error>
        }
        struct Line {
            var holder: Holder?
            var waiters: [Waiter] = []
        }
        static let stores = Mutex<(next: UInt64, byKey: [String: Line])>((0, [:]))

        /// Takes the turn on `key`: at once (nil) or after waiting for the holder returned
        /// (`waiting` is told of it before the wait).
        static func take(_ key: String, _ holder: Holder, waiting: (@Sendable (Holder) -> Void)?) async throws -> Holder? {
            let (id, busy) = stores.withLock { stores -> (UInt64, Holder?) in
                stores.next += 1
                if let current = stores.byKey[key]?.holder { return (stores.next, current) }
                stores.byKey[key, default: Line()].holder = holder
                return (stores.next, nil)
            }
            guard let busy else { return nil }
            waiting?(busy)
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let now: Result<Void, any Error>? = stores.withLock { stores in
                        if Task.isCancelled { return .failure(CancellationError()) }
                        if stores.byKey[key]?.holder == nil {
                            stores.byKey[key, default: Line()].holder = holder
                            return .success(())
                        }
                        stores.byKey[key]!.waiters.append(Waiter(id: id, holder: holder, continuation: continuation))
                        return nil
                    }
                    if let now { continuation.resume(with: now) }
                }
            } onCancel: {
                let waiter = stores.withLock { stores -> Waiter? in
                    guard let index = stores.byKey[key]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return stores.byKey[key]!.waiters.remove(at: index)
                }
                waiter?.continuation.resume(throwing: CancellationError())
            }
            return busy
        }

        /// Hands the turn on `key` to the first waiting, if any.
        static func release(_ key: String) {
            let next = stores.withLock { stores -> Waiter? in
                guard var store = stores.byKey[key] else { return nil }
                defer { stores.byKey[key] = store.holder == nil && store.waiters.isEmpty ? nil : store }
                guard !store.waiters.isEmpty else {
                    store.holder = nil
                    return nil
                }
                let first = store.waiters.removeFirst()
                store.holder = first.holder
                return first
            }
            next?.continuation.resume()
        }
    }
}
