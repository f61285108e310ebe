import FetchlogLMDB
import Foundation
import Logging

public struct FetchConfiguration: Sendable {
    public var upstream: Upstream = .real
    /// Time to establish a connection.
    public var connectTimeout: Duration = .seconds(10)
    /// Longest silence while waiting for the response or its body.
    public var readTimeout: Duration = .seconds(20)
    /// Longest a whole attempt may take.
    public var requestTimeout: Duration = .seconds(120)
    public var retry = RetryPolicy()
    /// A body larger than this is cut off and recorded as truncated.
    public var maxBodyBytes = 256 << 20
    public var clock: any Clock = SystemClock()
    public var userAgent = "fetchlog/\(FetchlogVersion.string)"
    /// Forbid the network: every fetch answers "offline" without a request or an event.
    public var offline = false
    /// Checks that a 2xx body has the shape its endpoint promises.
    public var validate: @Sendable (DocumentKind, [UInt8]) throws(DecodeError) -> Void = FetchConfiguration.decodeDocument

    /// Where requests and their outcomes (debug) and retries with their wait (info) are
    /// logged; label `fetchlog.fetch`. URLs and statuses only: never bodies or header values.
    public var logger = LibraryLogging.logger(label: "fetchlog.fetch")

    public init() {}

    /// `--upstream`, else `$FETCHLOG_UPSTREAM`, else the real hosts.
    public static func upstream(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> Upstream {
        if let explicit, !explicit.isEmpty { return Upstream(base: explicit) }
        return Upstream(base: environment["FETCHLOG_UPSTREAM"])
    }

    public static func decodeDocument(_ kind: DocumentKind, _ body: [UInt8]) throws(DecodeError) {
        _ = try DocumentDecoder.decode(kind, body: body)
    }
}
