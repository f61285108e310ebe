import CLMDB

/// An LMDB call failed. Carries the C return code, the operation that failed, the
/// environment path, and the usual causes of that code with what to do about them.
public struct LMDBError: Error, CustomStringConvertible, Sendable, Equatable {
    /// liblmdb's return code: an `MDB_*` code (negative) or an `errno` value.
    public let code: Int32
    /// The liblmdb call that failed, with its argument where it helps (`mdb_put(bodies)`).
    public let operation: String
    /// The environment's directory, so a message says which store failed.
    public let path: String

    /// The error of a failed call: `code` as liblmdb returned it, with the call and the
    /// environment that ``description`` names.
    public init(code: Int32, operation: String, path: String) {
        self.code = code
        self.operation = operation
        self.path = path
    }

    /// liblmdb's own message for the code.
    public var message: String { String(cString: mdb_strerror(code)) }

    /// The map is full (`MDB_MAP_FULL`): ``Environment/write(_:)`` grows it and runs the body again.
    public var isMapFull: Bool { code == MDB_MAP_FULL }
    /// Another process grew the map (`MDB_MAP_RESIZED`): adopt its size and begin again.
    public var isMapResized: Bool { code == MDB_MAP_RESIZED }
    /// No such key or named database (`MDB_NOTFOUND`): an answer, not a failure, to most callers.
    public var isNotFound: Bool { code == MDB_NOTFOUND }

    /// The usual reasons this code comes back, most likely first.
    public var usualCauses: [String] {
        switch code {
        case MDB_MAP_FULL: return ["the memory map is smaller than the data: grow it (Fetchlog does this itself and retries)"]
        case MDB_MAP_RESIZED: return ["another process grew the map: adopt the new size and begin again"]
        case MDB_READERS_FULL: return ["too many open read transactions or processes: close idle readers; stale slots of dead processes are cleared at open"]
        case MDB_INVALID: return ["the file is not an LMDB environment, or it is damaged or truncated"]
        case MDB_VERSION_MISMATCH: return ["the file was written by an incompatible liblmdb version"]
        case MDB_CORRUPTED: return ["a page of the data file is damaged: restore from a `log export`"]
        case MDB_PANIC: return ["a fatal error earlier in this process: restart it"]
        case MDB_DBS_FULL: return ["more named databases were opened than the environment allows (maxdbs)"]
        case MDB_NOTFOUND: return ["the key or named database does not exist"]
        case MDB_KEYEXIST: return ["the key exists already; with MDB_APPEND, the key is not larger than the last one"]
        case MDB_TXN_FULL: return ["one transaction touched too many pages: commit in smaller batches"]
        case MDB_BAD_VALSIZE: return ["a key is empty or longer than the key size limit"]
        case 2 /* ENOENT */: return ["the directory does not exist"]
        case 13 /* EACCES */: return ["no permission to read or write the store directory or its files"]
        case 28 /* ENOSPC */: return ["the disk is full: free space, then retry"]
        case 12 /* ENOMEM */: return ["the map could not be reserved: address space or memory is exhausted"]
        case 11 /* EAGAIN */: return ["the lock file is held in a way that blocks this open (another process using MDB_NOLOCK?)"]
        case 30 /* EROFS */: return ["the file system is read-only"]
        default: return []
        }
    }

    /// One line for a person: the operation, the path, liblmdb's message, the code and the usual causes.
    public var description: String {
        var text = "LMDB \(operation) failed at \(path): \(message) (code \(code))"
        let causes = usualCauses
        if !causes.isEmpty { text += "; usual causes: " + causes.joined(separator: "; ") }
        return text
    }
}

@inline(__always)
func check(_ code: Int32, _ operation: @autoclosure () -> String, _ path: String) throws(LMDBError) {
    if code != 0 { throw LMDBError(code: code, operation: operation(), path: path) }
}
