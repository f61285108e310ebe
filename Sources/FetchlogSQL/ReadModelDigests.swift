import CFetchlogSupport
import FetchlogCore
import FetchlogSQLite
import Foundation

/// The read model's own check (issue 44): a cache that never lies. Every file under `sql/`
/// is listed in `sql/digests`, written last (after the catalog, before the directory is
/// renamed into place), with its size and CRC-32C, the stamp the files cover, and a CRC-32C
/// of those lines. A reader checks the files it is about to read against it before it
/// answers: a flipped byte, a truncated or deleted file, a digests file that does not check
/// out make the read model not current (`NotCurrent.damaged`), so the one-shot rebuilds it
/// (saying so on stderr) or answers from the store; it never answers from it.
///
/// Cost: CRC-32C runs on the SSE4.2 instruction (`fl_crc32c`, built -O2 in debug builds too),
/// and a one-shot reads the files it checks once more (in the page cache after a build or the
/// previous one-shot): measured on the 2-core machine, 10–14 ms per 100 MB for the CRC alone,
/// 20–35 ms per 100 MB for reading a warm file and checking it (1 MiB reads). A one-shot `sql` checks the
/// catalog, `main.sqlite` and every `source-*.sqlite`; `items` the catalog and
/// `items.sqlite`; a plug-in's command the catalog and `copies.sqlite`; `log verify` every file.
extension ReadModel {
    /// The file listing every file of the read model with its size and CRC-32C.
    package static let digestsName = "digests"
    static let digestsHeader = "fetchlog read model digests 1"

    /// Why the read model cannot answer now.
    package enum NotCurrent: Error, Equatable, Sendable {
        /// There is no `sql/` (never made, or deleted whole): made by the next one-shot.
        case absent
        /// It covers another seq, log, reducer or contract: rebuilt by the next one-shot.
        case behind
        /// A file is missing, of another size, or of another checksum than the digests say
        /// (or the digests themselves are): "main.sqlite: checksum mismatch".
        case damaged(String)

        /// The one line a one-shot says on stderr when it found its read model so (nil when
        /// it was only absent or behind, which is ordinary): `rebuilt` when it wrote it anew,
        /// else the answer came from the store.
        package func note(rebuilt: Bool) -> String? {
            guard case .damaged(let reason) = self else { return nil }
            return "sql: the read model was damaged (\(reason)); " + (rebuilt ? "rebuilt from the log" : "answered from the log")
        }
    }

    /// The files a reader reads, so the ones it checks.
    package enum Reading: Sendable {
        /// SQL: the catalog, `main.sqlite`, every `source-*.sqlite`.
        case sql
        /// One-shot `items`: the catalog and `items.sqlite`.
        case items
        /// A plug-in's one-shot command: the catalog and `copies.sqlite`.
        case copies
        /// Every file (`log verify`).
        case all

        func reads(_ name: String) -> Bool {
            switch self {
            case .sql: name == "catalog.sqlite" || name == "main.sqlite" || name.hasPrefix("source-")
            case .items: name == "catalog.sqlite" || name == ItemsReadModel.fileName
            case .copies: name == "catalog.sqlite" || name == ViewCopiesReadModel.fileName
            case .all: true
            }
        }

        /// The files that must be listed.
        var required: [String] {
            switch self {
            case .sql: ["catalog.sqlite", "main.sqlite"]
            case .items: ["catalog.sqlite", ItemsReadModel.fileName]
            case .copies: ["catalog.sqlite", ViewCopiesReadModel.fileName]
            case .all: ["catalog.sqlite", "main.sqlite", ItemsReadModel.fileName, ViewCopiesReadModel.fileName]
            }
        }
    }

    /// What `sql/digests` says.
    package struct Digests: Equatable, Sendable {
        package struct Entry: Equatable, Sendable {
            package let name: String
            package let size: Int64
            package let crc: UInt32
        }
        package let stamp: Stamp
        package let entries: [Entry]

        func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }

        var text: String {
            var lines = [ReadModel.digestsHeader, "stamp \(stamp.seq) \(stamp.lastRecord) \(stamp.reducer) \(stamp.contract)"]
            lines += entries.map { "file \($0.size) \(String($0.crc, radix: 16)) \($0.name)" }
            let body = lines.joined(separator: "\n") + "\n"
            return body + "check \(String(ReadModel.crc32c(Array(body.utf8)), radix: 16))\n"
        }

        /// The digests in `text`; a reason when they do not check out.
        static func parse(_ text: String) -> Result<Digests, NotCurrent> {
            let damaged = NotCurrent.damaged(ReadModel.digestsName + ": checksum mismatch")
            guard let check = text.range(of: "check ", options: .backwards),
                  check.lowerBound == text.startIndex || text[text.index(before: check.lowerBound)] == "\n" else { return .failure(damaged) }
            let body = String(text[..<check.lowerBound])
            let held = text[check.upperBound...].trimmingCharacters(in: .newlines)
            guard UInt32(held, radix: 16) == ReadModel.crc32c(Array(body.utf8)), text.hasSuffix("\n") else { return .failure(damaged) }
            let lines = body.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            guard lines.first == Substring(ReadModel.digestsHeader), lines.count >= 2 else { return .failure(damaged) }
            let stampWords = lines[lines.startIndex + 1].split(separator: " ")
            guard stampWords.count == 5, stampWords[0] == "stamp", let seq = UInt64(stampWords[1]), let last = UInt32(stampWords[2]),
                  let reducer = Int(stampWords[3]), let contract = Int(stampWords[4]) else { return .failure(damaged) }
            var entries: [Entry] = []
            for line in lines.dropFirst(2) {
                let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard words.count == 4, words[0] == "file", let size = Int64(words[1]), let crc = UInt32(words[2], radix: 16) else { return .failure(damaged) }
                entries.append(Entry(name: String(words[3]), size: size, crc: crc))
            }
            return .success(Digests(stamp: Stamp(seq: seq, lastRecord: last, reducer: reducer, contract: contract), entries: entries))
        }
    }

    /// CRC-32C of `bytes`.
    static func crc32c(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { fl_crc32c(0, $0.baseAddress, $0.count) }
    }

    /// The size and CRC-32C of the file at `path` (read once, 1 MiB at a time); nil when it
    /// does not open or read.
    static func digest(ofFile path: String) -> (size: Int64, crc: UInt32)? {
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 64)
        defer { buffer.deallocate() }
        var crc: UInt32 = 0
        var size: Int64 = 0
        while true {
            let count = read(descriptor, buffer, chunk)
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            crc = fl_crc32c(crc, buffer, count)
            size += Int64(count)
        }
        return (size, crc)
    }

    /// The digests of the read model in `directory`; `.absent` when there is no directory.
    static func readDigests(directory: String) -> Result<Digests, NotCurrent> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else { return .failure(.absent) }
        guard let data = FileManager.default.contents(atPath: directory + "/" + digestsName) else {
            // A read model of an earlier contract has none: behind, not damaged.
            if let catalog = try? SQLiteConnection(path: directory + "/catalog.sqlite", readOnly: true),
               let held = try? readStamp(catalog), held.contract < contract { return .failure(.behind) }
            return .failure(.damaged(digestsName + ": missing"))
        }
        guard let text = String(data: data, encoding: .utf8) else { return .failure(.damaged(digestsName + ": checksum mismatch")) }
        return Digests.parse(text)
    }

    /// Whether file `name` of `directory` is as `digests` lists it; the reason when not.
    static func check(_ name: String, in directory: String, against digests: Digests) -> NotCurrent? {
        guard let entry = digests.entry(name) else { return .damaged(name + ": not in " + digestsName) }
        let path = directory + "/" + name
        guard FileManager.default.fileExists(atPath: path) else { return .damaged(name + ": missing") }
        guard let (size, crc) = digest(ofFile: path) else { return .damaged(name + ": does not read") }
        if size != entry.size { return .damaged("\(name): \(size) bytes, \(entry.size) expected") }
        if crc != entry.crc { return .damaged(name + ": checksum mismatch") }
        return nil
    }

    /// Whether the read model in `directory` may answer for `stamp`, checking the files
    /// `reading` reads against its digests (`log verify` checks `.all`).
    package static func verify(directory: String, stamp: Stamp?, reading: Reading) -> Result<Digests, NotCurrent> {
        let digests: Digests
        switch readDigests(directory: directory) {
        case .failure(let problem): return .failure(problem)
        case .success(let held): digests = held
        }
        if let stamp, digests.stamp != stamp { return .failure(.behind) }
        for name in reading.required where digests.entry(name) == nil { return .failure(.damaged(name + ": not in " + digestsName)) }
        for entry in digests.entries where reading.reads(entry.name) {
            if let problem = check(entry.name, in: directory, against: digests) { return .failure(problem) }
        }
        return .success(digests)
    }

    /// Every problem of the read model of the store at `storePath` against the log's stamp,
    /// file by file (`log verify`): nil when there is none (`sql/` absent is none); "behind"
    /// (another program appended without keeping it) is not damage.
    package static func problems(storePath: String, stamp: Stamp) -> (files: Int, behind: Bool, damaged: [String])? {
        let directory = directory(of: storePath)
        let digests: Digests
        switch readDigests(directory: directory) {
        case .failure(.absent): return nil
        case .failure(.behind): return (0, true, [])
        case .failure(.damaged(let reason)): return (0, false, [reason])
        case .success(let held): digests = held
        }
        var damaged: [String] = []
        for name in Reading.all.required where digests.entry(name) == nil { damaged.append(name + ": not in " + digestsName) }
        for entry in digests.entries {
            if case .damaged(let reason) = check(entry.name, in: directory, against: digests) { damaged.append(reason) }
        }
        let listed = Set(digests.entries.map(\.name)).union([digestsName])
        let present = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in present.sorted() where !listed.contains(name) { damaged.append(name + ": not in " + digestsName) }
        // The catalog's own stamp must be the one the digests hold.
        if !damaged.contains(where: { $0.hasPrefix("catalog.sqlite") }),
           (try? SQLiteConnection(path: directory + "/catalog.sqlite", readOnly: true)).flatMap({ try? readStamp($0) }) != digests.stamp {
            damaged.append("catalog.sqlite: its stamp is not the digests' stamp")
        }
        return (digests.entries.count, digests.stamp != stamp, damaged)
    }

    /// Writes the digests of every file in `directory` (a read model being written), last.
    static func writeDigests(directory: String, stamp: Stamp) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0 != digestsName }.sorted()
        var entries: [Digests.Entry] = []
        for name in names {
            guard let (size, crc) = digest(ofFile: directory + "/" + name) else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: directory + "/" + name])
            }
            entries.append(Digests.Entry(name: name, size: size, crc: crc))
        }
        try createFile(directory + "/" + digestsName, contents: Array(Digests(stamp: stamp, entries: entries).text.utf8))
    }

    /// Writes the digests of the read model of the store at `storePath` anew, for the files as
    /// they are: for tests that change a file on purpose and must not have it taken for damage.
    package static func resealDigests(storePath: String) throws {
        let directory = directory(of: storePath)
        guard case .success(let digests) = readDigests(directory: directory) else { throw CocoaError(.fileReadCorruptFile) }
        try FileManager.default.removeItem(atPath: directory + "/" + digestsName)
        try writeDigests(directory: directory, stamp: digests.stamp)
    }

    // MARK: Modes (the store's) and leftovers

    /// The permission bits of the directory at `path` (the store's: 0700 by default).
    static func mode(ofDirectory path: String) -> mode_t {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0o700 }
        return info.st_mode & 0o777
    }

    /// A directory at `path` with `mode` (not the umask's).
    static func makeDirectory(_ path: String, mode: mode_t) throws {
        guard mkdir(path, mode) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        chmod(path, mode)
    }

    /// Creates the file at `path` (it must not exist) with the mode of its directory less its
    /// execute bits (0600 in a 0700 directory), holding `contents`: a database file made so
    /// before SQLite opens it has the store's modes from its first byte.
    static func createFile(_ path: String, contents: [UInt8] = []) throws {
        let parent = (path as NSString).deletingLastPathComponent
        let mode = mode(ofDirectory: parent) & 0o666
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        fchmod(descriptor, mode)
        var written = 0
        while written < contents.count {
            let count = contents.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            written += count
        }
    }

    /// Gives the file at `path` the mode of its directory less its execute bits.
    static func takeDirectoryMode(_ path: String) {
        chmod(path, mode(ofDirectory: (path as NSString).deletingLastPathComponent) & 0o666)
    }

    /// Removes what killed rebuilds left in the store at `storePath`: each `sql.tmp-PID`
    /// (and `sql.tmp-PID.old`) whose process is gone and whose lock is free. A live writer
    /// holds an exclusive `flock` on its `sql.tmp-PID` for as long as it writes, and its pid
    /// is alive: neither is removed under it. (A dead writer's pid taken by another process
    /// keeps its leftover until that process ends.)
    package static func removeLeftovers(storePath: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: storePath) else { return }
        let own = ProcessInfo.processInfo.processIdentifier
        for name in names where name.hasPrefix(StoreProbe.readModelTemporaryPrefix) {
            var digits = name.dropFirst(StoreProbe.readModelTemporaryPrefix.count)
            if digits.hasSuffix(".old") { digits = digits.dropLast(4) }
            guard let pid = Int32(digits), pid > 0, pid != own else { continue }
            // Alive (or not ours to signal): left alone.
            if kill(pid, 0) == 0 || errno == EPERM { continue }
            let path = storePath + "/" + name
            let descriptor = Foundation.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if descriptor >= 0 {
                defer { close(descriptor) }
                guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }
                try? FileManager.default.removeItem(atPath: path)
            } else {
                // Not a directory (or gone already).
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }

    /// Takes the writer's lock on the directory at `path` (held until `release`): a
    /// `removeLeftovers` elsewhere does not remove it while this process writes it.
    static func lock(_ path: String) -> Int32 {
        let descriptor = Foundation.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 { _ = flock(descriptor, LOCK_EX | LOCK_NB) }
        return descriptor
    }
}
