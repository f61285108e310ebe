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
    /// The one way out (every request this fetcher's store sends: fetches, assets, pushes,
    /// token requests), under the configuration's policy.
    package let gateway: HTTPGateway
    /// OAuth 2.0 access tokens (`oauth2_client_credentials`), held in memory for their lifetime.
    let oauth2Tokens = OAuth2Tokens()
    private let inFlight = InFlight()
    /// Internal so that tests can see a caller join a shared fetch.
    let waiters = FetchWaiters()

    /// The recorded response header naming one redirect followed (see `HTTPGateway`).
    package static let redirectHeader = HTTPGateway.redirectHeader

    package init(sources: SourceRegistry, configuration: FetchConfiguration = FetchConfiguration()) {
        self.sources = sources
        self.configuration = configuration
        gateway = HTTPGateway(configuration: configuration)
    }

    /// Closes connections. Call once when done.
    package func shutdown() async {
        await gateway.shutdown()
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
        let shape = requestShape(resource, plugin: plugin, credentials: credentials)
        let (url, recordedURL, asked) = (shape.url, shape.recordedURL, shape.asked)
        var requestHeaders = shape.headers
        let keptExtra = plugin?.keptResponseHeaders(for: resource.document) ?? []
        var conditional = false
        // Only a GET is revalidated: a POST's answer depends on its body and is not a cached
        // representation (dlt never revalidates either), so it is always asked in full. A held
        // response whose `Vary` fields this request presents otherwise is another
        // representation's (RFC 9111 §4.1): its validators would ask about the wrong one.
        if recorder.isDurable, asked.method == "GET", let held = validators, held.selects(shape.presented) {
            if let etag = held.etag { requestHeaders.append(Header("If-None-Match", etag)) }
            if let modified = held.lastModified { requestHeaders.append(Header("If-Modified-Since", modified)) }
            conditional = held.etag != nil || held.lastModified != nil
        }
        // A URL named by a body (an image) that is not a web address is refused before any
        // connection: AsyncHTTPClient would follow `http+unix://` to a local socket. Checked
        // on the URL as named, since under `--upstream` it is rewritten to an http one.
        let namedRefusal = resource.document == .asset ? gateway.schemeRefusal(resource.path, redirect: false) : nil
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
            let limitHit = HTTPGateway.LimitHit()
            let result: HTTPGateway.Answer = if let namedRefusal {
                .refused(.transport, namedRefusal, status: nil, headers: [])
            } else {
                // Only URLs from data are checked on the first hop — bodies' (assets) and a
                // manifest's base, which is in the log and may come from another store's: the
                // hosts of sources in code and the `--upstream` base are the user's choice.
                // Every redirect off the upstream is checked: a Location is as untrusted as a body.
                await gateway.send(HTTPGateway.Request(url: url, method: asked.method, body: asked.body, headers: requestHeaders,
                                                       accept: Self.accept(for: resource),
                                                       addressRule: addressCheck(resource, plugin: plugin, url: url), keptHeaders: keptExtra),
                                   limitHit: limitHit)
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
                              request: Event.Request(method: asked.method, url: recordedURL, headers: shape.recorded(requestHeaders), body: asked.body))
            var decoded: (any SourceDocument)?
            let retryable = classify(result, resource: resource, plugin: plugin, into: &event, decoded: &decoded)
            // A response that varies on the gateway's own lines keeps them with its request.
            if let response = event.response, response.headers.containsField("Vary") {
                event.request?.headers = shape.recordedRequestHeaders(requestHeaders, response: response.headers)
            }
            // Recorded now, before any wait: the attempts stay in order, and a fetch cancelled
            // during a backoff leaves the ones before it recorded.
            let place: RecordedPlace
            do {
                place = try await recorder.record(FetchOutcome(event: event, decoded: event.kind == .fetched ? decoded : nil))
            } catch {
                throw FetchStoreError(resource: resource, underlying: error)
            }
            let seq = place.seq
            event.seq = seq

            var wait: Duration?
            if retryable, attempt <= configuration.retry.retries {
                let retryAfter = event.response?.header("Retry-After").flatMap { gateway.retryAfter($0) }
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
            // A durable append that came back without a seq went to a replicated store's outbox,
            // unless the store kept it for this session (a `no-store` answer).
            made.sessionOnly = place.sessionOnly ?? (recorder.isDurable ? nil : .durableWindow)
            if recorder.isDurable, seq == 0, place.sessionOnly == nil { made.pendingSync = true }
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

    /// Whether the first hop to `url` meets the address policy, and why: the URL comes from
    /// data (a body's asset URL, a manifest's base) and does not go to the upstream.
    private func addressCheck(_ resource: Resource, plugin: (any SourcePlugin)?, url: String) -> AddressRule? {
        gateway.firstHopRule(url: url, asset: resource.document == .asset, basesAreData: plugin?.basesAreData == true)
    }

    // MARK: One attempt

    /// Fills in the event for this result; returns whether another attempt may help.
    private func classify(_ result: HTTPGateway.Answer, resource: Resource, plugin: (any SourcePlugin)?, into event: inout Event,
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

    /// The held response's freshness headers (its `Vary` among them) and the request lines
    /// that selected it: a request presenting other values for them does not revalidate it.
    package var cacheHeaders: [Header] = []
    package var selectingHeaders: [Header] = []

    /// The validators of `key`'s held body in `state`; nil when no body is held (a 304
    /// would then confirm nothing) or it came without any.
    package init?(of key: ResourceKey, in state: LogState) {
        guard state.documents[key] != nil, let status = state.status[key], status.etag != nil || status.lastModified != nil else { return nil }
        self.init(etag: status.etag, lastModified: status.lastModified)
        cacheHeaders = status.cacheHeaders
        selectingHeaders = status.selectingHeaders
    }

    /// Whether the held response answers a request presenting these lines (RFC 9111 §4.1:
    /// every field its `Vary` names matches; `Vary: *` never does).
    package func selects(_ presented: [Header]) -> Bool {
        CachedResponse.varyMatches(vary: cacheHeaders, selecting: selectingHeaders, presented: presented)
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
