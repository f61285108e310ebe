import Dispatch
import FetchlogCore
import FetchlogShell
import FetchlogSQL
import Synchronization

/// The tables and columns SQL completion offers, described once per snapshot: describing
/// builds every table, so the answer is kept until the store's seq moves.
enum SQLCompletionTables {
    private struct Entry {
        let store: ObjectIdentifier
        let seq: UInt64
        let tables: [SQLCompletionTable]
    }

    private static let cache = Mutex<Entry?>(nil)

    /// The tables of `store` at `state`, from the cache or described now.
    static func prepare(_ store: Store, state: LogState) async -> [SQLCompletionTable] {
        if let hit = cached(store, state) { return hit }
        // A table that cannot be built (a saved view gone wrong) leaves completion without
        // columns rather than without names.
        let described = (try? await store.sqlTables(state: state))?.map { SQLCompletionTable(name: $0.name, columns: $0.columns.map(\.name)) }
            ?? SQLEngine.tableNames(in: state).map { SQLCompletionTable(name: $0, columns: []) }
        cache.withLock { $0 = Entry(store: ObjectIdentifier(store), seq: state.seq, tables: described) }
        return described
    }

    /// The same, for the line editor's completer (a thread of its own, never the pool's):
    /// waits for the description when the cache does not hold it.
    static func tables(of store: Store, state: LogState) -> [SQLCompletionTable] {
        if let hit = cached(store, state) { return hit }
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<[SQLCompletionTable]>([])
        Task {
            let tables = await prepare(store, state: state)
            result.withLock { $0 = tables }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }

    private static func cached(_ store: Store, _ state: LogState) -> [SQLCompletionTable]? {
        cache.withLock { entry in
            guard let entry, entry.store == ObjectIdentifier(store), entry.seq == state.seq else { return nil }
            return entry.tables
        }
    }
}
