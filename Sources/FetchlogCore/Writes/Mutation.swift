/// A change to an item of a resource, recorded offline and waiting to be sent: what
/// `add`, `set`, `replace` and `delete` (on ``ResourceHandle``) return
/// and ``ResourceHandle/pending()`` lists. A value: read it again from `pending()` to see
/// how it stands after a push.
public struct Mutation: Sendable, Equatable {
    /// Its id (the seq of its `write.mutation` event): what ``ResourceHandle/retry(_:force:)``
    /// and ``ResourceHandle/discard(_:)`` take, and what ``PushReport`` lists.
    public let id: UInt64
    /// What it does to the item.
    public let operation: ResourceWrites.Operation
    /// The item's key (its primary-key fields joined by `/`). A created item's is `local:ID`
    /// until the server names one; ``ResourceHandle/key(of:)`` gives the server's then.
    public let key: String
    /// The fields written, as one JSON object (a delete's is empty).
    public let fields: JSONValue
    /// How it stands: queued, sending, failed, conflict, rejected or paused.
    public let state: MutationState
    /// The last answer's HTTP status: nil when it was not sent yet, or nothing came back.
    public let lastStatus: Int?
    /// The last answer's words: the server's message, or why nothing came back.
    public let lastMessage: String?
    /// In a conflict, the server's version of the item, shown beside the change: retry it
    /// with `force` to send the change over it, or discard the change to keep it.
    public let serverVersion: JSONValue?

    init(_ mutation: PendingMutation, writes: WriteState) {
        id = mutation.seq
        operation = mutation.op
        key = writes.itemKey(mutation)
        fields = mutation.fields
        state = mutation.state
        lastStatus = mutation.lastStatus
        lastMessage = mutation.lastMessage
        serverVersion = mutation.state == .conflict ? mutation.current : nil
    }
}
