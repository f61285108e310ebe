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
    /// when what the view shows changed. `name` is a view of `ViewCatalog.exportNames`.
    public func observe(view name: String) throws(ViewNameError) -> AsyncStream<JSONValue> {
        _ = try ViewCatalog.export(name, state: LogState(sources: sources))
        return observe { state in
            guard case .object(let members)? = try? ViewCatalog.export(name, state: state) else { return .null }
            return .object(members.filter { $0.0 != "asOf" })
        }
    }
}
