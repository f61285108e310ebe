/// Every view's export as this build made it, saved beside each checkpoint: what a later
/// build compares its own reading with (`replay --diff`). A checkpoint keeps documents only
/// by reference (they are decoded again by whoever loads it), so without this record a
/// changed reducer would leave no trace of what the views used to say.
///
/// Stored in the derived database as canonical JSON:
/// `{"seq":N,"reducerVersion":V,"views":{"NAME":export,…}}` — the registry's views and the
/// items of every resource defined by a manifest.
public enum ViewRecord {
    static let key = "views"

    /// The names recorded for `state`: every registered view, then `items/SOURCE/RESOURCE`
    /// for each resource of each manifest the state defines.
    public static func names(in state: LogState) -> [String] {
        state.sources.views.map(\.name) + state.manifests.keys.sorted().flatMap { source in
            state.manifests[source]!.manifest.resources.map { "items/\(source)/\($0.name)" }
        }
    }

    public static func encode(_ state: LogState) -> [UInt8] {
        let views: [(String, JSONValue)] = names(in: state).compactMap { name in
            (try? ViewCatalog.export(name, state: state)).map { (name, $0) }
        }
        let json: JSONValue = .object([("seq", .number(state.seq)), ("reducerVersion", .number(LogState.reducerVersion)),
                                       ("views", .object(views))])
        return Array(json.canonicalText().utf8)
    }
}

/// What this build's reducers make of the log, beside what the build that wrote the last
/// checkpoint recorded: per view, the items added, removed and changed (`ViewDiff`), at the
/// record's seq. The way to see what a reducer change does to real data before trusting it.
public struct ReplayDiff: Sendable {
    public struct ViewChanges: Sendable {
        public let view: String
        /// Empty: the view reads the same.
        public let changes: [ViewDiff.Change]
        /// How the view stands: `same`, `differs`, `new` (not recorded then) or `gone`
        /// (recorded then, not offered now).
        public let status: String
    }

    /// The seq the record was made at (the replay stops there too).
    public let seq: UInt64
    /// The reducer version of the build that made the record.
    public let recordedReducerVersion: Int
    public let views: [ViewChanges]

    /// nil when the store holds no record (no checkpoint saved since views were recorded).
    package static func compute(_ log: EventLog, sources: SourceRegistry,
                               progress: (UInt64, UInt64) -> Void = { _, _ in }) throws -> ReplayDiff? {
        guard let bytes = try log.loadViewRecord(), let json = try? JSONValue.parse(bytes: bytes),
              let seq = json["seq"]?.intValue.map(UInt64.init), case .object(let recorded)? = json["views"] else { return nil }
        let (replayed, _) = try Store.replay(log, sources: sources, to: seq, progress: progress)
        var views: [ViewChanges] = []
        let now = ViewRecord.names(in: replayed)
        for name in now {
            let after = try ViewCatalog.export(name, state: replayed)
            guard let before = recorded.first(where: { $0.0 == name })?.1 else {
                views.append(ViewChanges(view: name, changes: [], status: "new"))
                continue
            }
            let diff = ViewDiff(from: before, to: after)
            views.append(ViewChanges(view: name, changes: diff.changes, status: diff.isEmpty ? "same" : "differs"))
        }
        for (name, _) in recorded where !now.contains(name) {
            views.append(ViewChanges(view: name, changes: [], status: "gone"))
        }
        return ReplayDiff(seq: seq, recordedReducerVersion: json["reducerVersion"]?.intValue ?? 0, views: views)
    }
}

extension EventLog {
    /// The view record saved with the last checkpoint, if any.
    public func loadViewRecord() throws -> [UInt8]? {
        try read { txn in
            var key = ViewRecord.key
            return try key.withUTF8 { k in try txn.get(derived, key: UnsafeRawBufferPointer(k)).map { Array($0) } }
        }
    }
}
