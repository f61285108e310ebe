#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only check of an LMDB data file's own layout (liblmdb 0.9, 64-bit),
/// run before liblmdb walks it: liblmdb trusts page headers, so a flipped byte
/// in one makes it read out of bounds (SIGSEGV/SIGBUS). This reader uses pread
/// of its own and bounds-checks every offset it follows, so it cannot crash on
/// any file content; what it finds wrong is named by database and page number.
package enum LMDBFileCheck {
    /// One problem: which database, which page, what is wrong.
    package struct Problem: Sendable, Equatable, CustomStringConvertible {
        package let database: String
        package let page: UInt64?
        package let reason: String
        /// True for damage LMDB reads around: a field it never uses to read, such as an
        /// overflow page's own header (LMDB finds the data from the node that names it).
        /// Such a store still opens and reads; a write that frees those pages would not be safe.
        package var readsSafely = false
        package init(database: String, page: UInt64?, reason: String, readsSafely: Bool = false) {
            (self.database, self.page, self.reason, self.readsSafely) = (database, page, reason, readsSafely)
        }
        package var description: String {
            page.map { "\(database) database, page \($0): \(reason)" } ?? "\(database): \(reason)"
        }
    }

    /// What the check found.
    package struct Report: Sendable {
        package var pageSize = 0
        package var lastPage: UInt64 = 0
        package var txnid: UInt64 = 0
        /// Which meta page (0 or 1) LMDB will use.
        package var meta = 0
        /// Notes that are not damage LMDB will trip over (e.g. the older meta page is bad).
        package var notes: [String] = []
        package var problems: [Problem] = []
        package var pagesChecked = 0
        /// The pages each database was found to use (branch, leaf and first overflow pages), in walk order.
        package var pages: [String: [UInt64]] = [:]
        package var isSound: Bool { problems.isEmpty }
        /// The problems that make LMDB read out of bounds or fail (not `readsSafely`).
        package var unsafeProblems: [Problem] { problems.filter { !$0.readsSafely } }
    }

    // Layout constants from lmdb.h / mdb.c (0.9), 64-bit.
    static let pageHeaderSize = 16
    static let nodeHeaderSize = 8
    static let magic: UInt32 = 0xBEEF_C0DE
    static let version: UInt32 = 1
    static let invalidPage = UInt64.max
    static let pBranch: UInt16 = 0x01, pLeaf: UInt16 = 0x02, pOverflow: UInt16 = 0x04,
               pMeta: UInt16 = 0x08, pLeaf2: UInt16 = 0x20, pSubp: UInt16 = 0x40
    static let fBigData: UInt16 = 0x01, fSubData: UInt16 = 0x02, fDupData: UInt16 = 0x04

    /// One MDB_db record (48 bytes).
    package struct DB: Sendable, Equatable {
        package var flags: UInt16 = 0, depth: UInt16 = 0
        package var branchPages: UInt64 = 0, leafPages: UInt64 = 0, overflowPages: UInt64 = 0
        package var entries: UInt64 = 0, root: UInt64 = UInt64.max
    }

    struct Meta {
        var pageSize: Int, free: DB, main: DB, lastPage: UInt64, txnid: UInt64
    }

    /// The file, read with pread; every read is bounds-checked.
    final class File {
        let fd: Int32
        /// The size now, not when the file was opened: another process may be growing the
        /// store, and a meta page read after it committed names pages written after an
        /// earlier look at the size (the check once refused a healthy store that way).
        var size: UInt64 {
            var st = stat()
            return fstat(fd, &st) == 0 ? UInt64(st.st_size) : 0
        }
        init?(path: String) {
            fd = open(path, O_RDONLY)
            if fd < 0 { return nil }
            var st = stat()
            if fstat(fd, &st) != 0 { close(fd); return nil }
        }
        deinit { close(fd) }
        func read(at offset: UInt64, count: Int) -> [UInt8]? {
            let size = self.size
            guard count >= 0, offset <= size, UInt64(count) <= size - offset else { return nil }
            var bytes = [UInt8](repeating: 0, count: count)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n == count ? bytes : nil
        }
    }

    static func u16(_ b: [UInt8], _ o: Int) -> UInt16 { UInt16(b[o]) | UInt16(b[o + 1]) << 8 }
    static func u32(_ b: [UInt8], _ o: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(b[o + $1]) << (8 * UInt32($1)) } }
    static func u64(_ b: [UInt8], _ o: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[o + $1]) << (8 * UInt64($1)) } }

    static func db(_ b: [UInt8], _ o: Int) -> DB {
        DB(flags: u16(b, o + 4), depth: u16(b, o + 6), branchPages: u64(b, o + 8), leafPages: u64(b, o + 16),
           overflowPages: u64(b, o + 24), entries: u64(b, o + 32), root: u64(b, o + 40))
    }

    /// Reads meta page `index` (0 at offset 0, 1 at offset page size); nil and a reason when it is not valid.
    static func readMeta(_ file: File, index: Int, pageSize: Int?) -> (Meta?, String?) {
        let offset = UInt64(index * (pageSize ?? 0))
        guard let b = file.read(at: offset, count: pageHeaderSize + 136) else { return (nil, "meta page \(index) is beyond the end of the file") }
        guard u32(b, 16) == magic else { return (nil, "meta page \(index) has a bad magic number") }
        guard u32(b, 20) == version else { return (nil, "meta page \(index) has version \(u32(b, 20)), not 1") }
        guard u16(b, 10) & pMeta != 0 else { return (nil, "meta page \(index) is not flagged as a meta page") }
        let free = db(b, 16 + 24), main = db(b, 16 + 72)
        let psize = Int(u32(b, 16 + 24))  // md_pad of the free DB holds the page size
        guard psize >= 512, psize <= 65536, psize & (psize - 1) == 0 else { return (nil, "meta page \(index) names an impossible page size \(psize)") }
        if let pageSize, pageSize != psize { return (nil, "meta page \(index) names page size \(psize), meta page 0 says \(pageSize)") }
        let lastPage = u64(b, 16 + 120), txnid = u64(b, 16 + 128)
        // From here on LMDB itself would accept the page (it checks only magic and
        // version) and pick it by txnid, so a meta is returned with what is wrong.
        let meta = Meta(pageSize: psize, free: free, main: main, lastPage: lastPage, txnid: txnid)
        guard lastPage >= 1 else { return (meta, "meta page \(index) names last page \(lastPage)") }
        let filePages = file.size / UInt64(psize)
        guard lastPage < filePages else {
            return (meta, "meta page \(index) names last page \(lastPage), but the file holds only \(filePages) pages")
        }
        for (name, d) in [("free", free), ("main", main)] where d.root != invalidPage {
            guard d.root >= 2, d.root <= lastPage else { return (meta, "meta page \(index): the \(name) database's root page \(d.root) is outside 2…\(lastPage)") }
        }
        return (meta, nil)
    }

    /// Checks the data file at `path` (a store's data.mdb). Never touches liblmdb.
    package static func check(dataFile path: String) -> Report {
        var report = Report()
        guard let file = File(path: path) else {
            report.problems.append(Problem(database: "file", page: nil, reason: "cannot open \(path) (\(String(cString: strerror(errno))))"))
            return report
        }
        let (m0, why0) = readMeta(file, index: 0, pageSize: nil)
        let (m1, why1) = readMeta(file, index: 1, pageSize: m0?.pageSize ?? 4096)
        // LMDB refuses a file whose either meta page has a bad magic or version
        // (an error, not a crash), and otherwise uses the one with the higher txnid.
        guard let m0, let m1 else {
            if m0 == nil { report.problems.append(Problem(database: "meta", page: 0, reason: why0 ?? "invalid")) }
            if m1 == nil { report.problems.append(Problem(database: "meta", page: 1, reason: why1 ?? "invalid")) }
            return report
        }
        let useOne = m1.txnid > m0.txnid
        let chosen = useOne ? m1 : m0
        report.meta = useOne ? 1 : 0
        let (chosenWhy, otherWhy) = useOne ? (why1, why0) : (why0, why1)
        if let chosenWhy {
            report.problems.append(Problem(database: "meta", page: UInt64(report.meta), reason: chosenWhy + " (LMDB would use this meta page: it has the newer txnid \(chosen.txnid))"))
            return report
        }
        if let otherWhy {
            report.notes.append("\(otherWhy); harmless for now: LMDB uses meta page \(report.meta) (txn \(chosen.txnid)), and the next commit rewrites the bad one")
        }
        report.pageSize = chosen.pageSize
        report.lastPage = chosen.lastPage
        report.txnid = chosen.txnid
        var walker = Walker(file: file, pageSize: chosen.pageSize, lastPage: chosen.lastPage)
        // LMDB reads the free-page database on every write, so it is checked like the others.
        walker.walk(database: "free", db: chosen.free) { _, _, _ in }
        for (name, d) in walker.subDatabases(chosen.main) { walker.walk(database: name, db: d) { _, _, _ in } }
        report.problems += walker.problems
        report.pagesChecked = walker.visited.count
        report.pages = walker.pagesOf
        return report
    }

    struct Walker {
        let file: File
        let pageSize: Int
        let lastPage: UInt64
        var visited: Set<UInt64> = []
        var problems: [Problem] = []
        /// Salvage wants the records in overflow pages; verify needs only their headers.
        var readsBigData = false
        /// Branch and leaf pages read so far; `visit` stops (silently) at `pageBudget`.
        var pagesRead = 0
        var pageBudget = Int.max
        /// Every page read, by database (for `Report.pages`).
        var pagesOf: [String: [UInt64]] = [:]

        /// Walks the main database and returns the databases it names, in its order.
        mutating func subDatabases(_ main: DB) -> [(String, DB)] {
            var subs: [(String, DB)] = []
            walk(database: "main", db: main) { key, data, flags in
                guard flags & LMDBFileCheck.fSubData != 0, data.count == 48 else { return }
                subs.append((String(decoding: key, as: UTF8.self), LMDBFileCheck.db(data, 0)))
            }
            return subs
        }

        /// Reads a page after checking its number is possible.
        mutating func page(_ pgno: UInt64, _ database: String, count: Int = 1) -> [UInt8]? {
            guard pgno >= 2, pgno <= lastPage else {
                problems.append(Problem(database: database, page: pgno, reason: "page number outside 2…\(lastPage) (the last page in use)"))
                return nil
            }
            guard let b = file.read(at: pgno * UInt64(pageSize), count: pageSize * count) else {
                problems.append(Problem(database: database, page: pgno, reason: "beyond the end of the file"))
                return nil
            }
            return b
        }

        mutating func walk(database: String, db: DB, leaf: (_ key: [UInt8], _ data: [UInt8], _ flags: UInt16) -> Void) {
            guard db.root != LMDBFileCheck.invalidPage else { return }  // an empty database
            visit(db.root, database: database, depthLeft: Int(db.depth), leaf: leaf)
        }

        mutating func bad(_ database: String, _ pgno: UInt64, _ reason: String) {
            problems.append(Problem(database: database, page: pgno, reason: reason))
        }

        /// `recurse: false` checks this one page (and the overflow headers its nodes name) only.
        mutating func visit(_ pgno: UInt64, database: String, depthLeft: Int, recurse: Bool = true,
                            leaf: (_ key: [UInt8], _ data: [UInt8], _ flags: UInt16) -> Void) {
            guard problems.count < 100, pagesRead < pageBudget else { return }
            guard depthLeft >= 1 else { return bad(database, pgno, "the tree is deeper than its recorded depth") }
            pagesRead += 1
            guard let b = page(pgno, database) else { return }
            guard !visited.contains(pgno) else { return bad(database, pgno, "page reached twice (a cycle or shared page)") }
            visited.insert(pgno)
            pagesOf[database, default: []].append(pgno)
            let hs = LMDBFileCheck.pageHeaderSize
            let own = LMDBFileCheck.u64(b, 0)
            guard own == pgno else { return bad(database, pgno, "page header says it is page \(own)") }
            let flags = LMDBFileCheck.u16(b, 10)
            let lower = Int(LMDBFileCheck.u16(b, 12)), upper = Int(LMDBFileCheck.u16(b, 14))
            let type = flags & ~UInt16(0x8000 | 0x4000 | 0x10)  // P_DIRTY/P_KEEP/P_LOOSE are transient bits
            let isBranch = type == LMDBFileCheck.pBranch, isLeaf = type == LMDBFileCheck.pLeaf || type == LMDBFileCheck.pLeaf | LMDBFileCheck.pLeaf2
            guard isBranch || isLeaf else { return bad(database, pgno, "page type flags 0x\(String(flags, radix: 16)) are not a branch or leaf page") }
            guard lower >= hs, upper <= pageSize, lower <= upper, (lower - hs) % 2 == 0 else {
                return bad(database, pgno, "free-space bounds lower \(lower), upper \(upper) are impossible in a \(pageSize)-byte page")
            }
            let count = (lower - hs) / 2
            guard count >= 1 else { return bad(database, pgno, "a \(isBranch ? "branch" : "leaf") page with no nodes") }
            if isBranch && depthLeft == 1 { return bad(database, pgno, "a branch page where the recorded depth needs a leaf") }
            if isLeaf && depthLeft != 1 { return bad(database, pgno, "a leaf page at depth \(depthLeft) levels above the bottom") }
            if type & LMDBFileCheck.pLeaf2 != 0 { return }  // fixed-size keys (not used by Fetchlog): nothing more to follow
            var children: [UInt64] = []
            for i in 0..<count {
                let offset = Int(LMDBFileCheck.u16(b, hs + 2 * i))
                guard offset >= upper, offset + LMDBFileCheck.nodeHeaderSize <= pageSize else {
                    return bad(database, pgno, "node \(i) offset \(offset) is outside \(upper)…\(pageSize - LMDBFileCheck.nodeHeaderSize)")
                }
                let lo = UInt64(LMDBFileCheck.u16(b, offset)), hi = UInt64(LMDBFileCheck.u16(b, offset + 2))
                let nflags = LMDBFileCheck.u16(b, offset + 4), ksize = Int(LMDBFileCheck.u16(b, offset + 6))
                let keyStart = offset + LMDBFileCheck.nodeHeaderSize
                guard keyStart + ksize <= pageSize else { return bad(database, pgno, "node \(i) key of \(ksize) bytes runs past the page") }
                if isBranch {
                    children.append(lo | hi << 16 | UInt64(nflags) << 32)
                    continue
                }
                let dsize = Int(lo | hi << 16)
                let key = Array(b[keyStart..<keyStart + ksize])
                if nflags & LMDBFileCheck.fBigData != 0 {
                    guard keyStart + ksize + 8 <= pageSize else { return bad(database, pgno, "node \(i) overflow page number runs past the page") }
                    let opg = LMDBFileCheck.u64(b, keyStart + ksize)
                    let needed = UInt64((dsize + LMDBFileCheck.pageHeaderSize + pageSize - 1) / pageSize)
                    guard opg >= 2, opg <= lastPage, needed <= lastPage - opg + 1 else {
                        return bad(database, pgno, "node \(i) names overflow page \(opg) for \(dsize) bytes, outside 2…\(lastPage)")
                    }
                    guard let head = file.read(at: opg * UInt64(pageSize), count: LMDBFileCheck.pageHeaderSize) else {
                        return bad(database, opg, "overflow page beyond the end of the file")
                    }
                    var pages = UInt64(LMDBFileCheck.u32(head, 12))
                    if LMDBFileCheck.u64(head, 0) != opg || LMDBFileCheck.u16(head, 10) & ~UInt16(0xC010) != LMDBFileCheck.pOverflow
                        || pages < needed || pages > lastPage - opg + 1 {
                        // LMDB reads an overflow record from the node alone (its page number,
                        // checked above, and its size): the header is used only when the pages
                        // are freed. So the data is still read (salvage checks it by CRC or
                        // SHA-256), the walk goes on, and the damage is named as what it is.
                        problems.append(Problem(
                            database: database, page: opg,
                            reason: "overflow page header (from page \(pgno) node \(i)) is damaged: says page \(LMDBFileCheck.u64(head, 0)), flags 0x\(String(LMDBFileCheck.u16(head, 10), radix: 16)), \(pages) pages (the record it holds, \(dsize) bytes from page \(opg), is read without this header)",
                            readsSafely: true))
                        pages = needed
                    }
                    pagesOf[database, default: []].append(opg)
                    for p in opg..<opg + pages {
                        if visited.contains(p) { return bad(database, p, "overflow page reached twice") }
                        visited.insert(p)
                    }
                    var data: [UInt8] = []
                    if readsBigData, let bytes = file.read(at: opg * UInt64(pageSize) + UInt64(LMDBFileCheck.pageHeaderSize), count: dsize) { data = bytes }
                    leaf(key, data, nflags)
                } else {
                    guard keyStart + ksize + dsize <= pageSize else { return bad(database, pgno, "node \(i) data of \(dsize) bytes runs past the page") }
                    if nflags & (LMDBFileCheck.fSubData | LMDBFileCheck.fDupData) == LMDBFileCheck.fDupData {
                        return bad(database, pgno, "node \(i) holds duplicate data, which Fetchlog never writes")
                    }
                    leaf(key, Array(b[keyStart + ksize..<keyStart + ksize + dsize]), nflags)
                }
            }
            guard recurse else { return }
            for child in children { visit(child, database: database, depthLeft: depthLeft - 1, leaf: leaf) }
        }
    }
}

extension LMDBFileCheck {
    /// How many branch and leaf pages an open reads at most beyond the root pages
    /// (32 MiB of 4 KiB pages): a small store is checked whole at every open, a large one
    /// its metadata, the root page of every database and then as much as this allows
    /// (`log verify` checks everything).
    package static let openPageBudget = 8192

    /// The part of the check every store open runs: the meta page LMDB will use (the valid
    /// one with the newer txnid) must name a possible last page and roots; then the main
    /// database and Fetchlog's `meta` database (both read by the open itself), the root
    /// page of every other database (`events`, `bodies`, `checkpoints`, `origins`, `outbox`,
    /// the free-page list: what commands read next), and then those trees in full up to
    /// `openPageBudget` pages, must have sound page headers. Returns the first problem that
    /// would make LMDB read out of bounds, or nil: damage LMDB reads around (an overflow
    /// page's own header) leaves the store readable and is `log verify`'s to name. When
    /// only the older meta page is bad LMDB uses the good one, so that is not an error
    /// here (`log verify` says it as a note).
    package static func checkForOpen(dataFile path: String) -> Problem? {
        guard let file = File(path: path) else { return nil }  // the probe reports unreadable files itself
        // This reader holds no LMDB reader slot, so a writer in another process may reuse
        // pages of the snapshot it walks once a commit after it has freed them: a problem
        // is damage only when it was found with no commit during the walk (copy-on-write
        // leaves every page of the snapshot as it was until then). Real damage stays put,
        // so it is found again; a live writer that never pauses for eight walks in a row
        // is a store LMDB is reading and writing right now, and the open goes ahead.
        for _ in 0 ..< 8 {
            let (problem, txnid) = checkForOpenOnce(file)
            guard let problem, let txnid else { return problem }
            if newestTxnid(file) == txnid { return problem }
        }
        return nil
    }

    /// The newer of the two meta pages' txnids (0 when neither reads).
    static func newestTxnid(_ file: File) -> UInt64 {
        let m0 = readMeta(file, index: 0, pageSize: nil).0
        let m1 = readMeta(file, index: 1, pageSize: m0?.pageSize ?? 4096).0
        return max(m0?.txnid ?? 0, m1?.txnid ?? 0)
    }

    /// One pass of `checkForOpen`: the problem and the txnid of the snapshot walked (nil
    /// for a problem of the meta pages themselves).
    static func checkForOpenOnce(_ file: File) -> (Problem?, UInt64?) {
        let (m0, why0) = readMeta(file, index: 0, pageSize: nil)
        guard let m0 else { return (why0.map { Problem(database: "meta", page: 0, reason: $0) }, nil) }
        let (m1, why1) = readMeta(file, index: 1, pageSize: m0.pageSize)
        guard let m1 else { return (why1.map { Problem(database: "meta", page: 1, reason: $0) }, nil) }
        let useOne = m1.txnid > m0.txnid
        let chosen = useOne ? m1 : m0
        if let why = useOne ? why1 : why0 {
            return (Problem(database: "meta", page: useOne ? 1 : 0, reason: why + " (LMDB would use this meta page: it has the newer txnid \(chosen.txnid))"), nil)
        }
        return (walkForOpen(file, chosen), chosen.txnid)
    }

    static func walkForOpen(_ file: File, _ chosen: Meta) -> Problem? {
        var walker = Walker(file: file, pageSize: chosen.pageSize, lastPage: chosen.lastPage)
        let subs = [("free", chosen.free)] + walker.subDatabases(chosen.main)
        if let metaDB = subs.first(where: { $0.0 == "meta" })?.1 { walker.walk(database: "meta", db: metaDB) { _, _, _ in } }
        if let problem = walker.problems.first(where: { !$0.readsSafely }) { return problem }
        // Each root page on its own (a walker of its own, so the full walk below does not
        // see it as reached twice): whatever the budget, every database's first page is sound.
        for (name, d) in subs where d.root != invalidPage && name != "meta" {
            var roots = Walker(file: file, pageSize: chosen.pageSize, lastPage: chosen.lastPage)
            roots.visit(d.root, database: name, depthLeft: Int(d.depth), recurse: false) { _, _, _ in }
            if let problem = roots.problems.first(where: { !$0.readsSafely }) { return problem }
        }
        walker.pageBudget = walker.pagesRead + openPageBudget
        for (name, d) in subs where name != "meta" { walker.walk(database: name, db: d) { _, _, _ in } }
        return walker.problems.first { !$0.readsSafely }
    }
}
