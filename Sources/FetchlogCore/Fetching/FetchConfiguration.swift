import FetchlogLMDB
import Foundation
import Logging

/// How the fetcher asks: where requests go, timeouts, limits, retries, what is masked, the clock.
public struct FetchConfiguration: Sendable {
    /// Where requests go: the real hosts (the default) or one upstream server standing in for them.
    public var upstream: Upstream = .real
    /// Time to establish a connection.
    public var connectTimeout: Duration = .seconds(10)
    /// Longest silence while waiting for the response or its body.
    public var readTimeout: Duration = .seconds(20)
    /// Longest a whole attempt may take: connecting, redirects, headers and the whole body.
    /// A server that drips a body a byte at a time never trips the read timeout; this ends
    /// the attempt anyway, as a `timeout` failure (`--deadline`).
    public var deadline: Duration = .seconds(60)
    /// The least a body must deliver once it streams (`--min-rate`): a body far slower than
    /// any real link is a stuck or hostile server, cut off long before the deadline.
    public var minimumRate = MinimumRate()
    /// Redirects followed within one attempt; one more is a failure.
    public var maxRedirects = 5
    /// Let URLs named by bodies (images), manifests' base URLs and redirects reach loopback,
    /// link-local, private and other non-public addresses (`--allow-private-hosts`). Off: a
    /// body or a manifest (data in the log, which may merge in from another store) cannot
    /// make Fetchlog probe the machine it runs on or its network. The `--upstream` base is
    /// always allowed.
    public var allowPrivateHosts = false
    /// What is masked in every recorded URL and request header (`--redact-param`).
    public var redaction = Redaction()
    /// How many attempts a failing request gets and how long to wait between them.
    public var retry = RetryPolicy()
    /// A body larger than this is cut off and recorded as truncated.
    public var maxBodyBytes = 256 << 20
    /// Stamps each attempt; `Store.Configuration.clock` replaces it, so a store has one clock.
    public var clock: any WallClock = SystemClock()
    /// Sent as `User-Agent` with every request, so an upstream's operators can tell who asks.
    public var userAgent = "fetchlog/\(FetchlogVersion.string)"
    /// Forbid the network: every fetch answers "offline" without a request or an event.
    public var offline = false
    /// Where `env:NAME` secrets of sources (manifests' `auth`, `headers`) are read, at
    /// fetch time.
    public var environment: [String: String] = ProcessInfo.processInfo.environment

    /// Where requests and their outcomes (debug) and retries with their wait (info) are
    /// logged; label `fetchlog.fetch`. URLs and statuses only: never bodies or header values.
    public var logger = LibraryLogging.logger(label: "fetchlog.fetch")

    /// The defaults: real hosts, the timeouts and limits above, secrets masked.
    public init() {}

    /// The old name of `deadline`, kept so existing code still compiles.
    @available(*, deprecated, renamed: "deadline")
    package var requestTimeout: Duration {
        get { deadline }
        set { deadline = newValue }
    }

    /// `--upstream`, else `$FETCHLOG_UPSTREAM`, else the real hosts.
    package static func upstream(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> Upstream {
        if let explicit, !explicit.isEmpty { return Upstream(base: explicit) }
        return Upstream(base: environment["FETCHLOG_UPSTREAM"])
    }
}

/// The slowest a response body may arrive. The rate is measured over the last `window`,
/// from `window` after the headers on: a slow start or a short pause is not punished, a
/// body that keeps trickling is.
public struct MinimumRate: Sendable, Equatable {
    /// 0 turns the check off.
    public var bytesPerSecond: Int
    /// How far back the rate is measured: a pause shorter than this is not punished.
    public var window: Duration

    /// A floor of `bytesPerSecond` measured over `window`.
    public init(bytesPerSecond: Int = 1024, window: Duration = .seconds(10)) {
        self.bytesPerSecond = bytesPerSecond
        self.window = window
    }

    /// No floor: only the deadline and the read timeout end a slow body.
    public static let off = MinimumRate(bytesPerSecond: 0)
}
