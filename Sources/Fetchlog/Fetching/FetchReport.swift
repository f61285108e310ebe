/// What one fetch of one resource did: every attempt (each an event) and how it ended.
public struct FetchReport: Sendable {
    public struct Attempt: Sendable {
        public let seq: UInt64
        public let kind: EventKind
        public let status: UInt16?
        public let failure: Event.Failure?
        public let bodyBytes: Int
        /// The wait before the next attempt, when there was one.
        public let retryAfter: Duration?
    }

    public enum Outcome: Sendable, Equatable {
        case fetched
        case notModified
        case endOfList
        case failed(FailureClass, String)
    }

    public let resource: Resource
    public let url: String
    public let attempts: [Attempt]
    public let outcome: Outcome

    /// True when the resource is usable: new body, confirmed body, or a known end.
    public var isUsable: Bool {
        if case .failed = outcome { return false }
        return true
    }

    public var bodyBytes: Int { attempts.reduce(0) { $0 + $1.bodyBytes } }
}

/// The log could not record an attempt: nothing about this fetch is certain.
public struct FetchStoreError: Error, CustomStringConvertible {
    public let resource: Resource
    public let underlying: any Error
    public var description: String { "could not record the fetch of \(resource): \(underlying)" }
}
