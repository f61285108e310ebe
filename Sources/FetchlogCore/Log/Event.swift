/// One immutable entry of the log: the outcome of one upstream request attempt, or a
/// user's intent. `seq` is assigned by the log when the event is appended.
public struct Event: Sendable, Equatable {
    /// Position in the log, from 1, gap-free. 0 for an event not yet appended. Only the log
    /// assigns it (read-only to a library user: an event cannot claim a place it was not given).
    public package(set) var seq: UInt64
    /// When the outcome was recorded, from the injected clock (ms since the Unix epoch).
    public var recordedAt: Timestamp
    /// What the event records: an outcome of a request, or an intent.
    public var kind: EventKind
    /// The source's name (as its plug-in registers it) or, for intents, the app domain.
    public var source: String
    /// A sub-name: for intents the intent (`filter.set`), for fetches the resource key.
    public var label: String
    /// 1 for a first attempt, 2 for the first retry, …
    package var attempt: UInt16
    /// Wall time the attempt took, in microseconds, when known.
    package var durationMicros: UInt64?
    package var request: Request?
    package var response: Response?
    /// Why the attempt failed, for a `fetch-failed` event.
    public var failure: Failure?
    /// The raw body exactly as received; nil when there was none (304, failures) and when
    /// `log compact` dropped it (then `compactedBody` says what it was).
    public var body: [UInt8]?
    /// A body dropped by `log compact` because a later body of the same resource superseded
    /// it: its size and hashes stay on the record (the audit trail), its bytes are gone.
    package var compactedBody: CompactedBody?
    /// Where an event merged from another store's log was first recorded (`log import` into
    /// a non-empty store); nil for the store's own events, whose origin is the store and seq.
    package var origin: Origin?

    package init(seq: UInt64 = 0, recordedAt: Timestamp, kind: EventKind, source: String, label: String = "",
                attempt: UInt16 = 1, durationMicros: UInt64? = nil, request: Request? = nil,
                response: Response? = nil, failure: Failure? = nil, body: [UInt8]? = nil,
                compactedBody: CompactedBody? = nil, origin: Origin? = nil) {
        self.seq = seq
        self.recordedAt = recordedAt
        self.kind = kind
        self.source = source
        self.label = label
        self.attempt = attempt
        self.durationMicros = durationMicros
        self.request = request
        self.response = response
        self.failure = failure
        self.body = body
        self.compactedBody = compactedBody
        self.origin = origin
    }

    /// What a compacted body was: enough to prove which bytes it held, not the bytes.
    package struct CompactedBody: Sendable, Equatable {
        package var size: Int
        package var crc32c: UInt32
        /// SHA-256, 32 bytes.
        package var sha256: [UInt8]
        package init(size: Int, crc32c: UInt32, sha256: [UInt8]) {
            self.size = size
            self.crc32c = crc32c
            self.sha256 = sha256
        }
    }

    /// The store an event was first recorded in and its seq there: the event's identity
    /// across merged logs (two stores that exchange exports hold each event once).
    package struct Origin: Sendable, Hashable, CustomStringConvertible {
        package var store: String
        package var seq: UInt64
        package init(store: String, seq: UInt64) {
            self.store = store
            self.seq = seq
        }
        package var description: String { "\(store)#\(seq)" }
    }

    package struct Request: Sendable, Equatable {
        package var method: String
        /// The URL exactly as asked (after the upstream rewrite).
        package var url: String
        /// Validators and other headers sent (If-None-Match, If-Modified-Since, …).
        package var headers: [Header]
        /// The body sent (a manifest's POST with `json` or `data`), exactly as sent; nil
        /// when none was. Never a secret: the log replays it, and its Content-Type is in
        /// `headers`.
        package var body: [UInt8]?
        package init(method: String = "GET", url: String, headers: [Header] = [], body: [UInt8]? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    package struct Response: Sendable, Equatable {
        package var status: UInt16
        /// Only the headers that matter: see `Header.keptResponseHeaders`.
        package var headers: [Header]
        package init(status: UInt16, headers: [Header] = []) {
            self.status = status
            self.headers = headers
        }

        /// The first value of a header, compared case-insensitively.
        package func header(_ name: String) -> String? {
            let lower = name.lowercased()
            return headers.first { $0.name.lowercased() == lower }?.value
        }
    }

    /// A failed attempt's class (which decides whether a retry may help) and message.
    public struct Failure: Sendable, Equatable {
        /// The kind of failure: transport, timeout, HTTP status, truncated body, decode.
        public var failureClass: FailureClass
        /// What happened, as a user reads it.
        public var message: String
        package init(_ failureClass: FailureClass, _ message: String) {
            self.failureClass = failureClass
            self.message = message
        }
    }
}

/// One HTTP header as recorded (name as sent, value as sent or masked).
public struct Header: Sendable, Equatable, Hashable {
    /// The header's name, as sent or received.
    public var name: String
    /// The header's value, or `***` when it is a credential.
    public var value: String
    /// A header named `name` with `value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Response headers the log keeps; others are dropped at recording time.
    package static let keptResponseHeaders: Set<String> = [
        "etag", "last-modified", "cache-control", "date", "age", "retry-after", "content-type", "content-length",
        // RFC 9111 freshness and the response's identity (issue 37): `Expires`, and `Vary`.
        "expires", "vary",
        // RFC 8288 links: the next page of a list that pages by `Link` (a manifest's header_link).
        "link",
    ]
}

/// What happened. Codes are stored as one byte; unknown codes from a newer writer are
/// kept as `.other(code)` so an older reader neither crashes nor drops them.
public enum EventKind: Sendable, Hashable, CustomStringConvertible {
    /// 2xx with a body.
    case fetched
    /// 304: the held body is still current.
    case notModified
    /// The attempt failed; see `Event.failure`.
    case fetchFailed
    /// The source said there is nothing past this point (a 404 past a list's last page, for a source that says so).
    case endOfList
    /// A user's choice (setting a filter, …); the body holds its JSON payload.
    case intent
    /// A kind written by a newer Fetchlog, kept by its code so an older reader neither crashes nor drops it.
    case other(UInt8)

    package var code: UInt8 {
        switch self {
        case .fetched: 1
        case .notModified: 2
        case .fetchFailed: 3
        case .endOfList: 4
        case .intent: 5
        case .other(let code): code
        }
    }

    package init(code: UInt8) {
        switch code {
        case 1: self = .fetched
        case 2: self = .notModified
        case 3: self = .fetchFailed
        case 4: self = .endOfList
        case 5: self = .intent
        default: self = .other(code)
        }
    }

    /// The kind's name as exports write it (`fetched`, `fetch-failed`…).
    public var name: String {
        switch self {
        case .fetched: "fetched"
        case .notModified: "not-modified"
        case .fetchFailed: "fetch-failed"
        case .endOfList: "end-of-list"
        case .intent: "intent"
        case .other(let code): "kind-\(code)"
        }
    }

    package init?(name: String) {
        switch name {
        case "fetched": self = .fetched
        case "not-modified": self = .notModified
        case "fetch-failed": self = .fetchFailed
        case "end-of-list": self = .endOfList
        case "intent": self = .intent
        default:
            guard name.hasPrefix("kind-"), let code = UInt8(name.dropFirst(5)), code > 5 else { return nil }
            self = .other(code)
        }
    }

    /// The kind's name.
    public var description: String { name }
}

/// What kind of failure a `fetch-failed` event records; decides whether a retry may help.
public enum FailureClass: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// Connection refused, reset, DNS, TLS: nothing usable arrived.
    case transport = 1
    /// Connect or read timeout.
    case timeout = 2
    /// The upstream answered with an error status.
    case httpStatus = 3
    /// Fewer body bytes arrived than announced.
    case truncated = 4
    /// The body arrived but could not be decoded (malformed JSON, wrong content type).
    case decode = 5

    /// The class's name as exports write it.
    public var name: String {
        switch self {
        case .transport: "transport"
        case .timeout: "timeout"
        case .httpStatus: "http-status"
        case .truncated: "truncated"
        case .decode: "decode"
        }
    }

    /// The class named `name`, as exports write it; nil for a name no class has.
    package init?(name: String) {
        guard let match = FailureClass.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    /// The class's name.
    public var description: String { name }
}
