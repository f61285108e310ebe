import FetchlogLMDB
import Foundation

/// Why a store could not be opened or used. Each case's description names the problem and
/// what to do; the directory's bytes are never changed when opening fails.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    /// The path names a file, not a directory.
    case notADirectory(path: String)
    /// The directory holds files a store never has: it is something else, left as it is.
    case foreignFiles(path: String, names: [String])
    /// `lock.mdb` without `data.mdb`: not a store, or its data file was removed.
    case lockFileWithoutData(path: String)
    /// `data.mdb` is not an LMDB data file.
    case notLMDB(path: String, reason: String)
    /// `data.mdb` is shorter than its own header says it must be.
    case truncatedDataFile(path: String, size: Int, expectedAtLeast: Int)
    /// An LMDB environment of another program: no Fetchlog metadata in it.
    case foreignLMDB(path: String, databases: [String])
    /// Written by a newer Fetchlog, in a store format this build does not read.
    case newerFormat(path: String, found: Int, supported: Int)
    /// The store's metadata record cannot be read.
    case damagedMetadata(path: String, reason: String)
    /// A page LMDB would read is damaged (found by the bounds-checked check at open).
    case damagedFile(path: String, reason: String)
    /// An event's record cannot be read (`reason` says how it is damaged).
    case damagedRecord(seq: UInt64, reason: EnvelopeError)
    /// An event that cannot be stored as it is (a field too long for its record, say).
    case invalidEvent(reason: EnvelopeError)
    /// An import into a store that already holds events.
    case notEmpty(path: String, lastSeq: UInt64)
    /// The store was used after it was closed.
    case closed
    /// LMDB itself refused (a full map, a failed transaction).
    case lmdb(LMDBError)
    /// The store path is a symbolic link to nothing.
    case danglingLink(path: String, target: String)
    /// The path cannot be reached or created (a part of it is a file, no permission).
    case notAccessible(path: String, reason: String)
    /// A write failed because the file system holding the store is full.
    case diskFull(path: String, freeBytes: Int, neededBytes: Int, events: Int)

    /// What happened to the store and what to do about it, as a user reads it.
    public var description: String {
        let text: String
        switch self {
        case .notADirectory(let path):
            text = "\(path) is not a directory, so it cannot be a Fetchlog store"
        case .foreignFiles(let path, let names):
            let shown = names.prefix(5).joined(separator: ", ") + (names.count > 5 ? ", … (\(names.count) in all)" : "")
            text = "\(path) is not a Fetchlog store: it holds files a store never has (\(shown))"
        case .lockFileWithoutData(let path):
            text = "\(path) has lock.mdb but no data.mdb: not a Fetchlog store, or its data file was removed"
        case .notLMDB(let path, let reason):
            text = "\(path)/data.mdb is not an LMDB data file (\(reason))"
        case .truncatedDataFile(let path, let size, let expected):
            text = "\(path)/data.mdb is truncated: \(size) bytes, but its own header needs at least \(expected)"
        case .foreignLMDB(let path, let databases):
            let list = databases.isEmpty ? "no named databases" : "databases " + databases.joined(separator: ", ")
            text = "\(path) is an LMDB environment but not a Fetchlog store (\(list); no Fetchlog metadata)"
        case .newerFormat(let path, let found, let supported):
            text = "\(path) was written by a newer Fetchlog (store format \(found); this build reads up to \(supported))"
        case .damagedMetadata(let path, let reason):
            text = "\(path): the store metadata is damaged (\(reason))"
        case .damagedFile(let path, let reason):
            text = "\(path)/data.mdb is damaged where LMDB would read it: \(reason); the store was not opened"
        case .damagedRecord(let seq, let reason):
            text = "event \(seq) cannot be read: \(reason)"
        case .invalidEvent(let reason):
            text = "the event cannot be stored: \(reason)"
        case .notEmpty(let path, let lastSeq):
            text = "\(path) already holds events 1…\(lastSeq); import only into an empty store"
        case .closed:
            text = "the event log is closed"
        case .lmdb(let error):
            text = error.description
        case .danglingLink(let path, let target):
            text = "\(path) is a symbolic link to \(target), which does not exist"
        case .notAccessible(let path, let reason):
            text = "\(path) cannot be used as a store: \(reason)"
        case .diskFull(let path, let free, let needed, let events):
            text = "the disk holding \(path) is full (\(ByteText.describe(free)) free): the write of \(events) event\(events == 1 ? "" : "s")"
                + " (\(ByteText.describe(needed))) was not committed; every event committed before it is kept"
        }
        return text + ". " + remedy
    }

    /// What to do about it.
    package var remedy: String {
        switch self {
        case .danglingLink:
            "Nothing was changed. Create the link's target directory, or point \(FrontEndTerm.storeLocation) at another directory."
        case .notAccessible:
            "Nothing was changed. Choose a \(FrontEndTerm.storeLocation) path you can create and write."
        case .diskFull(_, _, let needed, _):
            "Free at least \(ByteText.describe(needed * 2)) on that disk (the map grows in steps) and run the command again."
        case .notADirectory, .foreignFiles, .foreignLMDB, .lockFileWithoutData:
            "Nothing was changed. Point \(FrontEndTerm.storeLocationOrEnvironment) at an empty or new directory."
        case .damagedFile:
            "Nothing was changed. `fetchlog log verify` names every damaged page; \(FrontEndTerm.salvage) exports every readable event without LMDB, and `fetchlog log import FILE` takes them into a new \(FrontEndTerm.storeLocation)."
        case .notLMDB, .truncatedDataFile, .damagedMetadata:
            "Nothing was changed. Restore the directory from a backup or a `fetchlog log export`, or use a new \(FrontEndTerm.storeLocation)."
        case .newerFormat:
            "Nothing was changed. Use a newer fetchlog with this store, or another \(FrontEndTerm.storeLocation)."
        case .damagedRecord:
            "Run `fetchlog log verify` to find every damaged event; `log export` of a healthy copy restores it."
        case .invalidEvent:
            "The event was not written."
        case .notEmpty:
            "Use \(FrontEndTerm.storeLocationCode) with a new directory for the import."
        case .closed:
            "Open the store again."
        case .lmdb(let error) where error.code == 28:
            "Free disk space and retry; nothing committed was lost."
        case .lmdb:
            "Nothing committed was lost; see the usual causes above."
        }
    }
}

extension StoreError {
    /// A failed write, named for what it is: LMDB reports a full disk as EIO from its page
    /// flush (or ENOSPC); when the file system holding the store has less room than the
    /// write needed, it is a full disk, said so with what was kept and what to free.
    static func fromWrite(_ error: LMDBError, path: String, bytes: Int, events: Int) -> StoreError {
        guard error.code == EIO || error.code == ENOSPC || error.isMapFull else { return .lmdb(error) }
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return .lmdb(error) }
        let free = Int(info.f_bavail) * Int(info.f_frsize)
        // A write needs its bytes plus room for the B-tree pages it touches.
        guard free < bytes + (1 << 20) else { return .lmdb(error) }
        return .diskFull(path: path, freeBytes: free, neededBytes: max(bytes, 4096), events: events)
    }
}

/// Byte counts for people (`1.5 MiB`), in messages and tables alike.
package enum ByteText {
    package static func describe(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return String(format: "%.1f %@", value, units[unit])
    }
}
