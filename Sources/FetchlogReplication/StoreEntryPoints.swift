import FetchlogCore
import FetchlogNATS

/// Replication's doors for clients: each takes the store (or its maintenance door), never
/// the log, which stays the store layer's and this module's.
extension Replication {
    /// The stream and servers the store remembers, nil when it is not attached.
    public static func attachment(of store: StoreMaintenance) throws -> Attachment? {
        try attachment(of: store.log)
    }

    /// Attaches the store to `stream` (see `attach(_:nats:stream:replicas:duplicateWindow:progress:)`).
    public static func attach(_ store: StoreMaintenance, nats: NATSConnection, stream: String = defaultStream, replicas: Int = 1,
                              progress: (Int, Int) -> Void = { _, _ in }) throws -> Attached {
        try attach(store.log, nats: nats, stream: stream, replicas: replicas, progress: progress)
    }

    /// Routes the store's appends through its stream when it is attached to one; nil when not.
    @discardableResult
    public static func routeAppendsIfAttached(_ store: StoreMaintenance, onRetry: @escaping @Sendable (String) -> Void = { _ in },
                                              onPending: @escaping @Sendable (String) -> Void = { _ in }) throws -> StreamAppends? {
        try routeAppendsIfAttached(store.log, onRetry: onRetry, onPending: onPending)
    }

    /// The route the store's appends take when they go through a stream.
    public static func route(of store: StoreMaintenance) -> StreamAppends? {
        store.log.appendRoute as? StreamAppends
    }

    /// A route for `follow`: publishes the store's outbox and applies its stream, over `connection`.
    public static func outbox(of store: StoreMaintenance, attachment: Attachment,
                              connection: @escaping @Sendable () throws -> NATSConnection) -> StreamAppends {
        StreamAppends(attachment: attachment, storeID: store.metadata.storeID, connect: connection)
    }
}

extension StreamAppends {
    /// Publishes the store's outbox and applies what the stream holds: (published, applied).
    public func sync(_ store: StoreMaintenance) throws -> (published: Int, applied: Int) {
        try sync(store.log)
    }

    /// Keeps the open store current in the background (the shell); returns the stop function.
    public func follow(_ store: Store, onProblem: @escaping @Sendable (String) -> Void,
                       onBack: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        follow(store.maintenance.log, onProblem: onProblem, onBack: onBack)
    }
}
