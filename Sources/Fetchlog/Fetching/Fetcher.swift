import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Fetches resources over HTTP and turns every attempt's outcome into one event.
///
/// Conditional requests use the validators of the last stored body; failures are
/// retried per `RetryPolicy` (transport, timeout, truncated, 5xx, 408, 429), and the
/// attempts before a success stay in the log as failures. A 2xx body that does not
/// decode is stored raw as a `decode` failure and not retried: the server would send
/// it again.
public final class Fetcher: Sendable {
    public let log: EventLog
    public let configuration: FetchConfiguration
    private let client: HTTPClient
    private let validators = ValidatorIndex()
    private let inFlight = InFlight()
    /// Internal so that tests can see a caller join a shared fetch.
    let waiters = FetchWaiters()

    public init(log: EventLog, configuration: FetchConfiguration = FetchConfiguration()) {
        self.log = log
        self.configuration = configuration
        var http = HTTPClient.Configuration()
        http.timeout = .init(connect: .nanoseconds(configuration.connectTimeout.nanoseconds),
                             read: .nanoseconds(configuration.readTimeout.nanoseconds))
        http.redirectConfiguration = .follow(max: 5, allowCycles: false)
        // The pool would otherwise keep retrying a refused connection until the connect
        // timeout (10 s) runs out, and only then fail the attempt: an upstream that is down
        // would take 40 s to report. Fetcher's own RetryPolicy does the retrying, with its
        // backoff, and records each attempt as an event.
        http.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
    }

    /// Closes connections. Call once when done.
    public func shutdown() async {
        try? await client.shutdown()
    }

    /// The URL a resource is asked at under this configuration's upstream.
    public func url(for resource: Resource) -> String {
        configuration.upstream.url(source: resource.source, path: resource.path, realBase: resource.realBase)
    }

    /// The last stored body of a resource (from a `fetched` event), if any.
    public func heldBody(of resource: Resource) throws -> [UInt8]? {
        guard let entry = try validators.entry(for: resource, in: log) else { return nil }
        return try log.event(at: entry.seq)?.body
    }

    /// Fetches `resource`, retrying as the policy says. Throws only when the log cannot
    /// record an attempt; every network outcome is in the report (and the log, or the
    /// session log for resources outside the durable window).
    ///
    /// Concurrent fetches of one resource share one request: the later callers wait for
    /// the first one's report. With `offline` set, nothing is sent and nothing recorded.
    public func fetch(_ resource: Resource, recording: Recording = .durable) async throws -> FetchReport {
        if configuration.offline {
            return FetchReport(resource: resource, url: url(for: resource), attempts: [],
                               outcome: .failed(.transport, "offline: the network is not used (--offline)"))
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
            Task { try await self.performFetch(resource, recording: recording) }
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
                return try await fetch(resource, recording: recording)
            }
            cancelled.completed = FetchLedger.current?.reports ?? []
            throw cancelled
        }
    }

    private func performFetch(_ resource: Resource, recording: Recording) async throws -> FetchReport {
        let url = url(for: resource)
        var requestHeaders: [Header] = []
        if case .durable = recording, let held = try validators.entry(for: resource, in: log) {
            if let etag = held.etag { requestHeaders.append(Header("If-None-Match", etag)) }
            if let modified = held.lastModified { requestHeaders.append(Header("If-Modified-Since", modified)) }
        }
        var attempts: [FetchReport.Attempt] = []
        var random = SystemRandomNumberGenerator()
        var attempt = 1
        /// What was recorded when the fetch is cancelled.
        func cancelled(requestInFlight: Bool) -> FetchCancelled {
            FetchCancelled(completed: [], interrupted: FetchReport(resource: resource, url: url, attempts: attempts,
                                                                  outcome: .failed(.transport, "cancelled")),
                           requestInFlight: requestInFlight)
        }
        while true {
            if Task.isCancelled { throw cancelled(requestInFlight: false) }
            configuration.logger.debug("request", metadata: [
                "resource": "\(resource)", "url": "\(url)", "attempt": "\(attempt)", "conditional": "\(!requestHeaders.isEmpty)",
            ])
            let started = ContinuousClock.now
            let result = await perform(url: url, headers: requestHeaders, accept: resource.document == .asset ? "image/*" : "application/json")
            // A failure while cancelled is the cancellation itself (the HTTP client abandons
            // the request): nothing came back from the upstream, so nothing is recorded. A
            // complete answer that arrived anyway is recorded like any other, without a retry.
            if Task.isCancelled, case .failure = result { throw cancelled(requestInFlight: true) }
            let elapsed = ContinuousClock.now - started
            var event = Event(recordedAt: configuration.clock.now(), kind: .fetched, source: resource.source.rawValue,
                              label: resource.path, attempt: UInt16(clamping: attempt),
                              durationMicros: UInt64(max(0, elapsed.nanoseconds / 1000)),
                              request: Event.Request(method: "GET", url: url, headers: requestHeaders))
            let retryable = classify(result, resource: resource, into: &event)
            let seq: UInt64
            switch recording {
            case .durable:
                do { seq = try await log.append(event) } catch { throw FetchStoreError(resource: resource, underlying: error) }
                event.seq = seq
                validators.record(event)
            case .session(let session):
                seq = 0
                session.append(event)
            }

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
            attempts.append(FetchReport.Attempt(seq: seq, kind: event.kind, status: event.response?.status,
                                                failure: event.failure, bodyBytes: event.body?.count ?? 0, retryAfter: wait))
            guard let wait else {
                let outcome: FetchReport.Outcome = switch event.kind {
                case .fetched: .fetched
                case .notModified: .notModified
                case .endOfList: .endOfList
                default: .failed(event.failure?.failureClass ?? .transport, event.failure?.message ?? "failed")
                }
                return FetchReport(resource: resource, url: url, attempts: attempts, outcome: outcome)
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
    }

    private func perform(url: String, headers: [Header], accept: String) async -> AttemptResult {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        request.headers.add(name: "Accept", value: accept)
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: .now() + .nanoseconds(configuration.requestTimeout.nanoseconds))
        } catch {
            let (failureClass, message) = Self.describe(error)
            return .failure(failureClass, message, status: nil, headers: [], partialBody: nil)
        }
        let status = UInt16(clamping: response.status.code)
        let kept = response.headers.filter { Header.keptResponseHeaders.contains($0.name.lowercased()) }.map { Header($0.name, $0.value) }
        let expected = response.headers.first(name: "content-length").flatMap(Int.init)
        var body: [UInt8] = []
        if let expected, expected <= configuration.maxBodyBytes { body.reserveCapacity(expected) }
        do {
            for try await chunk in response.body {
                body.append(contentsOf: chunk.readableBytesView)
                if body.count > configuration.maxBodyBytes {
                    return .failure(.truncated, "body larger than the \(configuration.maxBodyBytes)-byte limit; cut off",
                                    status: status, headers: kept, partialBody: nil)
                }
            }
        } catch {
            var (failureClass, message) = Self.describe(error)
            let of = expected.map { " of \($0)" } ?? ""
            if failureClass != .timeout && !message.contains("reset") { failureClass = .truncated }
            message += " after \(body.count)\(of) body bytes"
            return .failure(failureClass, message, status: status, headers: kept, partialBody: body)
        }
        if let expected, body.count < expected {
            return .failure(.truncated, "\(body.count) of \(expected) body bytes arrived", status: status, headers: kept, partialBody: body)
        }
        return .response(status: status, headers: kept, body: body)
    }

    /// Fills in the event for this result; returns whether another attempt may help.
    private func classify(_ result: AttemptResult, resource: Resource, into event: inout Event) -> Bool {
        switch result {
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
                do {
                    try configuration.validate(resource.document, body)
                    event.kind = .fetched
                } catch {
                    event.kind = .fetchFailed
                    event.failure = Event.Failure(.decode, error.description)
                }
                return false
            case 404 where resource.document == .tvmazeShowsPage:
                // TVmaze answers 404 past the last page: the end of the list, not an error.
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
}
