import Foundation

/// An item of a resource decoded into your type, with what the type cannot say: the key
/// that names it to `set`, `replace` and `delete`, and its changes still waiting. What
/// ``ResourceHandle/heldItems(as:decoder:)`` returns.
///
/// An item added here that the server has not confirmed yet has its key field null in
/// `value` (declare it optional), its `key` `local:ID` and its create first in `pending`;
/// once a push is confirmed, `value` holds the server's key and fields, `key` is the
/// server's and `pending` is empty.
public struct HeldItem<Value> {
    /// The item decoded into your type, as ``ResourceHandle/items(as:decoder:)`` decodes it:
    /// with the changes waiting folded in (not a rejected one), its key field null while the
    /// server has not named it.
    public let value: Value
    /// The item's key as `set`, `replace` and `delete` take it: its primary-key fields joined
    /// by `/` — for an item added here, `local:ID` until the server names it.
    public let key: String
    /// The item's changes still waiting (a rejected one too, which `value` leaves out), in
    /// the order they were made, each with its state and last answer; empty when the item is
    /// as the server last said.
    public let pending: [Mutation]
}

extension HeldItem: Sendable where Value: Sendable {}
extension HeldItem: Equatable where Value: Equatable {}

extension ResourceHandle {
    /// The items as ``items(as:decoder:)`` decodes them, each with its key and its changes
    /// still waiting: what a list shows beside an item (queued, in conflict, rejected) and
    /// what `set`, `delete`, `retry` and `discard` take. Read again when ``observe(as:decoder:)``
    /// yields to follow them.
    public func heldItems<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> [HeldItem<T>] {
        let state = store.snapshot.state
        let view = try readView(state)
        let key = view.restResource.primaryKey
        let values = try decode(view.items, key: key, as: type, decoder: decoder)
        // Each waiting change under its item's key now (a create's: its local key until the
        // server names the item), as the optimistic view folds it onto that item.
        let writes = state.writes
        var changes: [String: [Mutation]] = [:]
        for mutation in writes.pending where mutation.source == source && mutation.resource == name {
            changes[writes.itemKey(mutation), default: []].append(Mutation(mutation, writes: writes))
        }
        return zip(view.items, values).map { item, value in
            let text = key.map { ItemsView.text(item[$0]) }.joined(separator: "/")
            return HeldItem(value: value, key: text, pending: changes[text] ?? [])
        }
    }
}
