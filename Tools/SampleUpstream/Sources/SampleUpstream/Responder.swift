import Foundation
import Hummingbird
import NIOCore

/// Request context that keeps the channel: the admin API needs the peer address, and the
/// reset fault needs the socket to make an abortive close.
struct UpstreamContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}

struct InjectedFaultError: Error {}
/// A request whose body ended before its length (the client gone): not served.
struct IncompleteRequestError: Error {}

struct UpstreamResponder: HTTPResponder {
    typealias Context = UpstreamContext
    let state: UpstreamState
    let configuration: SampleUpstreamConfiguration

    func respond(to request: Request, context: Context) async throws -> Response {
        let path = request.uri.path
        if path == "/_admin" || path.hasPrefix("/_admin/") {
            return await AdminRoutes.respond(to: request, context: context, state: state)
        }
        return try await serve(request, context: context)
    }

    private func serve(_ request: Request, context: Context) async throws -> Response {
        let path = request.uri.path
        let fullPath = request.head.path ?? path
        let method = request.method
        let ifNoneMatch = request.headers[.ifNoneMatch]
        let ifModifiedSince = request.headers[.ifModifiedSince]
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { $0 + ", " + field.value } ?? field.value
        }
        func record(_ status: Int, _ fault: String?, form: String? = nil) async {
            await state.record(method: method.rawValue, path: fullPath, status: status, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince, fault: fault,
                               headers: headers, form: form)
        }

        await state.receive(fullPath)
        let decision = await state.decide(path: path)
        if decision.latencyMilliseconds > 0 {
            try? await Task.sleep(for: .milliseconds(decision.latencyMilliseconds))
        }

        switch decision.failure {
        case .noAnswer:
            await record(0, decision.summary)
            // Hold until the client gives up (its read fails and it closes) or the limit passes;
            // polling also lets stop() end the hold instead of waiting out the limit.
            let deadline = ContinuousClock.now + configuration.noAnswerLimit
            while ContinuousClock.now < deadline, context.channel.isActive, !Task.isCancelled, !(await state.isStopping) {
                try? await Task.sleep(for: .milliseconds(50))
            }
            try? await context.channel.close()
            throw InjectedFaultError()
        case .dropAfterWrite where method == .get || method == .head:
            await record(0, decision.summary)
            if let socket = context.channel as? any SocketOptionProvider {
                try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
            }
            try? await context.channel.close()
            throw InjectedFaultError()
        case .status(let code, let retryAfter):
            await record(code, decision.summary)
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=utf-8"
            if let retryAfter { headers[.retryAfter] = String(retryAfter) }
            let body = JSONBody.encode(["error": "injected fault", "status": code] as [String: Any])
            return Response(status: .init(code: code), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        case .htmlBody:
            // What a captive portal or a misconfigured CDN sends: 200, but an HTML page instead of the data.
            await record(200, decision.summary)
            var headers = HTTPFields()
            headers[.contentType] = "text/html"
            let response = Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: htmlErrorPage)))
            return method == .head ? headHeaders(response) : response
        case .redirect(let code, let location):
            // Before the route, like a load balancer that moved the resource: no validators,
            // a small JSON body, and Location as given (absolute or relative).
            await record(code, decision.summary)
            var headers = HTTPFields()
            headers[.location] = location
            headers[.contentType] = "application/json; charset=utf-8"
            let body = JSONBody.encode(["moved": location])
            return Response(status: .init(code: code), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        default:
            break
        }

        // The catalog's OAuth 2.0 token endpoint (`CatalogAuthRoutes.token`) takes a form POST.
        if method == .post, path == "/catalog/oauth/token" {
            let form = try await request.body.collect(upTo: 1 << 16)
            let (status, body): (Int, Data) = switch CatalogAuthRoutes.token(form: parseQuery(String(buffer: form))) {
            case .ok(let body, _, _, _): (200, body)
            case .error(let status, let body): (status, body)
            }
            var response = jsonResponse(status, body)
            // A token endpoint that drips its answer (slowDrip): the client's deadline ends it.
            if case .slowDrip = decision.failure { response.body = faultyBody(body, decision.failure, channel: context.channel) }
            await record(response.status.code, decision.summary, form: String(buffer: form))
            return response
        }

        let components = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true)
        let source = components.first.map(String.init) ?? ""
        let rest = components.count > 1 ? "/" + components[1] : ""
        // The catalog's writable notes: every method, applied one at a time in the state's actor.
        if source == "catalog", NotesRoutes.handles(rest), method != .get, method != .head {
            // A body that did not arrive whole (the client went away on the way: killed, or
            // its connection reset) is no request: nothing is applied and no answer stored
            // under its Idempotency-Key, so the client's resend with that key is applied.
            // Read as an empty body, it was refused (400), that refusal stored, and the
            // resend refused as another request under a used key: the write lost.
            guard let collected = try? await request.body.collect(upTo: 1 << 20) else {
                await record(0, decision.summary)
                throw IncompleteRequestError()
            }
            let body = Data(buffer: collected)
            let answer = await state.applyNoteWrite(NoteWrite(method: method.rawValue, rest: rest, fullPath: fullPath, headers: headers, body: body))
            if decision.failure == .dropAfterWrite {
                // Applied, and then no answer: the connection is reset before a byte of it.
                await record(0, decision.summary)
                if let socket = context.channel as? any SocketOptionProvider {
                    try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
                }
                try? await context.channel.close()
                throw InjectedFaultError()
            }
            var fields = HTTPFields()
            for (name, value) in answer.headers { fields[.init(name)!] = value }
            await record(answer.status, decision.summary)
            // Applied; an answer that drips (slowDrip) tests the client's deadline on a write.
            let answerBody: ResponseBody = if case .slowDrip = decision.failure {
                faultyBody(answer.body, decision.failure, channel: context.channel)
            } else {
                .init(byteBuffer: ByteBuffer(bytes: answer.body))
            }
            return Response(status: .init(code: answer.status), headers: fields, body: answerBody)
        }
        // The catalog takes POSTs too (its search routes check the method themselves).
        guard method == .get || method == .head || (method == .post && source == "catalog") else {
            await record(405, decision.summary)
            return jsonResponse(405, JSONBody.encode(["error": "method not allowed", "path": fullPath]))
        }
        var requestBody = Data()
        if method == .post, let bytes = try? await request.body.collect(upTo: 1 << 20) { requestBody = Data(buffer: bytes) }
        let (versions, switches) = await state.snapshot(source: source)
        let query = parseQuery(request.uri.query)
        let result: RouteResult
        switch source {
        case "tvmaze":
            result = TVMazeRoutes.respond(path: rest, query: query, version: versions.tvmaze, pages: configuration.tvmazePages, pageSize: configuration.tvmazePageSize, fullPath: fullPath)
        case "brastlewark", "census": // `census`: the census as a manifest source (docs/manifests/census.json) names it
            result = BrastlewarkRoutes.respond(path: rest, version: versions.brastlewark, copies: configuration.censusCopies, fullPath: fullPath)
        case "viaplay":
            result = ViaplayRoutes.respond(path: rest, version: versions.viaplay, fullPath: fullPath)
        case "thmanyah":
            result = ThmanyahRoutes.respond(path: rest, query: query, totalPages: configuration.thmanyahTotalPages ?? ThmanyahRoutes.recordedTotalPages, fullPath: fullPath)
        case "artic":
            result = ArticRoutes.respond(path: rest, query: query, fullPath: fullPath)
        case "catalog" where NotesRoutes.handles(rest):
            result = NotesRoutes.read(rest, book: await state.notes, fullPath: fullPath)
        case "catalog":
            result = CatalogRoutes.respond(path: rest, query: query, host: request.head.authority, headers: headers, fullPath: fullPath,
                                           method: method.rawValue, body: requestBody, generation: await state.catalogGeneration)
        case SourceMetadata.assets:
            result = SampleAssets.respond(path: path, fullPath: fullPath)
        default:
            result = .notFoundRoute(fullPath)
        }

        var response: Response
        switch result {
        case .error(let status, let body):
            response = jsonResponse(status, body)
        case .ok(let body, let contentType, let link, let extraHeaders):
            let etag = Validators.etag(for: body)
            let lastModified = SourceMetadata.lastModified(source, versions: versions, switches: switches)
            var headers = HTTPFields()
            headers[.eTag] = etag
            headers[.lastModified] = Validators.httpDate(lastModified)
            if let cacheControl = SourceMetadata.cacheControl(source) { headers[.cacheControl] = cacheControl }
            if let link { headers[.init("Link")!] = link }
            // Each on its own line: a header given twice is sent twice (two `Link` lines).
            for (name, value) in extraHeaders { headers[values: .init(name)!].append(value) }
            // Transport faults must reach the client even when it holds a current copy.
            let bodyFault: Bool = switch decision.failure {
            case .resetMidBody, .truncated, .malformedJSON, .slowDrip: true
            default: false
            }
            if !bodyFault, Validators.isNotModified(ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince, etag: etag, lastModified: lastModified) {
                response = Response(status: .notModified, headers: headers)
                // A 304 has no body; a Content-Length of 0 would misstate the representation's length.
                response.headers[.contentLength] = nil
            } else {
                headers[.contentType] = contentType
                response = Response(status: .ok, headers: headers, body: faultyBody(body, decision.failure, channel: context.channel))
            }
        }
        if decision.failure == .wrongContentType, response.status != .notModified {
            response.headers[.contentType] = "text/html"
        }
        await record(response.status.code, decision.summary)
        return method == .head ? headHeaders(response) : response
    }

    private func headHeaders(_ response: Response) -> Response {
        var head = response.createHeadResponse()
        head.headers[.contentLength] = response.headers[.contentLength]
        return head
    }

    private func faultyBody(_ body: Data, _ failure: FaultKind?, channel: any Channel) -> ResponseBody {
        switch failure {
        case .malformedJSON:
            // Cut inside the document so no JSON parser can accept it.
            return ResponseBody(byteBuffer: ByteBuffer(bytes: body.prefix(body.count * 6 / 10)))
        case .resetMidBody:
            return ResponseBody(contentLength: body.count) { writer in
                try await writer.write(ByteBuffer(bytes: body.prefix(body.count / 2)))
                // Let the partial body leave the socket before the connection is torn down.
                try await Task.sleep(for: .milliseconds(100))
                // SO_LINGER 0 makes close() send RST instead of FIN: a reset, not an orderly end.
                if let socket = channel as? any SocketOptionProvider {
                    try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
                }
                try? await channel.close()
                throw InjectedFaultError()
            }
        case .truncated:
            return ResponseBody(contentLength: body.count) { writer in
                try await writer.write(ByteBuffer(bytes: body.prefix(body.count * 3 / 4)))
                try await Task.sleep(for: .milliseconds(100))
                // Throwing from the body writer makes Hummingbird close the connection (FIN).
                throw InjectedFaultError()
            }
        case .slowDrip(let ms):
            let state = state
            return ResponseBody(contentLength: body.count) { writer in
                // One byte, then a pause: never silent long enough for a read timeout. Ends
                // when the client goes away (the channel closes, so the write throws or the
                // channel is inactive) or the server stops.
                for byte in body {
                    guard channel.isActive, !Task.isCancelled, !(await state.isStopping) else { throw InjectedFaultError() }
                    try await writer.write(ByteBuffer(bytes: [byte]))
                    try await Task.sleep(for: .milliseconds(ms))
                }
                try await writer.finish(nil)
            }
        default:
            return ResponseBody(byteBuffer: ByteBuffer(bytes: body))
        }
    }
}

/// The body of the `htmlBody` fault.
let htmlErrorPage = Data("""
    <!DOCTYPE html>
    <html><head><title>503 Service Unavailable</title></head>
    <body><h1>Service Unavailable</h1><p>The server is temporarily unable to service your request.</p></body></html>

    """.utf8)

func jsonResponse(_ status: Int, _ body: Data) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json; charset=utf-8"
    return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
}
