import FetchlogCore
import Foundation
import Hummingbird

/// What the API shows of the store, and how: the store (its snapshot, time travel and
/// maintenance door, never the log itself), the clock freshness is judged by, and the
/// CLI's own rendering of an event header, so `/api/log` and `log tail --format json`
/// cannot drift apart.
package struct ServeContent: Sendable {
    package let store: Store
    package let clock: any WallClock
    package let eventHeader: @Sendable (Event) -> JSONValue
    /// The views' canonical exports by snapshot, and the event stream's hub (one per server).
    package let shared = ServeShared()

    package init(store: Store, clock: any WallClock, eventHeader: @escaping @Sendable (Event) -> JSONValue) {
        self.store = store
        self.clock = clock
        self.eventHeader = eventHeader
    }
}

/// Routes by hand rather than with a router: every miss (path, method, parameter) must be
/// a JSON error that says what exists, and the routes are few.
struct APIResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let content: ServeContent
    let token: String?

    /// Longer queries are refused before they are parsed: none of ours needs more.
    static let maxQueryLength = 2048
    /// `/api/log` answers at most this many events per request (page on with `from`).
    static let maxLimit = 1000

    func respond(to request: Request, context: Context) async throws -> Response {
        do {
            return try await route(request)
        } catch let error as APIError {
            return error.response
        }
    }

    private func route(_ request: Request) async throws -> Response {
        // The request target as sent: Hummingbird's parsed `uri` reads an unparseable one
        // (`/api/%FF`) as `/`, which would answer the page for a bad path.
        let target = request.head.path ?? "/"
        let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = String(split[0])
        let rawQuery = split.count > 1 ? String(split[1]) : ""
        guard rawQuery.utf8.count <= Self.maxQueryLength else {
            throw APIError(status: .uriTooLong, message: "the query is \(rawQuery.utf8.count) bytes: at most \(Self.maxQueryLength) are accepted")
        }
        let query = try Self.parseQuery(rawQuery)
        try authorize(request, query: query)
        guard let path = rawPath.removingPercentEncoding, path.hasPrefix("/") else {
            throw APIError.badRequest("the path \(rawPath.prefix(80)) is not a path in valid percent-encoding (UTF-8)")
        }
        guard request.method == .get || request.method == .head else {
            var error = APIError(status: .methodNotAllowed, message: "\(request.method.rawValue) \(path): this API only reads (GET)")
            error.headers[.allow] = "GET, HEAD"
            throw error
        }
        switch path {
        case "/", "/index.html":
            return Self.response(Page.html, contentType: "text/html; charset=utf-8")
        case "/api/status":
            return Self.json(try await status())
        case "/api/views":
            return Self.json(.array(ViewCatalog.exportNames(in: content.store.snapshot.state).map { .string($0) }))
        case "/api/log":
            return Self.json(try log(query))
        case "/api/stream":
            return try EventStream(content: content).response(lastEventID: Self.header("last-event-id", of: request) ?? query["lastEventId"])
        default:
            break
        }
        if path.hasPrefix("/api/views/") {
            return try view(String(path.dropFirst("/api/views/".count)), query: query, ifNoneMatch: request.headers[.ifNoneMatch])
        }
        if path.hasPrefix("/api/events/") {
            let seq = try Self.seq(String(path.dropFirst("/api/events/".count)), name: "the event's seq")
            return Self.json(EventJSON.value(of: try event(at: seq)))
        }
        throw APIError.notFound("no route \(path): the API has /api/status, /api/views, /api/views/NAME[?at=SEQ], /api/log?from=SEQ&limit=N, /api/events/SEQ, /api/stream")
    }

    /// A header Hummingbird has no name for, by its lower-case name.
    static func header(_ canonicalName: String, of request: Request) -> String? {
        request.headers.first { $0.name.canonicalName == canonicalName }?.value
    }

    private func authorize(_ request: Request, query: [String: String]) throws {
        guard let token else { return }
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let given = bearer ?? query["token"]
        guard let given, Self.constantTimeEqual(given, token) else {
            var error = APIError(status: .unauthorized,
                                 message: given == nil ? "this server needs its token: send Authorization: Bearer TOKEN (or ?token=TOKEN)" : "wrong token")
            error.headers[.wwwAuthenticate] = "Bearer"
            throw error
        }
    }

    /// Compares every byte whatever the first difference, so timing does not reveal a prefix.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    // MARK: the answers

    /// As `status --format json`: one object per resource, freshness judged now.
    private func status() async throws -> JSONValue {
        let state = content.store.snapshot.state
        let report = FreshnessReport(state: state, policy: FreshnessPolicy(sources: state.sources), now: content.clock.now())
        return .array(report.rows.map(\.json))
    }

    /// As `export NAME [--at SEQ] --format json`, byte for byte; the ETag is the SHA-256 of
    /// the canonical text (what `replay` prints), so a client that holds it gets 304.
    private func view(_ name: String, query: [String: String], ifNoneMatch: String?) throws -> Response {
        guard !name.isEmpty else { throw APIError.notFound("no view named '': GET /api/views lists them") }
        let state: LogState
        if let at = query["at"] {
            let seq = try Self.seq(at, name: "at", allowZero: true)
            let last = try lastSeq()
            guard seq <= last else { throw APIError.notFound("at=\(seq) is past the end of the log (seq \(last))") }
            do { state = try content.store.state(asOf: seq) } catch { throw APIError(status: .internalServerError, message: "\(error)") }
        } else {
            state = content.store.snapshot.state
        }
        let export: ViewCache.Canonical
        do { export = query["at"] == nil ? try content.shared.views.canonical(name, state: state) : try ViewCache.make(name, state: state) } catch { throw APIError.notFound(error.description) }
        let etag = export.etag
        if let ifNoneMatch, ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag || $0 == "*" }) {
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        let response = Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .eTag: etag], body: ResponseBody(byteBuffer: export.body))
        return response
    }

    /// Event headers from `from` on, at most `limit`, as `log tail --format json` shows them.
    private func log(_ query: [String: String]) throws -> JSONValue {
        let from = try query["from"].map { try Self.seq($0, name: "from") } ?? 1
        let limit = try query["limit"].map { text -> Int in
            guard let n = Int(text), (1...Self.maxLimit).contains(n) else {
                throw APIError.badRequest("limit=\(text) is not a count from 1 to \(Self.maxLimit)")
            }
            return n
        } ?? 100
        let last = try lastSeq()
        guard from <= last else { return .array([]) }
        let end = min(last, from + UInt64(limit) - 1)
        return .array(try (from...end).map { content.eventHeader(try event(at: $0)) })
    }

    private func lastSeq() throws -> UInt64 {
        do { return try content.store.maintenance.lastSeq() } catch { throw APIError(status: .internalServerError, message: "cannot read the log: \(error)") }
    }

    private func event(at seq: UInt64) throws -> Event {
        let last = try lastSeq()
        guard seq <= last else { throw APIError.notFound("no event \(seq): the log holds seq 1…\(last)") }
        do { return try content.store.maintenance.event(at: seq) } catch { throw APIError(status: .internalServerError, message: "cannot read event \(seq): \(error)") }
    }

    // MARK: parsing

    static func seq(_ text: String, name: String, allowZero: Bool = false) throws -> UInt64 {
        guard let seq = UInt64(text), allowZero || seq > 0 else {
            throw APIError.badRequest("\(name) '\(text.prefix(40))' is not a seq: give a whole number from \(allowZero ? 0 : 1) (log stats shows the last)")
        }
        return seq
    }

    /// Query items, percent-decoded (`+` as space); a repeated key is refused rather than guessed.
    static func parseQuery(_ query: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) throws -> String {
                let plain = s.replacingOccurrences(of: "+", with: " ")
                guard let decoded = plain.removingPercentEncoding else { throw APIError.badRequest("the query part '\(s.prefix(40))' is not valid percent-encoding") }
                return decoded
            }
            let key = try decode(parts[0])
            guard result[key] == nil else { throw APIError.badRequest("the query gives \(key) twice: give it once") }
            result[key] = parts.count > 1 ? try decode(parts[1]) : ""
        }
        return result
    }

    static func json(_ value: JSONValue) -> Response {
        response(value.canonicalText() + "\n", contentType: "application/json; charset=utf-8")
    }

    static func response(_ text: String, contentType: String) -> Response {
        Response(status: .ok, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
