import FetchlogCore
import Foundation
import Hummingbird

/// Routes by `APIRoute.all` rather than with a router: every miss (path, method,
/// parameter) must be a JSON error that says what exists, and the same table is the
/// OpenAPI document.
struct APIResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let content: ServeContent
    let configuration: ServeConfiguration
    /// The page, with the action token in place (made once: the token does not change).
    let page: String

    /// Longer queries are refused before they are parsed: none of ours needs more.
    static let maxQueryLength = 2048
    /// `/api/log` and `/api/items` answer at most this many per request (page on).
    static let maxLimit = 1000
    /// `/api/sql` skips at most this many rows (it reads them all to skip them).
    static let maxSQLOffset = 1_000_000
    /// `/api/sql`'s time limit, in seconds: 10 unless asked, at most this.
    static let maxSQLTimeout = 60
    /// An action's JSON body is a few words; more is refused unread.
    static let maxBodyBytes = 64 << 10
    /// The header that carries a notice the CLI prints on stderr (a compacted view's).
    static let noticeHeader = HTTPFields.Element.Name("Fetchlog-Notice")!
    /// The status the CLI's command ends with, for an answer that is not an error (a fetch
    /// that ran but brought nothing usable: 1).
    static let exitHeader = HTTPFields.Element.Name("Fetchlog-Exit")!

    init(content: ServeContent, configuration: ServeConfiguration) {
        var content = content
        content.maxAnswerBytes = configuration.maxAnswerBytes
        self.content = content
        self.configuration = configuration
        page = configuration.page(Page.html)
    }

    /// A loopback server with `token` (or none), as before the configuration was passed whole.
    init(content: ServeContent, token: String?) {
        self.init(content: content, configuration: ServeConfiguration(token: token))
    }

    var token: String? { configuration.token }

    func respond(to request: Request, context: Context) async throws -> Response {
        do {
            return try await route(request)
        } catch let error as APIError {
            return error.response
        }
    }

    private func route(_ request: Request) async throws -> Response {
        // Before anything is read: a page elsewhere that made its own name resolve to this
        // machine reaches us with its own Host (DNS rebinding).
        let authority = request.head.authority ?? Self.header("host", of: request)
        let host = try Self.host(authority, of: request)
        guard configuration.acceptsHost(host) else {
            throw APIError(status: .forbidden, message: "Host \(authority.map { "'\($0.prefix(80))'" } ?? "(none)") is not this server's: on a loopback bind only \(configuration.hostNames) are answered")
        }
        // The request target as sent: Hummingbird's parsed `uri` reads an unparseable one
        // (`/api/%FF`) as `/`, which would answer the page for a bad path.
        let target = request.head.path ?? "/"
        let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = String(split[0])
        let rawQuery = split.count > 1 ? String(split[1]) : ""
        guard rawQuery.utf8.count <= Self.maxQueryLength else {
            throw APIError(status: .uriTooLong, message: "the query is \(rawQuery.utf8.count) bytes: at most \(Self.maxQueryLength) are accepted")
        }
        let query = try QueryItems(parsing: rawQuery)
        try authorize(request, query: query)
        guard let path = rawPath.removingPercentEncoding, path.hasPrefix("/") else {
            throw APIError.badRequest("the path \(rawPath.prefix(80)) is not a path in valid percent-encoding (UTF-8)")
        }
        let matches = APIRoute.all.compactMap { route in route.match(rawPath).map { (route, $0) } }
        guard !matches.isEmpty else {
            throw APIError.notFound("no route \(path): the API has \(APIRoute.paths.joined(separator: ", ")) (GET /api/openapi.json describes them)")
        }
        let method = request.method == .head ? .get : request.method
        guard let found = matches.first(where: { $0.0.method == method }) else {
            let allowed = matches.map(\.0.method.rawValue)
            var error = APIError(status: .methodNotAllowed, message: "\(request.method.rawValue) \(path): this route answers \(allowed.joined(separator: ", "))")
            error.headers[.allow] = (allowed + (allowed.contains("GET") ? ["HEAD"] : [])).joined(separator: ", ")
            throw error
        }
        let (route, raw) = found
        var parameters: [String] = []
        for value in raw {
            guard let decoded = value.removingPercentEncoding else {
                throw APIError.badRequest("the path part \(value.prefix(80)) is not valid percent-encoding (UTF-8)")
            }
            parameters.append(decoded)
        }
        if route.isAction { try authorizeAction(request) }

        switch route.handler {
        case .page:
            return Self.response(page, contentType: "text/html; charset=utf-8")
        case .status:
            return Self.json(try await status())
        case .views:
            return Self.json(.array(viewNames(in: content.store.snapshot.state).map { .string($0) }))
        case .view:
            return try await view(parameters[0], query: query, ifNoneMatch: request.headers[.ifNoneMatch])
        case .items:
            return try items(source: parameters[0], resource: parameters[1], query: query)
        case .log:
            return Self.json(try log(query))
        case .event:
            let seq = try Self.seq(parameters[0], name: "the event's seq")
            return Self.json(EventJSON.value(of: try event(at: seq)))
        case .diff:
            return try await diff(query)
        case .stream:
            return try EventStream(content: content).response(lastEventID: Self.header("last-event-id", of: request) ?? query["lastEventId"])
        case .fetch:
            return try await fetch(request)
        case .pending:
            return try pending()
        case .addItem:
            return try await write(.add(source: parameters[0], resource: parameters[1], fields: try await itemFields(request)))
        case .setItem, .replaceItem:
            return try await write(.set(source: parameters[0], resource: parameters[1], key: parameters[2],
                                        fields: try await itemFields(request), replace: route.handler == .replaceItem))
        case .deleteItem:
            return try await write(.delete(source: parameters[0], resource: parameters[1], key: parameters[2]))
        case .push:
            return try await write(.push)
        case .syncSchedule:
            return Self.json(try await SyncSchedule.json(content))
        case .sync:
            return Self.response(try await content.answers.sync(), contentType: "application/json; charset=utf-8")
        case .retry:
            let id = try Self.mutationID(parameters[0])
            return try await write(.retry(id: id, force: try await retryForce(request)))
        case .discard:
            return try await write(.discard(id: try Self.mutationID(parameters[0])))
        case .sql:
            return try await sql(query)
        case .sqlTables:
            return try await sqlTables(query)
        case .sqlSave:
            return try await sqlSave(request)
        case .openAPI:
            return Self.json(OpenAPIDocument.document)
        }
    }

    /// The request's Host, parsed; a malformed one (or two Host headers) is refused 400 on
    /// any bind: whichever name a check would read out of it, the request is not well formed.
    static func host(_ authority: String?, of request: Request) throws -> HostHeader? {
        guard let authority else { return nil }
        // The first Host became the authority; another left among the headers is a second.
        guard request.head.authority == nil || header("host", of: request) == nil else {
            throw APIError.badRequest("Host is given twice: send one Host header")
        }
        switch HostHeader.parse(authority) {
        case .success(let host): return host
        case .failure(let refusal): throw APIError.badRequest("Host '\(authority.prefix(80))' is malformed: \(refusal.reason)")
        }
    }

    /// A header Hummingbird has no name for, by its lower-case name.
    static func header(_ canonicalName: String, of request: Request) -> String? {
        request.headers.first { $0.name.canonicalName == canonicalName }?.value
    }

    // MARK: who may ask

    /// The token, when the server has one: `Authorization: Bearer T`, or `?token=T`.
    static func givenToken(_ request: Request, query: QueryItems) -> String? {
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        return bearer ?? query["token"]
    }

    private func authorize(_ request: Request, query: QueryItems) throws {
        guard let token else { return }
        try Self.check(Self.givenToken(request, query: query), against: token, missing: "this server needs its token: send Authorization: Bearer TOKEN (or ?token=TOKEN)")
    }

    /// An action: from this server's own origin (when the browser says), with the action
    /// token in the Authorization header (a link cannot carry a header).
    private func authorizeAction(_ request: Request) throws {
        if let origin = Self.header("origin", of: request) {
            let own = "http://" + (request.head.authority ?? Self.header("host", of: request) ?? "")
            guard origin.lowercased() == own.lowercased() else {
                throw APIError(status: .forbidden, message: "an action from origin '\(origin.prefix(80))' is refused: only this server's own page (\(own)) may act")
            }
        }
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        try Self.check(bearer, against: configuration.actionToken,
                       missing: "an action needs the action token: send Authorization: Bearer TOKEN (the server's --token, or the one the page at / holds)")
    }

    private static func check(_ given: String?, against token: String, missing: String) throws {
        guard let given, constantTimeEqual(given, token) else {
            var error = APIError(status: .unauthorized, message: given == nil ? missing : "wrong token")
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

    // MARK: answering

    static func json(_ value: JSONValue) -> Response {
        response(value.canonicalText() + "\n", contentType: "application/json; charset=utf-8")
    }

    static func response(_ text: String, contentType: String) -> Response {
        Response(status: .ok, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
