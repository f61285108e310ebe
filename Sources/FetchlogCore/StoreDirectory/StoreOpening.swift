import Foundation

/// The steps around opening a store directory that must not race or surprise: checking
/// the path itself (a dangling link, a file in the way, no permission), creating the
/// directory 0700, taking the opening lock, tightening modes.
enum StoreOpening {
    /// An exclusive `flock` on the store directory, held while a process probes and opens
    /// the store. Advisory and separate from LMDB's own locks (which are on lock.mdb).
    final class Lock {
        private let fd: Int32
        let notes: [String]
        init(fd: Int32, notes: [String]) {
            self.fd = fd
            self.notes = notes
        }
        func release() {
            flock(fd, LOCK_UN)
            close(fd)
        }
    }

    static func lock(_ path: String) throws -> Lock {
        let notes: [String] = []
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK, stat(path, &info) != 0 {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            throw StoreError.danglingLink(path: path, target: target)
        }
        if stat(path, &info) != 0 {
            let code = errno
            if code == ENOTDIR, let file = firstFile(on: path) {
                throw StoreError.notAccessible(path: path, reason: "\(file) is a file, not a directory")
            }
            guard code == ENOENT else { throw StoreError.notAccessible(path: path, reason: reason(code)) }
            try makeDirectories(path)
        } else if info.st_mode & S_IFMT != S_IFDIR {
            throw StoreError.notADirectory(path: path)
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.notAccessible(path: path, reason: reason(errno)) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(fd)
                throw StoreError.notAccessible(path: path, reason: "it cannot be locked (\(reason(code)))")
            }
        }
        return Lock(fd: fd, notes: notes)
    }

    /// The first part of `path` that exists and is not a directory.
    private static func firstFile(on path: String) -> String? {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            var info = stat()
            guard stat(prefix, &info) == 0 else { return nil }
            if info.st_mode & S_IFMT != S_IFDIR { return prefix }
        }
        return nil
    }

    /// `mkdir -p` with 0700 for what it creates; a file in the way or no permission is
    /// named, not reported as a raw Foundation error.
    private static func makeDirectories(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            var info = stat()
            if stat(prefix, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw StoreError.notAccessible(path: path, reason: "\(prefix) is a file, not a directory")
                }
                continue
            }
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw StoreError.notAccessible(path: path, reason: "\(prefix) cannot be created: \(reason(errno))")
            }
        }
    }

    /// The store directory to 0700 when others may read it: called only once the probe has
    /// accepted it as a store (or it was just made), never on a directory that is refused.
    static func tightenDirectory(_ path: String) -> [String] {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o077 != 0, chmod(path, 0o700) == 0 else { return [] }
        return ["made \(path) private (mode \(String(info.st_mode & 0o777, radix: 8)) → 700)"]
    }

    /// data.mdb and lock.mdb to 0600 when they are more open (a store made by an older
    /// build, or copied in); returns what it changed.
    static func tightenFiles(_ path: String) -> [String] {
        var notes: [String] = []
        for name in ["data.mdb", "lock.mdb"] {
            var info = stat()
            let file = path + "/" + name
            if stat(file, &info) == 0, info.st_mode & 0o077 != 0, chmod(file, 0o600) == 0 {
                notes.append("made \(file) private (mode \(String(info.st_mode & 0o777, radix: 8)) → 600)")
            }
        }
        return notes
    }

    static func reason(_ code: Int32) -> String {
        switch code {
        case EACCES, EPERM: "permission denied"
        case ENOTDIR: "a part of the path is a file, not a directory"
        case ENOENT: "it does not exist"
        case EROFS: "the file system is read-only"
        case ENOSPC: "the disk is full"
        default: String(cString: strerror(code))
        }
    }
}
