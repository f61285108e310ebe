import Synchronization

/// Observing one value of the state (as GRDB's ValueObservation): the stream yields the
/// value now, then again only when a new snapshot changes it. A filter intent does not
/// wake an observer of `shows`; a new census does not wake one of `pages`.
extension Store {
    /// The values of `value(state)`, deduplicated: yields the current one, then each
    /// different one. Values in between two deliveries may be skipped (the newest wins),
    /// never the last. Cancel the consuming task (or drop the stream) to stop.
    public func observe<Value: Equatable & Sendable>(_ value: @escaping @Sendable (LogState) -> Value) -> AsyncStream<Value> {
        let snapshots = self.snapshots()
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            var last: Value?
            for await snapshot in snapshots {
                let next = value(snapshot.state)
                if next != last {
                    last = next
                    continuation.yield(next)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// One view's export, without its `asOf` (which moves with every event): yields only
    /// when what the view shows changed. `name` is any view `ViewCatalog.export` exports
    /// from the store's latest snapshot: the registry's views and those of the sources
    /// defined by manifests (`items/SOURCE/RESOURCE`, `facets/SOURCE/RESOURCE`); a value
    /// of null while a view stops being there (its source redefined without it).
    ///
    /// Cost follows change: a view whose inputs are known (`ViewCatalog.inputs`) is not even
    /// computed for a snapshot in which none of its sources moved (`ChangeTokens`), so a
    /// filter intent costs an observer of `shows` one comparison of a few numbers.
    public func observe(view name: String) throws(ViewNameError) -> AsyncStream<JSONValue> {
        try observe(view: name, memo: ObservedView())
    }

    /// As `observe(view:)`, with the memo given (a test reads its `computations`).
    package func observe(view name: String, memo: ObservedView) throws(ViewNameError) -> AsyncStream<JSONValue> {
        // Checked against the state as it is, manifests included: a fresh state holds none,
        // so every manifest view would be refused.
        _ = try ViewCatalog.export(name, state: snapshot.state)
        let inputs = ViewCatalog.inputs(of: name, in: sources)
        return observe { state in
            if let inputs, let (key, value) = memo.last, key == state.changes.key(for: inputs) { return value }
            memo.computations.add(1, ordering: .relaxed)
            let value: JSONValue
            if case .object(let members)? = try? ViewCatalog.export(name, state: state) {
                value = .object(members.filter { $0.0 != "asOf" })
            } else {
                value = .null
            }
            if let inputs { memo.last = (state.changes.key(for: inputs), value) }
            return value
        }
    }
}

/// The last value an observation of a view computed, with the change key it was computed
/// at. `@unchecked Sendable`: `last` is used by one observation task only, one snapshot at
/// a time.
package final class ObservedView: @unchecked Sendable {
    var last: ([UInt64], JSONValue)?
    /// How many times the view was computed.
    package let computations = Atomic<Int>(0)

    package init() {}
}
