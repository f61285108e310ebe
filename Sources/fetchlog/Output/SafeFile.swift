import Foundation

/// One rule for every file Fetchlog writes (exports, `.output`, `asset save`):
/// - a regular file (or a new one) is written to a temporary file beside it and renamed
///   over it only when everything was written, so a failed write never destroys what was
///   there (a previous backup stays whole);
/// - a device, a FIFO or a socket (`/dev/null`, `/dev/stdout`, a named pipe) is written
///   through, never replaced;
/// - a symbolic link is followed: its target is replaced as above and the link stays.
enum SafeFile {
    struct Failure: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot write \(path): \(reason)" }
    }

    static func write(_ data: Data, to path: String) throws {
        try write(to: path, { _ in }, bytes: data, mode: 0o644)
    }

    /// `mode` is for a new file; a replaced file keeps its own.
    static func write(to path: String, mode: mode_t = 0o644, _ body: (_ sink: (String) throws -> Void) throws -> Void) throws {
        try write(to: path, body, bytes: nil, mode: mode)
    }

    /// `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`: the process's own
    /// descriptor, written through as it is (a pipe, a terminal, or a file opened with
    /// `>>`, which must be appended to, never replaced).
    /// True when `path` names this process's standard output (nothing else may go there).
    static func isStandardOutput(_ path: String) -> Bool { ownDescriptor(path) == STDOUT_FILENO }

    private static func ownDescriptor(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count))
            }
            return nil
        }
    }

    private static func write(to path: String, _ body: (_ sink: (String) throws -> Void) throws -> Void, bytes: Data?, mode: mode_t) throws {
        if let fd = ownDescriptor(path) {
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
            do {
                if let bytes { try handle.write(contentsOf: bytes) } else { try body { try handle.write(contentsOf: Data($0.utf8)) } }
            } catch let failure as Failure { throw failure } catch let error as CocoaError { throw Failure(path: path, reason: describe(error)) }
            return
        }
        var info = stat()
        let exists = stat(path, &info) == 0
        let kind = info.st_mode & S_IFMT
        if exists && kind == S_IFDIR { throw Failure(path: path, reason: "it is a directory") }
        if exists && kind != S_IFREG {
            // A device or a pipe (through however many links): write through it.
            guard let handle = FileHandle(forWritingAtPath: path) else { throw Failure(path: path, reason: reason(errno)) }
            defer { try? handle.close() }
            do {
                if let bytes { try handle.write(contentsOf: bytes) } else { try body { try handle.write(contentsOf: Data($0.utf8)) } }
            } catch { throw Failure(path: path, reason: "\(error.localizedDescription)") }
            return
        }
        // A regular file (or a new one): replaced where the links lead, the links kept.
        let target = resolvingLinks(path)
        let directory = (target as NSString).deletingLastPathComponent
        let temporary = (directory.isEmpty ? "." : directory) + "/." + (target as NSString).lastPathComponent + ".fetchlog-\(getpid())-\(UInt32.random(in: 0 ... .max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, exists ? info.st_mode & 0o7777 : mode)
        guard fd >= 0 else { throw Failure(path: path, reason: reason(errno)) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        // Write errors become a Failure naming the file; an error of the producer (a
        // damaged record met while exporting) is passed on as it is. Either way the
        // temporary file goes and the target is untouched.
        func put(_ data: some DataProtocol) throws {
            do { try handle.write(contentsOf: data) } catch { throw Failure(path: path, reason: describe(error)) }
        }
        do {
            if let bytes {
                try put(bytes)
            } else {
                var buffer: [UInt8] = []
                try body { text in
                    buffer.append(contentsOf: text.utf8)
                    if buffer.count >= 1 << 16 { try put(buffer); buffer.removeAll(keepingCapacity: true) }
                }
                if !buffer.isEmpty { try put(buffer) }
            }
            do {
                try handle.synchronize()
                try handle.close()
            } catch { throw Failure(path: path, reason: describe(error)) }
        } catch {
            try? handle.close()
            unlink(temporary)
            throw error
        }
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(path: path, reason: reason(code))
        }
    }

    /// The final target of a chain of symbolic links (the path itself when it is none).
    private static func resolvingLinks(_ path: String) -> String {
        var current = path
        for _ in 0 ..< 40 {
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            current = destination.hasPrefix("/") ? destination : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(destination)
        }
        return current
    }

    static func reason(_ code: Int32) -> String {
        switch code {
        case ENOSPC: return "the disk is full (nothing was replaced; free space and try again)"
        case EACCES, EPERM: return "permission denied"
        case ENOENT: return "no such file or directory"
        case ENOTDIR: return "a part of the path is not a directory"
        case EROFS: return "the file system is read-only"
        default: return String(cString: strerror(code))
        }
    }

    private static func describe(_ error: Error) -> String {
        let ns = error as NSError
        if let posix = ns.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain { return reason(Int32(posix.code)) }
        if ns.domain == NSPOSIXErrorDomain { return reason(Int32(ns.code)) }
        return ns.localizedDescription
    }
}
