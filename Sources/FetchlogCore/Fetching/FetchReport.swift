/// What one fetch of one resource did: every attempt (each an event) and how it ended.
public struct FetchReport: Sendable {
    /// One attempt of the fetch, as its event recorded it.
    public struct Attempt: Sendable {
        /// The attempt's event in the log (0 when kept for the session only, or pending sync).
        public let seq: UInt64
        /// What the attempt recorded: fetched, not modified, failed, end of list.
        public let kind: EventKind
        /// The HTTP status, when a response arrived.
        public let status: UInt16?
        /// Why the attempt failed, when it did.
        public let failure: Event.Failure?
        /// Body bytes the attempt received.
        public let bodyBytes: Int
        /// The wait before the next attempt, when there was one.
        public let retryAfter: Duration?
        /// Recorded durably in a replicated store's outbox, not yet in its stream or log
        /// (the stream was unreachable): seq 0 until it syncs.
        package var pendingSync = false
        /// Why it was kept for this session only (seq 0, not pending sync); nil otherwise.
        package var sessionOnly: SessionOnlyReason?
    }

    /// How the fetch ended, after its retries.
    public enum Outcome: Sendable, Equatable {
        /// A new body arrived and was recorded.
        case fetched
        /// A 304: the held body is still current.
        case notModified
        /// The source said the list ends here.
        case endOfList
        /// Every attempt failed: the last one's class and message. The held body, if any, stays.
        case failed(FailureClass, String)
    }

    /// What was fetched.
    public let resource: Resource
    /// The URL asked, as recorded (secrets masked).
    public let url: String
    /// Every attempt, in order: the failed ones before a retry and the last one.
    public let attempts: [Attempt]
    /// How the fetch ended: what a caller decides on.
    public let outcome: Outcome
    /// For a page of a list with a durable window (set by the source's paging): the item
    /// index of the page's first item (the items on the pages before it), nil when it is not
    /// known (an earlier page is neither held nor fetched) or the resource is not such a page.
    package var firstItemIndex: Int? = nil
    /// What a caller should be told beyond the attempts: paging that stopped before the
    /// list said it ended, a link not followed, items a view leaves out.
    public var notices: [FetchNotice] = []
    /// Whether the resource holds a body once this fetch's outcome is folded (a new one, or
    /// one held from before that a failure left in place). Set by the store (`Store.fetch`).
    package var holdsBody = false
    /// The last attempt's response headers as recorded (a manifest's `header_cursor` and
    /// `header_link` page by them).
    package var responseHeaders: [Header] = []

    /// Where a fetch's attempts were recorded.
    public enum Recorded: Sendable, Equatable {
        /// In the durable log (each attempt has its seq).
        case durable
        /// In this session's memory only (the durable window's far side): gone at restart.
        case sessionOnly
        /// In a replicated store's outbox, pending sync (its stream was unreachable).
        case pendingSync
        /// Nowhere: no attempt was made (`offline`).
        case nothing
    }

    /// How this fetch was recorded. Derived from the attempts: the log's seqs start at 1,
    /// and an attempt kept for the session only has seq 0, so no path through the fetcher
    /// can report one thing and record another.
    public var recorded: Recorded {
        guard let first = attempts.first else { return .nothing }
        if first.pendingSync { return .pendingSync }
        return first.seq == 0 ? .sessionOnly : .durable
    }

    /// True when the attempts were kept in this session's memory only, never in the log.
    package var isSessionOnly: Bool { recorded == .sessionOnly }

    /// True when the resource is usable: new body, confirmed body, or a known end.
    public var isUsable: Bool {
        if case .failed = outcome { return false }
        return true
    }

    /// What a fetch left its caller with: something usable, or nothing.
    package enum Usability: Sendable, Equatable {
        /// A new body, the held one confirmed (304), or the list's known end.
        case usable
        /// The fetch failed (`outcome` says how), but the body held from before is still
        /// there: usable, though not refreshed.
        case keptHeldBody
        /// The fetch brought nothing usable and nothing is held: every attempt failed, or
        /// none was made (offline, a credential that could not be made, a refused address).
        case nothingUsable
    }

    /// Whether the caller has something to use after this fetch (`outcome` says how it
    /// ended). `.nothingUsable` is the failure a typed API throws on: a DNS failure with
    /// nothing held ends here, not in an empty view that looks like success.
    package var usability: Usability {
        if isUsable { return .usable }
        return holdsBody ? .keptHeldBody : .nothingUsable
    }

    /// Body bytes received over every attempt.
    public var bodyBytes: Int { attempts.reduce(0) { $0 + $1.bodyBytes } }
}

/// The log could not record an attempt: nothing about this fetch is certain.
package struct FetchStoreError: Error, CustomStringConvertible {
    /// The resource whose fetch could not be recorded.
    package let resource: Resource
    /// The log's own error (a full disk, a closed store).
    package let underlying: any Error
    /// Says which fetch was lost and why, for the user.
    package var description: String { "could not record the fetch of \(resource): \(underlying)" }
}

/// Something a fetch did that its caller must hear of, though every attempt succeeded.
public struct FetchNotice: Sendable, Equatable, CustomStringConvertible {
    /// What a notice is about, so a caller can react to one kind without parsing the message.
    public enum Kind: String, Sendable {
        /// A list that had not ended stopped at the page ceiling (`--max-pages`).
        case pageCeiling
        /// A page repeated the one before it (or a page already fetched): paging stopped.
        case repeatedPage
        /// A next-page link outside the source's base was not followed.
        case linkNotFollowed
        /// Items the view leaves out (no primary key value, not an object).
        case itemsLeftOut
    }

    /// What the notice is about.
    public let kind: Kind
    /// The sentence a user reads.
    public let message: String
    /// How many things it is about (items left out), when it counts any.
    public let count: Int?

    /// A notice of `kind`, its message, and how many things it counts when it counts any.
    package init(_ kind: Kind, _ message: String, count: Int? = nil) {
        self.kind = kind
        self.message = message
        self.count = count
    }

    /// The message, as a user reads it.
    public var description: String { message }

    package var json: JSONValue {
        var members: [(String, JSONValue)] = [("kind", .string(kind.rawValue)), ("message", .string(message))]
        if let count { members.append(("count", .number(count))) }
        return .object(members)
    }
}
