import FetchlogCore
import FetchlogSQLite
import Foundation

/// The SQL read model (issue 35): the head's tables written to SQLite files in the store
/// directory (`sql/`), stamped with what they cover — the log's last seq, a checksum of its
/// last record, the reducer and this contract's version — so a one-shot `fetchlog sql`
/// answers from them without folding the log or decoding a body, as `sqlite3 FILE` does.
///
/// Derived, as checkpoints are: deleting it loses nothing; a store without it, one behind the
/// log, or one that does not open is rebuilt from the store (the next one-shot that finds it
/// so writes it anew). It is written whole into `sql.tmp-PID` and renamed into place, so a
/// reader sees an old one or a new one, never half of one.
///
/// Files: `catalog.sqlite` (the stamp and the names: views, resources, saved views),
/// `main.sqlite` (the views and `events`), `source-NAME.sqlite` per manifest source (its
/// resources, attached as schema NAME when a query names it), `items.sqlite` (each resource's
/// items and search, for a one-shot `items`: `ItemsReadModel`), `copies.sqlite` (what
/// plug-in views keep for their one-shot commands: `ViewCopiesReadModel`).
package enum ReadModel {
    /// The version of the table contract the files hold; a change rebuilds them.
    /// 2: `items.sqlite` (each resource's items and search bytes, for one-shot `items`).
    /// 3: `copies.sqlite` (what plug-in views keep for their one-shot commands).
    /// 4: `digests` (each file's size and CRC-32C, checked before a file is read: issue 44).
    package static let contract = 4

    /// What a read model must match to answer for the log as it is.
    package struct Stamp: Equatable, Sendable {
        package let seq: UInt64
        /// CRC-32C of the last record's stored bytes: a log rewritten under the same seq
        /// (compaction, salvage, a log put in its place) no longer matches.
        package let lastRecord: UInt32
        package let reducer: Int
        package let contract: Int
    }

    /// The log's stamp now (or as of `seq`): one read of its last record.
    package static func stamp(of store: StoreMaintenance, at seq: UInt64? = nil) throws -> Stamp {
        let record = try store.recordStamp(at: seq)
        return Stamp(seq: record.seq, lastRecord: record.checksum, reducer: LogState.reducerVersion, contract: contract)
    }

    /// The directory of the read model of the store at `storePath`.
    package static func directory(of storePath: String) -> String { storePath + "/" + StoreProbe.readModelName }

    /// The file of `source`'s resources, or of the views and events (nil).
    package static func file(of source: String?, in directory: String) -> String {
        directory + "/" + (source.map { "source-" + $0 } ?? "main") + ".sqlite"
    }

    /// Whether the read model of the store at `storePath` matches `stamp`.
    package static func isCurrent(storePath: String, stamp: Stamp) -> Bool {
        isCurrent(directory: directory(of: storePath), stamp: stamp)
    }

    /// Whether the read model in `directory` matches `stamp` (its digests say so; its files
    /// are checked by the reader that reads them).
    static func isCurrent(directory: String, stamp: Stamp) -> Bool {
        guard case .success(let digests) = readDigests(directory: directory) else { return false }
        return digests.stamp == stamp
    }

    /// The read model's tables when it matches `stamp`; nil when it is absent, behind, of
    /// another contract or reducer, damaged, or does not open.
    package static func open(storePath: String, stamp: Stamp) -> SQLSubject? {
        try? opening(storePath: storePath, stamp: stamp).get()
    }

    /// The read model's tables when it matches `stamp` and the files SQL reads (the catalog,
    /// `main.sqlite`, every `source-*.sqlite`) are as its digests say; else why not. The
    /// leftovers of killed rebuilds are removed first.
    package static func opening(storePath: String, stamp: Stamp) -> Result<SQLSubject, NotCurrent> {
        removeLeftovers(storePath: storePath)
        let directory = directory(of: storePath)
        if case .failure(let problem) = verify(directory: directory, stamp: stamp, reading: .sql) { return .failure(problem) }
        guard let catalog = try? SQLiteConnection(path: directory + "/catalog.sqlite", readOnly: true),
              let held = try? readStamp(catalog), held == stamp else { return .failure(.damaged("catalog.sqlite: does not read")) }
        do {
            var views: [String] = []
            var resources: [(source: String, resources: [String])] = []
            var saved: [SavedView] = []
            let names = try catalog.prepare("SELECT kind, source, name, sql, seq FROM names ORDER BY position")
            while try names.step() {
                guard case .text(let kind) = names.value(at: 0), case .text(let name) = names.value(at: 2) else { continue }
                switch kind {
                case "view": views.append(name)
                case "resource":
                    guard case .text(let source) = names.value(at: 1) else { continue }
                    if resources.last?.source == source { resources[resources.count - 1].resources.append(name) } else { resources.append((source, [name])) }
                case "saved":
                    guard case .text(let sql) = names.value(at: 3), case .integer(let seq) = names.value(at: 4) else { continue }
                    saved.append(SavedView(name: name, sql: sql, seq: UInt64(seq)))
                default: continue
                }
            }
            return .success(SQLSubject(seq: stamp.seq, viewNames: views, resources: resources, savedViews: saved))
        } catch {
            return .failure(.damaged("catalog.sqlite: does not read"))
        }
    }

    static func readStamp(_ catalog: SQLiteConnection) throws -> Stamp? {
        let statement = try catalog.prepare("SELECT seq, lastRecord, reducer, contract FROM stamp")
        guard try statement.step(), case .integer(let seq) = statement.value(at: 0), case .integer(let crc) = statement.value(at: 1),
              case .integer(let reducer) = statement.value(at: 2), case .integer(let contract) = statement.value(at: 3) else { return nil }
        return Stamp(seq: UInt64(seq), lastRecord: UInt32(truncatingIfNeeded: crc), reducer: Int(reducer), contract: Int(contract))
    }

    /// What each part of a read model was made from, so the next one copies a part whose
    /// inputs did not move instead of building it: per fixed view (`view:NAME`) and per
    /// manifest source (`source:NAME`, its file and its items), a key made of the seqs of the
    /// last events of the sources it reads. A part without a key is always built.
    package struct Keys: Sendable, Equatable {
        package var parts: [String: String] = [:]

        /// The keys of `state`'s parts, from `lastSeq` (each source's last event, by seq).
        package static func of(_ state: LogState, lastSeq: [String: UInt64]) -> Keys {
            var keys = Keys()
            func seqs(_ sources: [String]) -> String { sources.sorted().map { "\($0)=\(lastSeq[$0] ?? 0)" }.joined(separator: ";") }
            for name in SQLTables.viewNames(in: state) {
                // `status` reads every source's fetches: no key, always built (a few rows).
                guard let inputs = ViewCatalog.inputs(of: name, in: state.sources) else { continue }
                keys.parts["view:" + name] = seqs(Array(inputs))
            }
            for (source, _) in SQLTables.resources(in: state) {
                // Its items read its definition, the images downloaded for it, and its held
                // pages: named by the seqs that hold them, so a revalidation (a 304, which
                // changes no page) leaves them as they were. Writes (their overlay follows
                // every answer) and `replace` resources (which read the last attempt of each
                // page) are keyed by the source's last event instead.
                let definition = state.manifests[source]?.seq ?? 0
                let prefix = "defined=\(definition);" + seqs([Source.assets.rawValue]) + ";"
                let hasWrites = state.writes.mutations.values.contains { $0.source == source }
                    || state.writes.confirmed.keys.contains { $0.hasPrefix(source + "/") }
                let replaces = state.manifests[source]?.manifest.resources.contains { $0.writeDisposition == .replace } ?? false
                if hasWrites || replaces {
                    keys.parts["source:" + source] = prefix + seqs([source])
                } else {
                    let held = state.documents.filter { $0.key.source == source }.map { "\($0.key.path)@\($0.value.seq)" }.sorted()
                    keys.parts["source:" + source] = prefix + "pages=" + String(ItemsSegments.hash(held.joined(separator: "\n")), radix: 16) + "/\(held.count)"
                }
            }
            return keys
        }
    }

    /// Writes the read model of `state` (the head, with pending changes folded) and `events`
    /// (the log's summaries up to the state's seq), stamped `stamp`, replacing the one there.
    /// With `keys`, a part whose key the read model there recorded too is copied from it
    /// (SQLite to SQLite, no view built) unless `reusing` is false; every part is recorded
    /// with its key.
    package static func write(state: LogState, events: [JSONValue], stamp: Stamp, storePath: String, keys: Keys? = nil,
                              reusing: Bool = true) throws {
        let fm = FileManager.default
        let final = directory(of: storePath)
        let temporary = storePath + "/" + StoreProbe.readModelTemporaryPrefix + String(ProcessInfo.processInfo.processIdentifier)
        // What killed rebuilds left (issue 44), and this process's own from a write that failed.
        removeLeftovers(storePath: storePath)
        try? fm.removeItem(atPath: temporary)
        // The store's modes (0700: its files 0600) from the start, and this writer's lock on it
        // while it writes (`removeLeftovers` in another process leaves it alone).
        try makeDirectory(temporary, mode: mode(ofDirectory: storePath))
        let lock = Self.lock(temporary)
        defer { if lock >= 0 { close(lock) } }
        // What the read model there holds and may give: only one of this contract and reducer,
        // and of its files only those its digests vouch for (a damaged part is made anew).
        let prior = keys == nil || !reusing ? nil : Prior(directory: final, stamp: stamp)
        func reusable(_ part: String) -> Bool {
            guard let key = keys?.parts[part], let prior, prior.keys[part] == key else { return false }
            if part.hasPrefix("view:") { return prior.intact("main.sqlite") }
            return true
        }
        do {
            var names: [(kind: String, source: String?, name: String, sql: String?, seq: UInt64?)] = []
            try fill(file(of: nil, in: temporary)) { connection in
                var attached = false
                for name in SQLTables.viewNames(in: state) {
                    if reusable("view:" + name), let prior {
                        if !attached {
                            try connection.execute("ATTACH DATABASE \(SQLEngine.literal(file(of: nil, in: prior.directory))) AS prior")
                            attached = true
                        }
                        if try copyTable(name, from: "prior", into: connection) {
                            names.append(("view", nil, name, nil, nil))
                            continue
                        }
                    }
                    guard let table = SQLTables.viewTable(name, state: state) else { continue }
                    try SQLEngine.write(table, into: connection)
                    names.append(("view", nil, name, nil, nil))
                }
                if attached { try connection.execute("DETACH DATABASE prior") }
                try SQLEngine.write(SQLTables.eventsTable(events), into: connection)
            }
            var reusedSources: Set<String> = []
            for (source, resources) in SQLTables.resources(in: state) {
                let path = file(of: source, in: temporary)
                if reusable("source:" + source), let prior, prior.intact((file(of: source, in: prior.directory) as NSString).lastPathComponent) {
                    try fm.copyItem(atPath: file(of: source, in: prior.directory), toPath: path)
                    takeDirectoryMode(path)
                    names += prior.resources(of: source).map { ("resource", source, $0, nil, nil) }
                    reusedSources.insert(source)
                    continue
                }
                try fill(path) { connection in
                    for resource in resources {
                        guard let table = SQLTables.resourceTable(source: source, resource: resource, state: state, confirmedOnly: false) else { continue }
                        // Written in the file's own main schema; attached later as SOURCE.
                        try SQLEngine.write(SQLTable(schema: "main", name: table.name, columns: table.columns, rows: table.rows), into: connection)
                        names.append(("resource", source, resource, nil, nil))
                    }
                }
            }
            let itemsIntact = prior?.intact(ItemsReadModel.fileName) == true
            try ItemsReadModel.write(state: state, to: temporary + "/" + ItemsReadModel.fileName,
                                     reusing: itemsIntact ? reusedSources : [], from: prior.map { $0.directory + "/" + ItemsReadModel.fileName })
            let copiesIntact = prior?.intact(ViewCopiesReadModel.fileName) == true
            let copiedViews = !copiesIntact ? [] : Set(state.sources.views.filter {
                guard $0.copy != nil, let key = keys?.parts["view:" + $0.name] else { return false }
                return prior?.keys["view:" + $0.name] == key
            }.map(\.name))
            try ViewCopiesReadModel.write(state: state, to: temporary + "/" + ViewCopiesReadModel.fileName,
                                          reusing: copiedViews, from: prior.map { $0.directory + "/" + ViewCopiesReadModel.fileName })
            for view in state.savedViews.values.sorted(by: { $0.name < $1.name }) { names.append(("saved", nil, view.name, view.sql, view.seq)) }
            // The catalog last: a directory without it is never read.
            try fill(temporary + "/catalog.sqlite") { connection in
                try connection.execute("CREATE TABLE stamp (seq INTEGER, lastRecord INTEGER, reducer INTEGER, contract INTEGER)")
                let insert = try connection.prepare("INSERT INTO stamp VALUES (?, ?, ?, ?)")
                try insert.bind([.integer(Int64(stamp.seq)), .integer(Int64(stamp.lastRecord)), .integer(Int64(stamp.reducer)), .integer(Int64(stamp.contract))])
                try insert.run()
                try connection.execute("CREATE TABLE names (position INTEGER, kind TEXT, source TEXT, name TEXT, sql TEXT, seq INTEGER)")
                let row = try connection.prepare("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?)")
                for (position, entry) in names.enumerated() {
                    try row.bind([.integer(Int64(position)), .text(entry.kind), entry.source.map(SQLiteValue.text) ?? .null, .text(entry.name),
                                  entry.sql.map(SQLiteValue.text) ?? .null, entry.seq.map { .integer(Int64($0)) } ?? .null])
                    try row.run()
                }
                try connection.execute("CREATE TABLE keys (part TEXT PRIMARY KEY, key TEXT)")
                let key = try connection.prepare("INSERT INTO keys VALUES (?, ?)")
                for (part, value) in (keys?.parts ?? [:]).sorted(by: { $0.key < $1.key }) {
                    try key.bind([.text(part), .text(value)])
                    try key.run()
                }
            }
            // Last: what every file is, so a reader knows a damaged one (issue 44).
            try writeDigests(directory: temporary, stamp: stamp)
            // Swapped in: the old one out of the way first (rename cannot replace a directory
            // that holds files), then the new one in. A reader between the two finds none
            // and answers from the store.
            let retired = temporary + ".old"
            if fm.fileExists(atPath: final) { try? fm.moveItem(atPath: final, toPath: retired) }
            try fm.moveItem(atPath: temporary, toPath: final)
            try? fm.removeItem(atPath: retired)
        } catch {
            try? fm.removeItem(atPath: temporary)
            throw error
        }
    }

    /// Table `name` of the attached database `schema` made again in `connection`'s main one:
    /// its own definition (declared types kept), then its rows. False when it is not there.
    private static func copyTable(_ name: String, from schema: String, into connection: SQLiteConnection) throws -> Bool {
        let definition = try connection.prepare("SELECT sql FROM \(schema).sqlite_master WHERE type = 'table' AND name = ?")
        try definition.bind([.text(name)])
        guard try definition.step(), case .text(let sql) = definition.value(at: 0) else { return false }
        try connection.execute("BEGIN")
        do {
            try connection.execute(sql)
            try connection.execute("INSERT INTO main.\(SQLEngine.quote(name)) SELECT * FROM \(schema).\(SQLEngine.quote(name))")
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        return true
    }

    /// The read model a new one may copy parts of: its directory, the keys its parts were
    /// made with, its catalog's resources. Only one of this contract and reducer (its seq may
    /// be behind: that is when it is asked).
    final class Prior {
        let directory: String
        let keys: [String: String]
        private let names: [(kind: String, source: String?, name: String)]
        private let digests: Digests
        private var checked: [String: Bool] = [:]

        init?(directory: String, stamp: Stamp) {
            // Its catalog as its digests say (else nothing of it is trusted).
            guard case .success(let digests) = ReadModel.readDigests(directory: directory),
                  ReadModel.check("catalog.sqlite", in: directory, against: digests) == nil,
                  let catalog = try? SQLiteConnection(path: directory + "/catalog.sqlite", readOnly: true),
                  let held = try? ReadModel.readStamp(catalog), held.reducer == stamp.reducer, held.contract == stamp.contract,
                  let keyRows = try? catalog.prepare("SELECT part, key FROM keys"),
                  let nameRows = try? catalog.prepare("SELECT kind, source, name FROM names ORDER BY position") else { return nil }
            var keys: [String: String] = [:]
            while (try? keyRows.step()) == true {
                if case .text(let part) = keyRows.value(at: 0), case .text(let key) = keyRows.value(at: 1) { keys[part] = key }
            }
            var names: [(kind: String, source: String?, name: String)] = []
            while (try? nameRows.step()) == true {
                guard case .text(let kind) = nameRows.value(at: 0), case .text(let name) = nameRows.value(at: 2) else { continue }
                var source: String?
                if case .text(let text) = nameRows.value(at: 1) { source = text }
                names.append((kind, source, name))
            }
            self.directory = directory
            self.keys = keys
            self.names = names
            self.digests = digests
        }

        /// Whether file `name` is as the digests say (checked once): only such a file is copied from.
        func intact(_ name: String) -> Bool {
            if let known = checked[name] { return known }
            let result = ReadModel.check(name, in: directory, against: digests) == nil
            checked[name] = result
            return result
        }

        /// The resources of `source` the catalog names, in its order.
        func resources(of source: String) -> [String] {
            names.filter { $0.kind == "resource" && $0.source == source }.map(\.name)
        }
    }

    /// Creates the database at `path` and fills it; no journal (a file that did not finish is
    /// in a directory no reader opens).
    private static func fill(_ path: String, _ body: (SQLiteConnection) throws -> Void) throws {
        try createFile(path)
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        try body(connection)
    }
}

extension ReadModel {
    /// The read model of the store `store` opened (its head), written now: for a one-shot
    /// that found none current. Returns its subject, or nil when it could not be written
    /// (a read-only directory, a full disk: then the caller answers from the store).
    /// `reusing: false` copies nothing from the read model there (it was found damaged).
    package static func rebuild(from store: Store, storePath: String, reusing: Bool = true) -> SQLSubject? {
        let snapshot = store.snapshot
        let state = snapshot.state
        guard let stamp = try? stamp(of: store.maintenance, at: state.seq),
              let events = try? store.eventSummaries(upTo: state.seq) else { return nil }
        // Parts are keyed by the seqs of their sources' last events; events waiting in a
        // replicated store's outbox are folded without seqs, so then nothing is reused.
        let lastSeq = snapshot.pendingSync == 0 ? try? store.maintenance.lastSeqBySource(upTo: state.seq) : nil
        do {
            try write(state: state, events: events, stamp: stamp, storePath: storePath,
                      keys: lastSeq.map { Keys.of(state, lastSeq: $0) }, reusing: reusing)
        } catch {
            return nil
        }
        return open(storePath: storePath, stamp: stamp)
    }
}
