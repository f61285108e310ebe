/// What `log salvage` recovered from a data file.
package struct SalvageReport: Sendable {
    /// Every readable event, in seq order, each seq once.
    package var events: [Event] = []
    /// Seqs from 1 to the highest the store held that could not be read.
    package var lostSeqs: [UInt64] = []
    /// The highest seq the store held, as far as the file tells: the highest readable
    /// event, the last key of the `events` tree (readable record or not) or its count.
    package var highestSeq: UInt64 = 0
    /// Records found but unreadable (bad checksum, undecodable), with why.
    package var unreadable: [(seq: UInt64, reason: String)] = []
    /// True when the B-tree was broken and every page of the file was scanned.
    package var scannedPages = false
    /// The structural problems the layout check found.
    package var problems: [LMDBFileCheck.Problem] = []
}

extension LMDBFileCheck {
    /// Reads every event it can from a store's data file without liblmdb (so a
    /// damaged page cannot crash it) and without writing anything. It walks the
    /// `events` tree; when the tree is broken it also reads every page of the file
    /// that looks like a leaf page (8-byte big-endian seq keys), and keeps each
    /// record whose envelope decodes with a valid CRC and whose seq matches its key.
    package static func salvageEvents(dataFile path: String) -> SalvageReport {
        var report = SalvageReport()
        var found: [UInt64: Event] = [:]
        var bad: [UInt64: String] = [:]
        // Records are decoded once every page has been read: a record may refer to a body
        // (format 2) on a page read later. Bodies check themselves — an entry whose value
        // hashes to its 32-byte key is one, wherever it was found.
        var candidates: [(UInt64, [UInt8])] = []
        var bodies: [[UInt8]: [UInt8]] = [:]
        // What the `events` tree says the store held, whether or not the records read: its
        // keys and its entry count. The log is gap-free from 1, so either names the highest seq.
        var treeKeys: UInt64 = 0, treeEntries: UInt64 = 0
        func take(_ key: [UInt8], _ data: [UInt8]) {
            if key.count == 32, bodies[key] == nil, SHA256.digest(data) == key {
                bodies[key] = data
                return
            }
            guard key.count == 8, !data.isEmpty else { return }
            candidates.append((key.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, data))
        }
        func decodeCandidates() {
            for (seq, data) in candidates where found[seq] == nil {
                do {
                    found[seq] = try data.withUnsafeBytes { try EventLog.decode($0, seq: seq, body: { bodies[Array($0)] }) }
                    bad[seq] = nil
                } catch {
                    bad[seq] = "\(error)"
                }
            }
        }
        let check = check(dataFile: path)
        report.problems = check.problems
        guard let file = File(path: path) else { return report }
        // The meta pages themselves may be what is damaged: fall back to 4096-byte pages.
        let pageSize = check.pageSize > 0 ? check.pageSize : 4096
        let filePages = file.size / UInt64(pageSize)
        let lastPage = check.lastPage > 0 ? check.lastPage : (filePages > 0 ? filePages - 1 : 0)
        if check.pageSize > 0, let meta = readMeta(file, index: check.meta, pageSize: check.meta == 0 ? nil : pageSize).0 {
            var walker = Walker(file: file, pageSize: pageSize, lastPage: lastPage)
            walker.readsBigData = true
            var eventsDB: DB?, bodiesDB: DB?
            walker.walk(database: "main", db: meta.main) { key, data, flags in
                if flags & fSubData != 0, data.count == 48, key == Array("events".utf8) { eventsDB = db(data, 0) }
                if flags & fSubData != 0, data.count == 48, key == Array("bodies".utf8) { bodiesDB = db(data, 0) }
            }
            if let bodiesDB { walker.walk(database: "bodies", db: bodiesDB) { key, data, _ in take(key, data) } }
            if let eventsDB {
                treeEntries = eventsDB.entries
                walker.walk(database: "events", db: eventsDB) { key, data, _ in
                    if key.count == 8 { treeKeys = max(treeKeys, key.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) }
                    take(key, data)
                }
            }
            // Damage LMDB reads around (an overflow page's header) did not stop the walk.
            if eventsDB == nil || walker.problems.contains(where: { !$0.readsSafely }) { report.scannedPages = true }
        } else {
            report.scannedPages = true
        }
        if report.scannedPages && filePages > 2 {
            // Every page is read as if it were a lone leaf page of depth 1; the walker's
            // bounds checks make a page that is not one fail harmlessly.
            for pgno in 2..<filePages {
                var walker = Walker(file: file, pageSize: pageSize, lastPage: filePages - 1)
                walker.readsBigData = true
                walker.visit(pgno, database: "scan", depthLeft: 1) { key, data, flags in
                    if flags & (fSubData | fDupData) == 0 { take(key, data) }
                }
            }
        }
        decodeCandidates()
        report.events = found.keys.sorted().map { found[$0]! }
        // Lost seqs run from 1 to the highest seq the store held: the highest readable one,
        // or what the `events` tree says when its last records are unreadable. A key found
        // by the page scan may be any 8 bytes (another database's key, or garbage), so it
        // does not extend the range; nor does a tree whose count or keys are impossible for
        // the file's size (a record takes at least 44 bytes of a leaf page).
        let plausible = file.size / 44
        let fromTree = max(treeKeys <= plausible ? treeKeys : 0, treeEntries <= plausible ? treeEntries : 0)
        let highest = max(found.keys.max() ?? 0, fromTree)
        report.highestSeq = highest
        if highest > 0 {
            report.lostSeqs = (1...highest).filter { found[$0] == nil }
        }
        bad = bad.filter { $0.key <= highest }
        report.unreadable = bad.keys.sorted().map { ($0, bad[$0]!) }
        return report
    }
}
