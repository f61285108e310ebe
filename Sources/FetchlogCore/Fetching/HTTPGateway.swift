import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The one way out: every request Fetchlog sends — a fetch's attempts, an asset, a pushed
/// write (`item add|set|delete`, `push`, `POST /api/items`), an OAuth 2.0 token request —
/// leaves the machine here, under one policy (issue 33):
///
/// - the address policy: a URL that comes from data (a body's asset URL, a manifest's base,
///   a redirect off the upstream) may reach public addresses only, unless
///   `allowPrivateHosts`; only http and https, never a unix socket or a file;
/// - redirects followed hop by hop (at most `maxRedirects`), each hop checked, validators
///   and every secret header dropped when one leads to another origin;
/// - credentials written in a URL (`--upstream http://user:pass@host`) sent as a header;
/// - the deadline over the whole answer (connecting, redirects, headers, body), the minimum
///   rate of the body, and the configured body limit: an answer over it is a failure with
///   its reason, never a success;
/// - `Retry-After` read one way (`retryAfter(_:)`), for the fetcher's retries and the
///   writes' backoff alike; messages redacted by the configuration's `Redaction`.
///
/// Nothing else in `Sources` names AsyncHTTPClient's client (`GatewayBoundaryTests`).
/// The `--upstream` rule (where a source's URL goes) is `Upstream.url`, which every caller
/// applies before handing the URL here.
package final class HTTPGateway: Sendable {
    package let configuration: FetchConfiguration
    private let client: HTTPClient
    private let shutDown = OnceFlag()

    package init(configuration: FetchConfiguration) {
        self.configuration = configuration
        var http = HTTPClient.Configuration()
        http.timeout = .init(connect: .nanoseconds(configuration.connectTimeout.nanoseconds),
                             read: .nanoseconds(configuration.readTimeout.nanoseconds))
        // Redirects are followed here, hop by hop (see `send`): the client's own following
        // forwarded If-None-Match and credentials to any host, went to any address a
        // Location named, and left no trace of the hops in the event.
        http.redirectConfiguration = .disallow
        // The pool would otherwise keep retrying a refused connection until the connect
        // timeout (10 s) runs out, and only then fail the attempt: an upstream that is down
        // would take 40 s to report. The fetcher's own RetryPolicy does the retrying, with
        // its backoff, and records each attempt as an event.
        http.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
    }

    /// Closes connections. Call once when done.
    package func shutdown() async {
        guard shutDown.claim() else { return }
        try? await client.shutdown()
    }

    /// A gateway dropped without `shutdown()` (an error path that forgot it) closes its
    /// client here: AsyncHTTPClient otherwise stops the whole process in the client's deinit.
    deinit {
        if shutDown.claim() { try? client.syncShutdown() }
    }

    /// One request as its caller means it; the gateway adds `User-Agent` and `Accept`.
    struct Request: Sendable {
        var url: String
        var method = "GET"
        var body: [UInt8]?
        var headers: [Header] = []
        var accept = "application/json"
        /// The address rule of the first hop (`firstHopRule`): nil for a URL the user chose.
        var addressRule: AddressRule?
        /// Response headers kept besides `Header.keptResponseHeaders` (lowercased).
        var keptHeaders: Set<String> = []
        /// Which redirects are followed; one that is not is the answer.
        var redirects = Redirects.follow
    }

    /// Which redirects a request follows.
    enum Redirects: Sendable {
        /// Every one (a 303, and a 301 or 302 after a POST, as a GET): reads.
        case follow
        /// Only 307 and 308, which repeat the method and body: a write turned into a GET
        /// would read an item and call the change made.
        case keepingTheMethod
        /// None: a token request's form carries the client secret, which goes only where
        /// it was written.
        case none
    }

    /// What came back of one request.
    enum Answer: Sendable {
        case response(status: UInt16, headers: [Header], body: [UInt8])
        case failure(FailureClass, String, status: UInt16?, headers: [Header], partialBody: [UInt8]?)
        /// Not sent (or not followed) by Fetchlog's own rules; never retried.
        case refused(FailureClass, String, status: UInt16?, headers: [Header])
    }

    /// The recorded response header naming one redirect followed: `302 http://host/path`
    /// (status, then the target, redacted), one per hop in order. The event envelope has no
    /// field for hops; a header keeps every existing reader working.
    package static let redirectHeader = "Fetchlog-Redirect"

    /// Request headers that only the origin they were meant for may see: dropped when a
    /// redirect leads to another scheme, host or port.
    static let originBoundHeaders: Set<String> = ["if-none-match", "if-modified-since", "authorization", "cookie", "proxy-authorization"]

    /// True when `url` is on the `--upstream` server's origin (always allowed).
    func isUpstream(_ url: String) -> Bool {
        guard let base = configuration.upstream.base else { return false }
        return URLParts(url).origin == URLParts(base).origin
    }

    /// The address rule of a first hop to `url`, or nil when the URL is the user's choice:
    /// the `--upstream` base, or a source in code. `asset`: a body named it; `basesAreData`:
    /// a manifest's base (data in the log, which may merge in from another store's).
    func firstHopRule(url: String, asset: Bool, basesAreData: Bool) -> AddressRule? {
        guard !isUpstream(url) else { return nil }
        if asset { return .asset }
        if basesAreData { return .manifestBase }
        return nil
    }

    /// Why `url` is not fetched at all (not http or https), or nil.
    func schemeRefusal(_ url: String, redirect: Bool) -> String? {
        let scheme = URLParts(url).scheme?.lowercased()
        if let scheme, AddressCheck.schemes.contains(scheme) { return nil }
        let what = redirect ? "a redirect to \(configuration.redaction.url(url))" : configuration.redaction.url(url)
        return "refused: \(what) is not an http or https URL (scheme \(scheme ?? "none")); Fetchlog fetches web addresses only, "
            + "never a unix socket or a file, so nothing was sent"
    }

    /// Why the host of `url` may not be reached (it resolves to a non-public address and
    /// `allowPrivateHosts` is off), or nil. A name that does not resolve is a transport
    /// failure like any other, worth a retry.
    private func addressRefusal(_ url: String, rule: AddressRule) async -> Answer? {
        guard !configuration.allowPrivateHosts else { return nil }
        let host = URLParts(url).host
        switch await AddressCheck.resolve(host) {
        case .failure(let error):
            return .failure(.transport, "could not resolve \(error.host): \(error.reason)", status: nil, headers: [], partialBody: nil)
        case .success(let addresses):
            // Every address: a name that resolves to a public and a private address could be
            // connected to either.
            for address in addresses {
                guard let kind = AddressCheck.privateKind(of: address.bytes) else { continue }
                let subject = rule == .redirect ? "the redirect to \(configuration.redaction.url(url))" : configuration.redaction.url(url)
                return .refused(.transport, "refused: \(subject) leads to \(host), \(kind) (\(address.text)), and \(rule.urls) may reach public "
                    + "addresses only; nothing was sent. Pass \(FrontEndTerm.allowPrivateHosts) to allow it, "
                    + "or \(rule.remedy)",
                    status: nil, headers: [])
            }
            return nil
        }
    }

    /// One attempt: the request, its redirects (each checked, at most `maxRedirects`) and
    /// the body, all within `deadline`, the body no slower than `minimumRate`.
    func send(_ asked: Request, limitHit: LimitHit = LimitHit()) async -> Answer {
        let (url, headers, accept, checkAddress, keptExtra) = (asked.url, asked.headers, asked.accept, asked.addressRule, asked.keptHeaders)
        let deadline = ContinuousClock.now + configuration.deadline
        // Credentials written in the URL are sent as a header, never in the request line
        // (the caller records its own `Authorization: ***`); one already given wins.
        let (plain, authorization) = URLParts(url).splitCredentials()
        var current = plain
        var sending = headers
        if let authorization, !headers.contains(where: { $0.name.lowercased() == "authorization" }) {
            sending.append(Header("Authorization", authorization))
        }
        var method = asked.method
        var body = asked.body
        var check = checkAddress
        var hops: [Header] = []
        var lastRedirect: (status: UInt16, headers: [Header])?
        /// The result with the hops recorded; a failure after a redirect keeps the redirect
        /// as its response (the last answer that came) and says where it failed.
        func finish(_ result: Answer) -> Answer {
            guard let lastRedirect else { return result }
            let count = hops.count == 1 ? "1 redirect" : "\(hops.count) redirects"
            switch result {
            case .response(let status, let headers, let body):
                return .response(status: status, headers: headers + hops, body: body)
            case .failure(let failureClass, let message, let status, let headers, let partial):
                return .failure(failureClass, message + " (at \(configuration.redaction.url(current)), after \(count))",
                                status: status ?? lastRedirect.status, headers: (status == nil ? lastRedirect.headers : headers) + hops,
                                partialBody: partial)
            case .refused(let failureClass, let message, let status, let headers):
                return .refused(failureClass, message, status: status ?? lastRedirect.status,
                                headers: (status == nil ? lastRedirect.headers : headers) + hops)
            }
        }

        while true {
            // Every hop, the first too: a write's or a token's URL is built from a manifest.
            if let refusal = schemeRefusal(current, redirect: hops.count > 0) {
                return finish(.refused(.transport, refusal, status: nil, headers: []))
            }
            if let rule = check, let refusal = await addressRefusal(current, rule: rule) { return finish(refusal) }
            var request = HTTPClientRequest(url: current)
            request.method = HTTPMethod(rawValue: method)
            if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
            request.headers.add(name: "User-Agent", value: configuration.userAgent)
            request.headers.add(name: "Accept", value: accept)
            for header in sending { request.headers.add(name: header.name, value: header.value) }
            let remaining = deadline - ContinuousClock.now
            let response: HTTPClientResponse
            do {
                guard remaining > .zero else { throw HTTPClientError.deadlineExceeded }
                // The client's deadline covers only the wait for the headers; the body is
                // bounded below, by the same instant.
                response = try await client.execute(request, deadline: .now() + .nanoseconds(remaining.nanoseconds))
            } catch {
                if let error = error as? HTTPClientError, error == .deadlineExceeded {
                    // The client gave up at the deadline (on its event loop); this task may
                    // resume later on a busy pool, which is not the attempt's time.
                    limitHit.record(min(deadline, ContinuousClock.now))
                    return finish(.failure(.timeout, "the attempt ran past its deadline of \(Self.seconds(configuration.deadline)) (headers and body) "
                        + "before the response headers arrived; raise \(FrontEndTerm.deadline) if the upstream is only slow", status: nil, headers: [], partialBody: nil))
                }
                let (failureClass, message) = Self.describe(error)
                return finish(.failure(failureClass, message, status: nil, headers: [], partialBody: nil))
            }
            let status = UInt16(clamping: response.status.code)
            let kept = response.headers.filter {
                let name = $0.name.lowercased()
                return Header.keptResponseHeaders.contains(name) || keptExtra.contains(name)
            }.map { Header($0.name, $0.value) }

            let follows: Set<UInt16> = switch asked.redirects {
            case .follow: [301, 302, 303, 307, 308]
            case .keepingTheMethod: [307, 308]
            case .none: []
            }
            if follows.contains(status), let location = response.headers.first(name: "location") {
                // The redirect's own body is not wanted: dropping the response ends its stream,
                // and the client closes that connection.
                guard let target = URL(string: location, relativeTo: URL(string: current))?.absoluteString else {
                    return finish(.refused(.httpStatus, "HTTP \(status) with a Location that is not a URL: \(configuration.redaction.url(location))",
                                           status: status, headers: kept))
                }
                guard hops.count < configuration.maxRedirects else {
                    return finish(.refused(.httpStatus, "HTTP \(status): more than \(configuration.maxRedirects) redirects (the next to "
                        + "\(configuration.redaction.url(target))); the upstream is probably redirecting in a loop", status: status, headers: kept))
                }
                hops.append(Header(Self.redirectHeader, "\(status) \(configuration.redaction.url(target))"))
                lastRedirect = (status, kept)
                // Credentials a Location carries are never sent: the user did not give them.
                let next = URLParts(URLParts(target).splitCredentials().url)
                if next.origin != URLParts(current).origin {
                    // Validators belong to the origin; so does every header named as a secret
                    // (a manifest's `X-Api-Key`, not only Authorization): one naming rule.
                    sending.removeAll { Self.originBoundHeaders.contains($0.name.lowercased()) || Redaction.isSecretHeader($0.name) }
                }
                // A 303, and a 301 or 302 after a POST, is followed with a GET and no body (as
                // browsers and Python's requests do); a 307 or 308 repeats the request as it was.
                if method != "GET", status == 303 || status == 301 || status == 302 {
                    method = "GET"
                    body = nil
                    sending.removeAll { $0.name.lowercased() == "content-type" }
                }
                check = isUpstream(next.string) ? nil : .redirect
                current = next.string
                continue
            }

            let expected = response.headers.first(name: "content-length").flatMap(Int.init)
            let (end, limit) = await readBody(response.body, expected: expected, deadline: deadline, limitHit: limitHit)
            switch end {
            case .complete(let body):
                if let expected, body.count < expected {
                    return finish(.failure(.truncated, "\(body.count) of \(expected) body bytes arrived", status: status, headers: kept, partialBody: body))
                }
                return finish(.response(status: status, headers: kept, body: body))
            case .tooLarge:
                return finish(.failure(.truncated, "body larger than the \(configuration.maxBodyBytes)-byte limit; cut off "
                                       + "(raise \(FrontEndTerm.maxBody) if the upstream's answers are that large)",
                                       status: status, headers: kept, partialBody: nil))
            case .failed(let error, let body):
                let of = expected.map { " of \($0)" } ?? ""
                switch limit {
                case .deadline?:
                    return finish(.failure(.timeout, "the attempt ran past its deadline of \(Self.seconds(configuration.deadline)) (headers and body) "
                        + "after \(body.count)\(of) body bytes; raise \(FrontEndTerm.deadline) if the upstream is only slow",
                        status: status, headers: kept, partialBody: body))
                case .rate(let received, let span)?:
                    let rate = Int((Double(received) / max(span.seconds, 0.001)).rounded())
                    return finish(.failure(.timeout, "the body arrived at \(rate) bytes/s over the last \(Self.seconds(span)), below the minimum rate "
                        + "of \(configuration.minimumRate.bytesPerSecond) bytes/s, after \(body.count)\(of) body bytes; "
                        + "lower \(FrontEndTerm.minimumRate) (0 turns the check off) if the upstream is only slow",
                        status: status, headers: kept, partialBody: body))
                case nil:
                    var (failureClass, message) = Self.describe(error)
                    if failureClass != .timeout && !message.contains("reset") { failureClass = .truncated }
                    message += " after \(body.count)\(of) body bytes"
                    return finish(.failure(failureClass, message, status: status, headers: kept, partialBody: body))
                }
            }
        }
    }

    // MARK: Reading a body within its limits

    private enum BodyEnd: Sendable {
        case complete([UInt8])
        case tooLarge
        case failed(any Error, [UInt8])
    }

    enum BodyLimit: Sendable, Equatable {
        case deadline
        /// `received` bytes over the last `span`.
        case rate(received: Int, span: Duration)
    }

    /// Bytes read so far, shared by the reader and the watch over it.
    private final class BodyProgress: Sendable {
        private let bytes = Mutex(0)
        func add(_ count: Int) { bytes.withLock { $0 += count } }
        var count: Int { bytes.withLock { $0 } }
    }

    /// When an attempt's deadline or rate limit hit, if one did.
    final class LimitHit: Sendable {
        private let instant = Mutex<ContinuousClock.Instant?>(nil)
        var at: ContinuousClock.Instant? { instant.withLock { $0 } }
        func record(_ at: ContinuousClock.Instant) { instant.withLock { if $0 == nil { $0 = at } } }
    }

    /// Reads the body in a task while a dispatch timer watches the deadline and the rate; the
    /// first limit hit cancels the read, which ends the stream (the client then closes the
    /// connection) and leaves what arrived as the partial body. The watch runs on a timer
    /// off the cooperative pool, so a busy pool cannot hold a deadline up, and it bounds the
    /// read even when no chunk comes: a check on each chunk alone would wait for the next
    /// byte of a server that dribbles.
    private func readBody(_ body: HTTPClientResponse.Body, expected: Int?, deadline: ContinuousClock.Instant,
                          limitHit: LimitHit) async -> (BodyEnd, BodyLimit?) {
        let progress = BodyProgress()
        let maxBytes = configuration.maxBodyBytes
        let reader = Task { () -> BodyEnd in
            var bytes: [UInt8] = []
            if let expected, expected <= maxBytes { bytes.reserveCapacity(expected) }
            do {
                for try await chunk in body {
                    bytes.append(contentsOf: chunk.readableBytesView)
                    progress.add(chunk.readableBytes)
                    if bytes.count > maxBytes { return .tooLarge }
                }
            } catch {
                return .failed(error, bytes)
            }
            // A cancelled stream may end as if complete; only the length tells.
            if Task.isCancelled, bytes.count < (expected ?? Int.max) { return .failed(CancellationError(), bytes) }
            return .complete(bytes)
        }
        let watch = LimitWatch(progress: progress, deadline: deadline, rate: configuration.minimumRate) { at in
            limitHit.record(at)
            reader.cancel()
        }
        let end = await withTaskCancellationHandler { await reader.value } onCancel: { reader.cancel() }
        let limit = watch.stop()
        // A body that was complete when the limit hit is kept whole.
        if case .complete = end { return (end, nil) }
        return (end, limit)
    }

    /// The deadline and minimum-rate watch of one body, on a dispatch timer: samples the byte
    /// count every 100 ms; the rate is taken between now and the newest sample at least a
    /// window old, so it covers a full window whatever the tick.
    ///
    /// `@unchecked Sendable`: the hit and the samples are in a `Mutex`; the timer (a
    /// dispatch source, which is thread-safe but not marked `Sendable`) fires on its own
    /// queue and is cancelled by `stop` from the fetch's task.
    private final class LimitWatch: @unchecked Sendable {
        private struct Watch {
            var hit: BodyLimit?
            var samples: [(at: ContinuousClock.Instant, bytes: Int)]
        }

        private let timer: DispatchSourceTimer
        private let watch: Mutex<Watch>

        init(progress: BodyProgress, deadline: ContinuousClock.Instant, rate: MinimumRate,
             onHit: @escaping @Sendable (ContinuousClock.Instant) -> Void) {
            let started = ContinuousClock.now
            watch = Mutex(Watch(hit: nil, samples: [(started, 0)]))
            timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .userInitiated))
            timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100), leeway: .milliseconds(5))
            // The handler holds the watch until `stop` removes it (a cycle broken there).
            timer.setEventHandler { [self] in
                let at = ContinuousClock.now
                let limit: BodyLimit? = watch.withLock { watch in
                    guard watch.hit == nil else { return nil }
                    if at >= deadline {
                        watch.hit = .deadline
                        return watch.hit
                    }
                    guard rate.bytesPerSecond > 0, rate.window > .zero else { return nil }
                    let bytes = progress.count
                    watch.samples.append((at, bytes))
                    let cutoff = at - rate.window
                    guard cutoff >= started else { return nil }
                    while watch.samples.count > 1, watch.samples[1].at <= cutoff { watch.samples.removeFirst() }
                    let span = at - watch.samples[0].at
                    let received = bytes - watch.samples[0].bytes
                    if Double(received) < Double(rate.bytesPerSecond) * span.seconds { watch.hit = .rate(received: received, span: span) }
                    return watch.hit
                }
                if limit != nil { onHit(at) }
            }
            timer.resume()
        }

        /// Stops the watch; the limit that hit, if any.
        func stop() -> BodyLimit? {
            timer.cancel()
            timer.setEventHandler(handler: nil)
            return watch.withLock { $0.hit }
        }
    }

    /// `60 s`, `2.5 s`: a duration as messages show it.
    static func seconds(_ duration: Duration) -> String {
        let value = duration.seconds
        return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }


    /// Retry-After as seconds or an HTTP date (relative to the injected clock), read as the
    /// log reads it for a sync's backoff (`RetryAfterHeader`): one reader.
    func retryAfter(_ value: String) -> Duration? {
        RetryAfterHeader.delay(value, at: configuration.clock.now()).map { .milliseconds($0) }
    }


    /// True when a failure's message (`describe`'s, or the resolver's) says the request never
    /// left this machine: refused, not connected, the name not resolved. Any other failure
    /// may have reached the server (a write's outcome is then in doubt). Decided here, beside
    /// the messages it reads.
    static func neverLeft(_ message: String, status: UInt16?) -> Bool {
        status == nil && ["connection refused", "could not connect", "could not resolve"].contains { message.hasPrefix($0) }
    }

    /// The failure class and a one-line message for a transport-level error.
    static func describe(_ error: any Error) -> (FailureClass, String) {
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout: return (.timeout, "no data within the read timeout")
            case .connectTimeout: return (.timeout, "could not connect within the connect timeout")
            case .deadlineExceeded: return (.timeout, "the attempt ran past its deadline")
            case .remoteConnectionClosed: return (.transport, "the upstream closed the connection")
            default: break
            }
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return (.timeout, "could not connect within the connect timeout")
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED: return (.transport, "connection refused")
            case ECONNRESET: return (.transport, "connection reset by the upstream")
            default: return (.transport, "I/O error: \(String(cString: strerror(error.errnoCode)))")
            }
        }
        let text = String(describing: error)
        if text.localizedCaseInsensitiveContains("refused") { return (.transport, "connection refused") }
        if text.localizedCaseInsensitiveContains("reset") { return (.transport, "connection reset by the upstream") }
        if text.localizedCaseInsensitiveContains("timeout") || text.localizedCaseInsensitiveContains("timed out") {
            return (.timeout, "timed out")
        }
        return (.transport, text)
    }
}
