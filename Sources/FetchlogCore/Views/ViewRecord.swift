import Synchronization

/// Every view's export as this build made it, saved beside each checkpoint: what a later
/// build compares its own reading with (`replay --diff`). A checkpoint keeps documents only
/// by reference (they are decoded again by whoever loads it), so without this record a
/// changed reducer would leave no trace of what the views used to say.
///
/// Stored in the derived database as canonical JSON:
/// `{"seq":N,"reducerVersion":V,"views":{"NAME":export,…}}` — the registry's views and the
/// items of every resource defined by a manifest.
package enum ViewRecord {
    static let key = "views"

    /// The names recorded for `state`: every registered view, then `items/SOURCE/RESOURCE`
    /// for each resource of each manifest the state defines.
    package static func names(in state: LogState) -> [String] {
        state.sources.views.map(\.name) + state.manifests.keys.sorted().flatMap { source in
            state.manifests[source]!.manifest.resources.map { "items/\(source)/\($0.name)" }
        }
    }

    /// The saved views' exports as of a state (`export NAME`, by name), given the log's
    /// summaries for the `events` table: the SQL engine's, which the engine's module
    /// installs (the core runs no SQL). A process that never installed it records no saved
    /// view, and a later `replay --diff` calls them new.
    package typealias SavedViewExporter = @Sendable (_ state: LogState, _ events: @escaping (UInt64) throws -> [JSONValue]) -> [(String, JSONValue)]

    private static let savedViewExporter = Mutex<SavedViewExporter?>(nil)

    /// Installs the exporter of saved views (the SQL module does, once).
    package static func install(savedViews exporter: @escaping SavedViewExporter) {
        savedViewExporter.withLock { $0 = exporter }
    }

    /// Every recorded view's export as of `state`: the registered views, the manifest
    /// resources' items, then the saved views (when an exporter is installed), whose `events`
    /// table `events` gives (the log's summaries up to a seq).
    package static func exports(of state: LogState, events: @escaping (UInt64) throws -> [JSONValue]) -> [(String, JSONValue)] {
        var views: [(String, JSONValue)] = names(in: state).compactMap { name in
            (try? ViewCatalog.export(name, state: state)).map { (name, $0) }
        }
        if !state.savedViews.isEmpty, let exporter = savedViewExporter.withLock({ $0 }) {
            views += exporter(state, events)
        }
        return views
    }

    package static func encode(_ state: LogState, events: @escaping (UInt64) throws -> [JSONValue]) -> [UInt8] {
        let json: JSONValue = .object([("seq", .number(state.seq)), ("reducerVersion", .number(LogState.reducerVersion)),
                                       ("views", .object(exports(of: state, events: events)))])
        return Array(json.canonicalText().utf8)
    }
}

/// What this build's reducers make of the log, beside what the build that wrote the last
/// checkpoint recorded: per view, the items added, removed and changed (`ViewDiff`), at the
/// record's seq. The way to see what a reducer change does to real data before trusting it.
package struct ReplayDiff: Sendable {
    package struct ViewChanges: Sendable {
        package let view: String
        /// Empty: the view reads the same.
        package let changes: [ViewDiff.Change]
        /// How the view stands: `same`, `differs`, `new` (not recorded then) or `gone`
        /// (recorded then, not offered now).
        package let status: String
    }

    /// The seq the record was made at (the replay stops there too).
    package let seq: UInt64
    /// The reducer version of the build that made the record.
    package let recordedReducerVersion: Int
    package let views: [ViewChanges]

    /// The diff of `record` (the view record saved with a checkpoint, as the store hands it
    /// over: `Store.replayDiff`) against `replay(seq)`, this build's state at the record's
    /// seq. nil when there is no record (no checkpoint saved since views were recorded).
    static func compute(record bytes: [UInt8]?, events: @escaping (UInt64) throws -> [JSONValue],
                        replay: (UInt64) throws -> LogState) throws -> ReplayDiff? {
        guard let bytes, let json = try? JSONValue.parse(bytes: bytes),
              let seq = json["seq"]?.intValue.map(UInt64.init), case .object(let recorded)? = json["views"] else { return nil }
        let replayed = try replay(seq)
        var views: [ViewChanges] = []
        let exports = ViewRecord.exports(of: replayed, events: events)
        let now = exports.map(\.0)
        for (name, after) in exports {
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
