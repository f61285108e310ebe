import FetchlogCore

/// What a query is asked about: the names of its tables, its saved views, the seq it stands
/// at, and where the rows come from — a state (the engine builds the tables it names) or a
/// read model on disk (`ReadModel`: the tables are there, and no state was folded).
package struct SQLSubject: Sendable {
    /// The seq of the last event the tables hold.
    package let seq: UInt64
    /// The fixed views' tables, in the registry's order.
    package let viewNames: [String]
    /// Manifest resources by source, sources sorted.
    package let resources: [(source: String, resources: [String])]
    /// Saved views by lowercased name: those whose names pass the name rule
    /// (`SavedViewName.inForce`), the only ones SQL takes as tables.
    package let savedViews: [String: SavedView]
    /// Saved views the name rule leaves out (saved before it, or before the table that now
    /// has their name): name → why. The table wins; `DROP VIEW` by the name removes one.
    package let refusedViews: [String: String]
    /// Manifest resources without pending changes.
    package let confirmed: Bool
    /// The state the tables are built from; nil over a read model on disk.
    package let state: LogState?

    /// The tables of `state` (confirmed-only resources when `confirmed`).
    package init(state: LogState, confirmed: Bool) {
        seq = state.seq
        viewNames = SQLTables.viewNames(in: state)
        resources = SQLTables.resources(in: state)
        (savedViews, refusedViews) = SavedViewName.inForce(state.savedViews.values, viewNames: viewNames, resources: resources)
        self.confirmed = confirmed
        self.state = state
    }

    /// Tables held on disk, named by the read model's catalog.
    package init(seq: UInt64, viewNames: [String], resources: [(source: String, resources: [String])], savedViews: [SavedView]) {
        self.seq = seq
        self.viewNames = viewNames
        self.resources = resources
        (self.savedViews, refusedViews) = SavedViewName.inForce(savedViews, viewNames: viewNames, resources: resources)
        confirmed = false
        state = nil
    }

    /// Every table name a query may use: views, `events`, `SOURCE.RESOURCE`, saved views.
    package var tableNames: [String] {
        viewNames + [SQLTables.eventsName] + resources.flatMap { source in source.resources.map { source.source + "." + $0 } }
            + savedViews.values.map(\.name).sorted()
    }
}
