import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Fetches resources over HTTP and turns every attempt's outcome into one event, which it
/// hands to the caller's recorder (the store appends it): the fetcher writes nothing.
///
/// Stateless about the log's contents: conditional requests use the validators the caller
/// passes (the store takes them from its snapshot, caught up with the log first, so two
/// processes sharing a store revalidate with the newest ones). Failures are
/// retried per `RetryPolicy` (transport, timeout, truncated, 5xx, 408, 429), and the
/// attempts before a success stay in the log as failures. A 2xx body that does not
/// decode is stored raw as a `decode` failure and not retried: the server would send
/// it again.
package final class Fetcher: Sendable {
    /// Where each resource's source lives and how its bodies decode.
    package let sources: SourceRegistry
    package let configuration: FetchConfiguration
    let client: HTTPClient
    /// OAuth 2.0 access tokens (`oauth2_client_credentials`), held in memory for their lifetime.
    let oauth2Tokens = OAuth2Tokens()
    private let shutDown = OnceFlag()
    private let inFlight = InFlight()
    /// Internal so that tests can see a caller join a shared fetch.
    let waiters = FetchWaiters()

    package init(sources: SourceRegistry, configuration: FetchConfiguration = FetchConfiguration()) {
        self.sources = sources
        self.configuration = configuration
        var http = HTTPClient.Configuration()
        http.timeout = .init(connect: .nanoseconds(configuration.connectTimeout.nanoseconds),
                             read: .nanoseconds(configuration.readTimeout.nanoseconds))
        // Redirects are followed here, hop by hop (see `perform`): the client's own following
        // forwarded If-None-Match and credentials to any host, went to any address a
        // Location named, and left no trace of the hops in the event.
        http.redirectConfiguration = .disallow
        // The pool would otherwise keep retrying a refused connection until the connect
        // timeout (10 s) runs out, and only then fail the attempt: an upstream that is down
        // would take 40 s to report. Fetcher's own RetryPolicy does the retrying, with its
        // backoff, and records each attempt as an event.
        http.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
    }

    /// Closes connections. Call once when done.
    package func shutdown() async {
        guard shutDown.claim() else { return }
        try? await client.shutdown()
    }

    /// A fetcher dropped without `shutdown()` (an error path that forgot it) closes its
    /// client here: AsyncHTTPClient otherwise stops the whole process in the client's deinit.
    deinit {
        if shutDown.claim() { try? client.syncShutdown() }
    }

    /// The URL a resource is asked at under this configuration's upstream.
    package func url(for resource: Resource, plugin: (any SourcePlugin)? = nil) -> String {
        let base = (plugin ?? sources.plugin(resource.source))?.realBase(for: resource.document) ?? ""
        return configuration.upstream.url(source: resource.source, path: resource.path, realBase: base)
    }

    /// The URL as events, reports and log lines show it: userinfo and secret query
    /// parameters masked (see `Redaction`).
    package func recordedURL(for resource: Resource, plugin: (any SourcePlugin)? = nil) -> String {
        configuration.redaction.url(url(for: resource, plugin: plugin))
    }

    /// Fetches `resource`, retrying as the policy says, and hands each attempt's outcome
    /// to `recorder` as it ends (the store appends it to the log, or to its session for
    /// resources outside the durable window). Throws only when the recorder cannot record
    /// an attempt; every network outcome is in the report.
    ///
    /// Concurrent fetches of one resource share one request (and the first caller's
    /// recorder): the later callers wait for the first one's report. With `offline` set,
    /// nothing is sent and nothing recorded.
    ///
    /// `validators` (of the held body) make a durable fetch conditional; a session-only
    /// fetch is never conditional. Callers go through `Store.fetch`, which passes the
    /// snapshot's and records into the store.
    ///
    /// `plugin` is the resource's source when it is not registered (a manifest's, held in
    /// the store's state); nil looks it up in `sources`.
    package func fetch(_ resource: Resource, recordingInto recorder: FetchRecorder, validators: Validators? = nil,
                       plugin: (any SourcePlugin)? = nil) async throws -> FetchReport {
        if configuration.offline {
            return FetchReport(resource: resource, url: recordedURL(for: resource, plugin: plugin), attempts: [],
                               outcome: .failed(.transport, "offline: the network is not used (\(FrontEndTerm.offline))"))
        }
        // Cancelled before it started (Ctrl-C between two pages): nothing to abandon.
        if Task.isCancelled {
            throw FetchCancelled(completed: FetchLedger.current?.reports ?? [], interrupted: nil, requestInFlight: false)
        }
        // Counted before joining, so a caller that cancels in between never stops the
        // request this one is about to wait for.
        let ticket = waiters.join(resource)
        defer { ticket.leave() }
        let (task, shared) = inFlight.task(for: resource) {
            Task { try await self.performFetch(resource, recorder: recorder, validators: validators, plugin: plugin) }
        }
        defer { if !shared { inFlight.finish(resource) } }
        do {
            // The fetch runs in a task of its own (shared by concurrent callers), which does
            // not inherit this task's cancellation: pass it on, unless another caller still
            // waits for the answer.
            let report = try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                if ticket.leave() == 0 { task.cancel() }
            }
            FetchLedger.current?.add(report)
            return report
        } catch var cancelled as FetchCancelled {
            guard Task.isCancelled else {
                // Joined a shared fetch just as its last other caller cancelled it: this
                // caller still wants the answer, so it asks again (once that task is gone).
                ticket.leave()
                await Task.yield()
                return try await fetch(resource, recordingInto: recorder, validators: validators, plugin: plugin)
            }
            cancelled.completed = FetchLedger.current?.reports ?? []
            throw cancelled
        }
    }

    private func performFetch(_ resource: Resource, recorder: FetchRecorder, validators: Validators?,
                              plugin given: (any SourcePlugin)?) async throws -> FetchReport {
        let plugin = given ?? sources.plugin(resource.source)
        // Credentials in the URL (`--upstream http://user:pass@host`) are sent as a header,
        // never recorded: the event keeps `***` for both (see `Redaction`).
        // The source's credentials (API keys, tokens, fixed headers), resolved now, sent, and
        // recorded only as `***`. One that cannot be made (an `env:` variable not set) ends
        // the fetch before any attempt: nothing is sent, so nothing is recorded (an event
        // would claim a request), and the report says which variable is missing. An OAuth 2.0
        // token is asked first (`authorized`); a token endpoint that fails ends it the same way.
        let credentials: Credentials
        do throws(CredentialsError) {
            credentials = try await authorized(plugin?.credentials(for: resource.document, environment: configuration.environment) ?? .none,
                                               plugin: plugin, source: resource.source)
        } catch {
            return FetchReport(resource: resource, url: configuration.redaction.url(url(for: resource, plugin: plugin)), attempts: [],
                               outcome: .failed(error.failureClass, error.description + (error.sentNothing ? "; nothing was sent or recorded" : "")))
        }
        var redaction = configuration.redaction
        redaction.queryParameters.formUnion(credentials.secretParameters.map { $0.lowercased() })
        var target = url(for: resource, plugin: plugin)
        if !credentials.query.isEmpty {
            target += (target.contains("?") ? "&" : "?") + credentials.query.map { "\($0.0)=\(Resource.queryEscape($0.1))" }.joined(separator: "&")
        }
        let (url, authorization) = URLParts(target).splitCredentials()
        let recordedURL = redaction.url(target)
        let secretHeaders = credentials.secretHeaders
        func recorded(_ headers: [Header]) -> [Header] {
            redaction.headers(headers).map { secretHeaders.contains($0.name.lowercased()) ? Header($0.name, Redaction.mask) : $0 }
        }
        var requestHeaders: [Header] = credentials.headers
        if let authorization { requestHeaders.append(Header("Authorization", authorization)) }
        // The method and body the source asks with (a manifest's POST); the body is recorded
        // as sent, never masked: the log replays it.
        let asked = plugin?.request(for: resource) ?? .get
        if asked.body != nil, let contentType = asked.contentType { requestHeaders.append(Header("Content-Type", contentType)) }
        // A request's own headers (filled templates) over the source's of the same name.
        for header in asked.headers {
            requestHeaders.removeAll { $0.name.lowercased() == header.name.lowercased() }
            requestHeaders.append(header)
        }
        let keptExtra = plugin?.keptResponseHeaders(for: resource.document) ?? []
        var conditional = false
        // Only a GET is revalidated: a POST's answer depends on its body and is not a cached
        // representation (dlt never revalidates either), so it is always asked in full.
        if recorder.isDurable, asked.method == "GET", let held = validators {
            if let etag = held.etag { requestHeaders.append(Header("If-None-Match", etag)) }
            if let modified = held.lastModified { requestHeaders.append(Header("If-Modified-Since", modified)) }
            conditional = held.etag != nil || held.lastModified != nil
        }
        // A URL named by a body (an image) that is not a web address is refused before any
        // connection: AsyncHTTPClient would follow `http+unix://` to a local socket. Checked
        // on the URL as named, since under `--upstream` it is rewritten to an http one.
        let namedRefusal = resource.document == .asset ? schemeRefusal(resource.path, redirect: false) : nil
        var attempts: [FetchReport.Attempt] = []
        var random = SystemRandomNumberGenerator()
        var attempt = 1
        /// What was recorded when the fetch is cancelled.
        func cancelled(requestInFlight: Bool) -> FetchCancelled {
            FetchCancelled(completed: [], interrupted: FetchReport(resource: resource, url: recordedURL, attempts: attempts,
                                                                  outcome: .failed(.transport, "cancelled")),
                           requestInFlight: requestInFlight)
        }
        while true {
            if Task.isCancelled { throw cancelled(requestInFlight: false) }
            configuration.logger.debug("request", metadata: [
                "resource": "\(resource)", "url": "\(recordedURL)", "attempt": "\(attempt)", "conditional": "\(conditional)",
            ])
            let started = ContinuousClock.now
            let limitHit = LimitHit()
            let result: AttemptResult = if let namedRefusal {
                .refused(.transport, namedRefusal, status: nil, headers: [])
            } else {
                // Only URLs from data are checked on the first hop — bodies' (assets) and a
                // manifest's base, which is in the log and may come from another store's: the
                // hosts of sources in code and the `--upstream` base are the user's choice.
                // Every redirect off the upstream is checked: a Location is as untrusted as a body.
                await perform(url: url, method: asked.method, body: asked.body, headers: requestHeaders,
                              accept: resource.document == .asset ? "image/*" : "application/json",
                              checkAddress: addressCheck(resource, plugin: plugin, url: url), keptExtra: keptExtra, limitHit: limitHit)
            }
            // A failure while cancelled is the cancellation itself (the HTTP client abandons
            // the request): nothing came back from the upstream, so nothing is recorded. A
            // complete answer that arrived anyway is recorded like any other, without a retry.
            if Task.isCancelled, case .failure = result { throw cancelled(requestInFlight: true) }
            // An attempt stopped by its deadline or rate ended when the limit hit (the connection
            // was closed then), not when this task got back to it.
            let elapsed = (limitHit.at ?? ContinuousClock.now) - started
            var event = Event(recordedAt: configuration.clock.now(), kind: .fetched, source: resource.source.rawValue,
                              label: resource.path, attempt: UInt16(clamping: attempt),
                              durationMicros: UInt64(max(0, elapsed.nanoseconds / 1000)),
                              request: Event.Request(method: asked.method, url: recordedURL, headers: recorded(requestHeaders), body: asked.body))
            var decoded: (any SourceDocument)?
            let retryable = classify(result, resource: resource, plugin: plugin, into: &event, decoded: &decoded)
            // Recorded now, before any wait: the attempts stay in order, and a fetch cancelled
            // during a backoff leaves the ones before it recorded.
            let seq: UInt64
            do {
                seq = try await recorder.record(FetchOutcome(event: event, decoded: event.kind == .fetched ? decoded : nil))
            } catch {
                throw FetchStoreError(resource: resource, underlying: error)
            }
            event.seq = seq

            var wait: Duration?
            if retryable, attempt <= configuration.retry.retries {
                let retryAfter = event.response?.header("Retry-After").flatMap { parseRetryAfter($0) }
                wait = configuration.retry.delay(beforeRetry: attempt, retryAfter: retryAfter, random: &random)
            }
            configuration.logger.debug("response", metadata: [
                "resource": "\(resource)", "attempt": "\(attempt)", "kind": "\(event.kind)",
                "status": "\(event.response.map { String($0.status) } ?? "none")", "bodyBytes": "\(event.body?.count ?? 0)",
                "failure": "\(event.failure.map { "\($0.failureClass.name): \($0.message)" } ?? "none")",
                "durationMs": "\(elapsed.nanoseconds / 1_000_000)", "seq": "\(seq)",
            ])
            if let wait {
                configuration.logger.info("retrying", metadata: [
                    "resource": "\(resource)", "attempt": "\(attempt)", "next": "\(attempt + 1)", "wait": "\(wait)",
                    "reason": "\(event.failure.map { "\($0.failureClass.name): \($0.message)" } ?? "status \(event.response?.status ?? 0)")",
                ])
            }
            var made = FetchReport.Attempt(seq: seq, kind: event.kind, status: event.response?.status,
                                           failure: event.failure, bodyBytes: event.body?.count ?? 0, retryAfter: wait)
            // A durable append that came back without a seq went to a replicated store's outbox.
            if recorder.isDurable, seq == 0 { made.pendingSync = true }
            attempts.append(made)
            guard let wait else {
                let outcome: FetchReport.Outcome = switch event.kind {
                case .fetched: .fetched
                case .notModified: .notModified
                case .endOfList: .endOfList
                default: .failed(event.failure?.failureClass ?? .transport, event.failure?.message ?? "failed")
                }
                if event.response?.status == 401 { await tokenRefused(credentials) }
                var report = FetchReport(resource: resource, url: recordedURL, attempts: attempts, outcome: outcome)
                report.responseHeaders = event.response?.headers ?? []
                return report
            }
            // Cancelled before or during the wait: no next attempt; the error lists the
            // attempts recorded, this one included. (Task.sleep throws at once when the
            // task is already cancelled.)
            do { try await Task.sleep(for: wait) } catch { throw cancelled(requestInFlight: false) }
            attempt += 1
        }
    }

    // MARK: One attempt

    private enum AttemptResult {
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

    private func isUpstream(_ url: String) -> Bool {
        guard let base = configuration.upstream.base else { return false }
        return URLParts(url).origin == URLParts(base).origin
    }

    /// Whether the first hop to `url` meets the address policy, and why: the URL comes from
    /// data (a body's asset URL, a manifest's base) and does not go to the upstream.
    private func addressCheck(_ resource: Resource, plugin: (any SourcePlugin)?, url: String) -> AddressRule? {
        guard !isUpstream(url) else { return nil }
        if resource.document == .asset { return .asset }
        if plugin?.basesAreData == true { return .manifestBase }
        return nil
    }

    /// Why `url` is not fetched at all (not http or https), or nil.
    private func schemeRefusal(_ url: String, redirect: Bool) -> String? {
        let scheme = URLParts(url).scheme?.lowercased()
        if let scheme, AddressCheck.schemes.contains(scheme) { return nil }
        let what = redirect ? "a redirect to \(configuration.redaction.url(url))" : configuration.redaction.url(url)
        return "refused: \(what) is not an http or https URL (scheme \(scheme ?? "none")); Fetchlog fetches web addresses only, "
            + "never a unix socket or a file, so nothing was sent"
    }

    /// Why the host of `url` may not be reached (it resolves to a non-public address and
    /// `allowPrivateHosts` is off), or nil. A name that does not resolve is a transport
    /// failure like any other, worth a retry.
    private func addressRefusal(_ url: String, rule: AddressRule) async -> AttemptResult? {
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
    private func perform(url: String, method: String, body: [UInt8]?, headers: [Header], accept: String, checkAddress: AddressRule?,
                         keptExtra: Set<String>, limitHit: LimitHit) async -> AttemptResult {
        let deadline = ContinuousClock.now + configuration.deadline
        var current = url
        var sending = headers
        var method = method
        var body = body
        var check = checkAddress
        var hops: [Header] = []
        var lastRedirect: (status: UInt16, headers: [Header])?
        /// The result with the hops recorded; a failure after a redirect keeps the redirect
        /// as its response (the last answer that came) and says where it failed.
        func finish(_ result: AttemptResult) -> AttemptResult {
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
            if hops.count > 0, let refusal = schemeRefusal(current, redirect: true) {
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

            if [301, 302, 303, 307, 308].contains(status), let location = response.headers.first(name: "location") {
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
                return finish(.failure(.truncated, "body larger than the \(configuration.maxBodyBytes)-byte limit; cut off",
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

    /// Fills in the event for this result; returns whether another attempt may help.
    private func classify(_ result: AttemptResult, resource: Resource, plugin: (any SourcePlugin)?, into event: inout Event,
                          decoded: inout (any SourceDocument)?) -> Bool {
        switch result {
        case .refused(let failureClass, let message, let status, let headers):
            // Refused by Fetchlog itself: another attempt would be refused again.
            event.kind = .fetchFailed
            event.failure = Event.Failure(failureClass, message)
            if let status { event.response = Event.Response(status: status, headers: headers) }
            return false
        case .failure(let failureClass, let message, let status, let headers, let partial):
            event.kind = .fetchFailed
            event.failure = Event.Failure(failureClass, message)
            if let status { event.response = Event.Response(status: status, headers: headers) }
            event.body = partial
            return true
        case .response(let status, let headers, let body):
            event.response = Event.Response(status: status, headers: headers)
            switch status {
            case 304:
                event.kind = .notModified
                return false
            case 200 ..< 300:
                event.body = body
                let expected = resource.document == .asset ? "image/" : "json"
                if let type = event.response?.header("Content-Type"), !type.lowercased().contains(expected) {
                    event.kind = .fetchFailed
                    event.failure = Event.Failure(.decode, "Content-Type \(type) is not \(resource.document == .asset ? "an image" : "JSON")")
                    return false
                }
                do throws(DecodeError) {
                    guard let plugin else { throw DecodeError(path: "$", reason: "no registered source named '\(resource.source)'") }
                    decoded = try plugin.decode(resource.document, body: body)
                    event.kind = .fetched
                } catch {
                    event.kind = .fetchFailed
                    event.failure = Event.Failure(.decode, error.description)
                }
                return false
            case _ where plugin?.isEndOfList(status: status, kind: resource.document) == true:
                // Past the last page of a list whose source says so with a status (a 404):
                // the end of the list, not an error.
                event.kind = .endOfList
                event.body = body
                return false
            default:
                event.kind = .fetchFailed
                event.body = body
                let reason = HTTPResponseStatus(statusCode: Int(status)).reasonPhrase
                event.failure = Event.Failure(.httpStatus, "HTTP \(status) \(reason)")
                return RetryPolicy.isRetryable(status: status)
            }
        }
    }

    /// Retry-After as seconds or an HTTP date (relative to the injected clock).
    private func parseRetryAfter(_ value: String) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0 { return .milliseconds(Int64(seconds * 1000)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        let ms = Timestamp(date).milliseconds - configuration.clock.now().milliseconds
        return .milliseconds(max(0, ms))
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

extension Duration {
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The validators of a held body: what makes a request conditional (`If-None-Match`,
/// `If-Modified-Since`).
package struct Validators: Sendable, Equatable {
    package var etag: String?
    package var lastModified: String?

    package init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The validators of `key`'s held body in `state`; nil when no body is held (a 304
    /// would then confirm nothing) or it came without any.
    package init?(of key: ResourceKey, in state: LogState) {
        guard state.documents[key] != nil, let status = state.status[key], status.etag != nil || status.lastModified != nil else { return nil }
        self.init(etag: status.etag, lastModified: status.lastModified)
    }
}

/// True the first time `claim()` is called, false after: one shutdown of the client.
final class OnceFlag: Sendable {
    private let claimed = Mutex(false)

    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
