import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Rings when the log's data file is written, by this process or another: an inotify watch
/// on LMDB's `data.mdb` (LMDB commits with `pwrite`, never through a writable map here, so
/// every commit is a modification the kernel reports). What waits on it sleeps until a
/// write happens: nothing is polled. Where inotify is missing (another kernel, a file system
/// that does not report), `start` returns false and the caller falls back to its own timer.
///
/// A commit is visible to readers a moment after its last write: LMDB publishes the new
/// transaction id in the lock file's shared memory (no file event) after writing the meta
/// page. So `ring` says whether it found what it looked for; when it did not, the bell asks
/// again after 1, 2, 4… ms (about two seconds in all), and only after an event: an idle
/// bell sleeps.
///
/// `@unchecked Sendable`: the descriptors are set once in `start` and closed once, after the
/// thread that reads them has ended; `stop` only writes a byte to the pipe that wakes it.
final class LogBell: @unchecked Sendable {
    private let file: String
    private let ring: @Sendable () -> Bool
    private var watch: Int32 = -1
    private var wake: [Int32] = [-1, -1]
    private let ended = NSCondition()
    private var running = false

    /// `ring` runs on the bell's own thread after each batch of writes to `directory`'s data
    /// file, and returns false when what the writes made is not visible yet.
    init(directory: String, ring: @escaping @Sendable () -> Bool) {
        file = directory + "/data.mdb"
        self.ring = ring
    }

    /// Starts watching; false when the file cannot be watched (nothing runs then).
    func start() -> Bool {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return false }
        guard inotify_add_watch(fd, file, UInt32(IN_MODIFY)) >= 0, pipe(&wake) == 0 else {
            close(fd)
            return false
        }
        watch = fd
        running = true
        let thread = Thread { [self] in
            var fds = [pollfd(fd: watch, events: Int16(POLLIN), revents: 0), pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
            var buffer = [UInt8](repeating: 0, count: 4096)
            // Milliseconds until `ring` is asked again (nil: nothing to look for, so no
            // timeout: the thread sleeps until the file is written or `stop` writes the pipe).
            var again: Int32?
            while true {
                let n = poll(&fds, 2, again ?? -1)
                if n < 0 && errno == EINTR { continue }
                if n < 0 || fds[1].revents != 0 { break }
                if fds[0].revents != 0 {
                    // Drain what queued: one ring for a burst of commits.
                    while buffer.withUnsafeMutableBytes({ read(watch, $0.baseAddress, $0.count) }) > 0 {}
                    again = ring() ? nil : 1
                } else if let wait = again {
                    again = ring() || wait >= 1024 ? nil : wait * 2
                }
            }
            ended.lock()
            running = false
            ended.broadcast()
            ended.unlock()
        }
        thread.name = "fetchlog-log-bell"
        thread.start()
        return true
    }

    /// Stops the thread and closes the descriptors; returns once the thread has ended.
    func stop() {
        guard watch >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(wake[1], &byte, 1)
        ended.lock()
        while running { ended.wait() }
        ended.unlock()
        close(watch)
        close(wake[0])
        close(wake[1])
        watch = -1
    }
}

extension Store {
    /// Catches up with another process's appends as they are committed: a `LogBell` on the
    /// log's data file (no polling), until the returned task is cancelled. Returns nil when
    /// the file cannot be watched. A long-lived process that must see another's writes at
    /// once (`fetchlog sync`: a change made with `item set` beside it is sent now, not at the
    /// next due time) keeps it running.
    package func followAppends() -> Task<Void, Never>? {
        let bell = LogBell(directory: log.path) { [weak self] in
            guard let self else { return true }
            // Nothing new (yet): this process's own append, or a commit not visible yet.
            guard (try? self.log.lastSeq()) ?? 0 > self.durableState.seq else { return false }
            Task { _ = try? await self.catchUp() }
            return true
        }
        guard bell.start() else { return nil }
        let (parked, release) = AsyncStream<Void>.makeStream()
        return Task {
            await withTaskCancellationHandler {
                // Parked until cancelled: the bell's thread does the work.
                for await _ in parked {}
            } onCancel: {
                bell.stop()
                release.finish()
            }
        }
    }
}
