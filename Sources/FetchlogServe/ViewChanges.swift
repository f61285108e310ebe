import FetchlogCore

/// Which exported views a new snapshot changed, for the event stream's `view` events.
///
/// "Changed" is what `Store.observe(view:)` means: the export apart from its `asOf` (which
/// moves with every event, so every ETag does too). Cost follows change: a view whose inputs
/// are known (`ViewCatalog.inputs`: every fixed view but `status`, and each manifest
/// resource's `items/…` and `facets/…`) is not exported at all when none of its sources'
/// change tokens moved, so a filter intent costs an observer of `shows` a comparison of a
/// few numbers. `status` has no known inputs and is exported for every snapshot; `all`
/// only when a fixed view changed (it holds them all). A changed view is exported once, into
/// the `ViewCache`, where the GET it prompts finds it.
struct ViewChanges {
    /// The state the last call compared against.
    private var previous: LogState
    /// Per view: the export without `asOf` (nil: the view is not there) and the key it was
    /// made at (`memoKey`), so `previous`'s is not made again.
    private var known: [String: (key: [UInt64], value: JSONValue?)] = [:]

    init(baseline: LogState) { previous = baseline }

    /// The views that differ between the last state and `state`, with their ETags now
    /// (nil: the view is gone), in the order `GET /api/views` lists them.
    mutating func changes(to state: LogState, cache: ViewCache) -> [(view: String, etag: String?)] {
        defer { previous = state }
        let registry = state.sources
        let fixed = Set(registry.views.map(\.name))
        var changed: [(view: String, etag: String?)] = []
        var fixedChanged = false
        for name in Self.names(in: previous, and: state) {
            let inputs = ViewCatalog.inputs(of: name, in: registry)
            if let inputs, previous.changes.key(for: inputs) == state.changes.key(for: inputs) { continue }
            let before = value(of: name, in: previous, inputs: inputs)
            let now = try? cache.canonical(name, state: state)
            let after = now.map { Self.withoutAsOf($0.json) }
            known[name] = (Self.memoKey(state, inputs: inputs), after)
            guard before != after else { continue }
            changed.append((name, now?.etag))
            if fixed.contains(name) { fixedChanged = true }
        }
        if fixedChanged, let all = try? cache.canonical("all", state: state) { changed.append(("all", all.etag)) }
        return changed
    }

    private mutating func value(of name: String, in state: LogState, inputs: Set<String>?) -> JSONValue? {
        let key = Self.memoKey(state, inputs: inputs)
        if let held = known[name], held.key == key { return held.value }
        let value = (try? ViewCatalog.export(name, state: state)).map(Self.withoutAsOf)
        known[name] = (key, value)
        return value
    }

    /// What makes a view's export (apart from `asOf`) the same: its inputs' change tokens
    /// when they are known (a view last made at seq 14 still holds at 20 if they did not
    /// move), else the whole state's key.
    static func memoKey(_ state: LogState, inputs: Set<String>?) -> [UInt64] {
        inputs.map { state.changes.key(for: $0) } ?? ViewCache.key(of: state)
    }

    /// The concrete views of either state: the fixed ones, then each manifest resource's
    /// (patterns such as `show/ID` name no one view; `all` follows the fixed ones).
    static func names(in previous: LogState, and state: LogState) -> [String] {
        let patterns = Set(state.sources.parameterizedViews.map(\.pattern) + ["all"])
        var seen = Set<String>()
        return (ViewCatalog.exportNames(in: state) + ViewCatalog.exportNames(in: previous)).filter {
            !patterns.contains($0) && seen.insert($0).inserted
        }
    }

    static func withoutAsOf(_ json: JSONValue) -> JSONValue {
        guard case .object(let members) = json else { return json }
        return .object(members.filter { $0.0 != "asOf" })
    }
}
