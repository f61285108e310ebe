import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A generic catalog API on loopback with every paginator style, addressed by the
/// `--upstream` rule as the source `catalog` (`BASE/catalog/<path>`): 12 items in pages of
/// 5, item 5 repeated at the top of page 2 (a page boundary), and a log of the paths asked.
final class CatalogUpstream: @unchecked Sendable {
    // `@unchecked`: `log` is read and written under `lock` only.
    static let realBase = "https://catalog.example"
    let server: LoopbackServer
    var base: String { server.base }
    private let lock = NSLock()
    private var log: [String] = []

    var asked: [String] { lock.withLock { log } }

    static func item(_ id: Int) -> String { #"{"id":\#(id),"name":"item \#(id)","size":\#(id * 10)}"# }
    /// Page `n` (from 1) of 5: 1–5, 5–10 (item 5 again), 11–12; empty past the end.
    static func ids(page n: Int) -> [Int] {
        switch n {
        case 1: Array(1 ... 5)
        case 2: Array(5 ... 10)
        case 3: [11, 12]
        default: []
        }
    }
    static func list(_ ids: [Int]) -> String { "[" + ids.map(item).joined(separator: ",") + "]" }

    private init(server: LoopbackServer) { self.server = server }

    static func start() async throws -> CatalogUpstream {
        let holder = Holder()
        let router = Router()
        @Sendable func respond(_ request: Request, status: HTTPResponse.Status = .ok, _ body: String, link: String? = nil) -> Response {
            holder.upstream?.note(request)
            var headers: HTTPFields = [.contentType: "application/json"]
            if let link { headers[.init("Link")!] = link }
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("/catalog/pages") { request, _ in
            let page = request.uri.queryParameters.get("page", as: Int.self) ?? 1
            return respond(request, #"{"data":\#(list(ids(page: page))),"total_pages":3}"#)
        }
        router.get("/catalog/ended") { request, _ in
            let page = request.uri.queryParameters.get("page", as: Int.self) ?? 1
            if page > 3 { return respond(request, status: .notFound, #"{"error":"no such page"}"#) }
            return respond(request, #"{"data":\#(list(ids(page: page)))}"#)
        }
        router.get("/catalog/offset") { request, _ in
            let offset = request.uri.queryParameters.get("offset", as: Int.self) ?? 0
            let limit = request.uri.queryParameters.get("limit", as: Int.self) ?? 5
            let ids = Array((1 ... 12).dropFirst(offset).prefix(limit))
            return respond(request, #"{"items":\#(list(ids)),"total":12}"#)
        }
        router.get("/catalog/linked") { request, _ in
            let page = request.uri.queryParameters.get("page", as: Int.self) ?? 1
            // An absolute URL on the real host: it maps back to the source.
            let next = page < 3 ? #""\#(realBase)/linked?page=\#(page + 1)""# : "null"
            return respond(request, #"{"results":\#(list(ids(page: page))),"paging":{"next":\#(next)}}"#)
        }
        router.get("/catalog/headers") { request, _ in
            let page = request.uri.queryParameters.get("page", as: Int.self) ?? 1
            let link = page < 3 ? #"<\#(realBase)/headers?page=\#(page + 1)>; rel="next", <\#(realBase)/headers?page=3>; rel="last""# : nil
            return respond(request, list(ids(page: page)), link: link)
        }
        router.get("/catalog/cursor") { request, _ in
            let cursor = request.uri.queryParameters.get("cursor") ?? ""
            let page = cursor.isEmpty ? 1 : Int(cursor.dropFirst()) ?? 1
            let next = page < 3 ? #""c\#(page + 1)""# : "null"
            return respond(request, #"{"data":\#(list(ids(page: page))),"cursors":{"next":\#(next)}}"#)
        }
        router.get("/catalog/single") { request, _ in respond(request, list([1, 2, 3])) }
        // Answers only with both credentials: a token header and a key parameter.
        router.get("/catalog/private") { request, _ in
            guard request.headers[.init("X-Token")!] == "t0ken-s3cret", request.uri.queryParameters.get("key") == "k3y-s3cret" else {
                return respond(request, status: .unauthorized, #"{"error":"who are you?"}"#)
            }
            return respond(request, list([1, 2]))
        }
        // Two readings of one body: `data`, or `detailed` (2 renamed and sized, 3 gone, 4 new).
        router.get("/catalog/versions") { request, _ in
            respond(request, #"{"data":[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}],"#
                + #""detailed":[{"id":1,"name":"a"},{"id":2,"name":"B","size":2},{"id":4,"name":"d"}]}"#)
        }
        let server = try await LoopbackServer.start(router, label: "catalog-upstream")
        let upstream = CatalogUpstream(server: server)
        holder.upstream = upstream
        return upstream
    }

    private func note(_ request: Request) {
        let path = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
        lock.withLock { log.append(path) }
    }

    func stop() async { await server.stop() }

    private final class Holder: @unchecked Sendable {
        // `@unchecked`: set once, before the first request can arrive.
        var upstream: CatalogUpstream?
    }
}
