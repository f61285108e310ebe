/// A source of data as the engine sees it: where it lives, what its resources are, how
/// their bodies decode, how fresh they stay, and what state it keeps. The engine names no
/// source; each one — the five seed apps, a sixth defined by a user — is a value of a type
/// conforming to this protocol, handed to a `SourceRegistry`.
///
/// Everything here is pure: a plug-in's answers depend only on its arguments, so replay
/// and live state agree.
public protocol SourcePlugin: Sendable {
    /// The name events carry and `--upstream BASE/<name>` addresses.
    var source: Source { get }
    /// One line for people: what the source is (`sources` lists it).
    var summary: String { get }
    /// The base of every endpoint; paths of resources are relative to it.
    var realBase: String { get }
    /// Other bases a body or an endpoint may name; under `--upstream` they map to the same
    /// `BASE/<name>` prefix.
    var otherBases: [String] { get }
    /// The real base of one kind of resource (a source may serve one endpoint elsewhere).
    func realBase(for kind: DocumentKind) -> String
    /// The kind of the body at `path` (a resource key's path, query included); nil when
    /// the path is none of this source's resources.
    func documentKind(ofPath path: String) -> DocumentKind?
    /// Decodes a body of `kind` — once, when it arrives; the state keeps the result.
    /// Throws a `DecodeError` naming the offending field; never traps.
    func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument
    /// How long a held body counts as current (`FreshnessPolicy` may override it).
    var freshness: FreshnessRule { get }
    /// True when an answer with this status means "the list ends here" rather than a
    /// failure (a paged API answering 404 past its last page).
    func isEndOfList(status: UInt16, kind: DocumentKind) -> Bool
    /// The state this source keeps beside the core's, as it is before any event; nil
    /// when it keeps none.
    var initialSlice: (any SourceSlice)? { get }
    /// What every request of this source carries beyond the URL (API keys, tokens, fixed
    /// headers), resolved at fetch time — secrets from `environment` — and never recorded
    /// in clear. Throws `CredentialsError` naming what is missing.
    func credentials(environment: [String: String]) throws(CredentialsError) -> Credentials
    /// The credentials of one kind of resource (a manifest resource's `env:` params); by
    /// default the source's.
    func credentials(for kind: DocumentKind, environment: [String: String]) throws(CredentialsError) -> Credentials
    /// True when the source's bases are data rather than code: a manifest's `base_url` is
    /// in the log and merges in from other stores' logs, so requests to it meet the address
    /// policy of URLs named by bodies (`FetchConfiguration.allowPrivateHosts`).
    var basesAreData: Bool { get }
    /// How a resource is asked: its method and body (a manifest's POST with `json` or
    /// `data`); by default a GET without one.
    func request(for resource: Resource) -> SourceRequest
    /// Response headers of `kind` the log keeps beyond `Header.keptResponseHeaders` (a
    /// manifest's `header_cursor` reads its next cursor from one); lowercased.
    func keptResponseHeaders(for kind: DocumentKind) -> Set<String>
    /// How the items of `resource` (a name the plug-in chooses, as `Store.write` and
    /// `pending` show it) are changed upstream: its create, update, replace and delete
    /// routes, the fields naming an item, and the items its held documents hold — the same
    /// declaration a manifest resource makes in `fetchlog.writes` (<doc:WritingOffline>).
    /// Nil, by default: the resource is read-only, and a change to it is refused.
    func writes(for resource: String) -> ResourceWrites?
}

/// The method and body of one request, beyond its URL.
public struct SourceRequest: Sendable, Equatable {
    /// `GET` unless the endpoint says otherwise.
    public var method: String
    /// The request body, sent as it is; nil sends none.
    public var body: [UInt8]?
    /// The body's Content-Type; nil sends none (a `data` string is sent as it is).
    public var contentType: String?
    /// Headers the request itself carries (a manifest's filled header templates), sent and
    /// recorded as they are: they are no secret.
    public var headers: [Header] = []

    /// A request with `method`, `body` of `contentType`, and `headers`.
    public init(method: String = "GET", body: [UInt8]? = nil, contentType: String? = nil, headers: [Header] = []) {
        self.method = method
        self.body = body
        self.contentType = contentType
        self.headers = headers
    }

    /// A plain GET: what most resources ask.
    public static let get = SourceRequest()
}

/// Extra headers and query parameters of a source's requests, and which of them are secret
/// (recorded as `***`).
public struct Credentials: Sendable, Equatable {
    /// Headers added to each request (an API key, a bearer token).
    public var headers: [Header] = []
    /// Query parameters added to each request's URL, in order.
    public var query: [(String, String)] = []
    /// Lowercased names of headers whose values are secret.
    public var secretHeaders: Set<String> = []
    /// Lowercased names of query parameters whose values are secret.
    public var secretParameters: Set<String> = []
    /// A bearer token to ask for first (`oauth2_client_credentials`): the fetcher asks the
    /// token endpoint, or takes the token it holds (`OAuth2Tokens`).
    package var tokenRequest: OAuth2TokenRequest?

    /// Credentials of `headers` and `query`, with the names in `secretHeaders` and `secretParameters` recorded as `***`.
    public init(headers: [Header] = [], query: [(String, String)] = [], secretHeaders: Set<String> = [], secretParameters: Set<String> = []) {
        self.headers = headers
        self.query = query
        self.secretHeaders = secretHeaders
        self.secretParameters = secretParameters
    }

    /// No credentials: what a public API needs.
    public static let none = Credentials()

    /// Equal when every header, parameter and secret name is.
    public static func == (a: Credentials, b: Credentials) -> Bool {
        a.headers == b.headers && a.query.elementsEqual(b.query, by: ==) && a.secretHeaders == b.secretHeaders && a.secretParameters == b.secretParameters
            && a.tokenRequest == b.tokenRequest
    }
}

/// A credential that cannot be made: which, and why (the environment variable not set).
public struct CredentialsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is missing and what to set, as a user reads it.
    public let message: String
    /// False when a request was made on the way (to an OAuth 2.0 token endpoint), whose
    /// failure the message tells.
    public var sentNothing = true
    /// What failed: `httpStatus` when a token endpoint answered with an error status.
    public var failureClass: FailureClass = .transport
    /// A credential that cannot be made, saying why (`message`).
    public init(_ message: String, sentNothing: Bool = true, failureClass: FailureClass = .transport) {
        self.message = message
        self.sentNothing = sentNothing
        self.failureClass = failureClass
    }
    /// The message.
    public var description: String { message }
}

extension SourcePlugin {
    /// The source's name, unless the plug-in says more.
    public var summary: String { source.rawValue }
    /// None, unless the plug-in serves from more than one host.
    public var otherBases: [String] { [] }
    /// `realBase` for every kind, unless some kinds live on another host.
    public func realBase(for kind: DocumentKind) -> String { realBase }
    /// Revalidate on every open, unless the plug-in knows its data keeps.
    public var freshness: FreshnessRule { .alwaysRevalidate }
    /// Never: only a plug-in knows which status ends its lists.
    public func isEndOfList(status: UInt16, kind: DocumentKind) -> Bool { false }
    /// No slice: a source that folds only fetched bodies keeps none.
    public var initialSlice: (any SourceSlice)? { nil }
    /// None: a public API.
    public func credentials(environment: [String: String]) throws(CredentialsError) -> Credentials { .none }
    /// The source's credentials, for every kind.
    public func credentials(for kind: DocumentKind, environment: [String: String]) throws(CredentialsError) -> Credentials {
        try credentials(environment: environment)
    }
    /// False: a plug-in's bases are code; only a manifest's come from the log.
    public var basesAreData: Bool { false }
    /// A plain GET for every resource.
    public func request(for resource: Resource) -> SourceRequest { .get }
    /// None beyond the headers the log always keeps.
    public func keptResponseHeaders(for kind: DocumentKind) -> Set<String> { [] }
    /// None: a plug-in's resources are read-only unless it declares their writes.
    public func writes(for resource: String) -> ResourceWrites? { nil }
}

/// Images and other binary files named by bodies: the core's own source. A body's kind is
/// always `asset`; it decodes to `AssetInfo` (format as its bytes say, size, SHA-256).
struct AssetsPlugin: SourcePlugin {
    var source: Source { .assets }
    var summary: String { "images and other files named by bodies, on their own hosts" }
    var realBase: String { "" }
    func documentKind(ofPath path: String) -> DocumentKind? { .asset }
    func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument { try AssetInfo(body) }
}
