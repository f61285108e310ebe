import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The sixth source's API on loopback, addressed by the `--upstream` rule
/// (`BASE/books/<path>`): two pages of books then a 404, one item endpoint, ETags (a
/// matching If-None-Match gets a 304), and a log of what it was asked.
final class BooksUpstream: @unchecked Sendable {
    // `@unchecked`: `asked` and `edition` are read and written under `lock` only.
    struct Asked: Equatable {
        var path: String
        var ifNoneMatch: String?
        var status: Int
    }

    static let pages: [[(id: Int, title: String, year: Int?)]] = [
        [(1, "The Left Hand of Darkness", 1969), (2, "Kindred", 1979)],
        [(3, "Invisible Cities", 1972), (4, "A Book With No Year", nil)],
    ]

    let server: LoopbackServer
    var base: String { server.base }
    private let lock = NSLock()
    private var log: [Asked] = []
    private var edition = 1

    var asked: [Asked] { lock.withLock { log } }
    /// Changes every body (and so every ETag) from now on: titles get " (2nd ed.)".
    func publishSecondEdition() { lock.withLock { edition = 2 } }

    private init(server: LoopbackServer) { self.server = server }

    static func bookJSON(_ book: (id: Int, title: String, year: Int?), edition: Int) -> String {
        let title = edition == 1 ? book.title : book.title + " (2nd ed.)"
        return #"{"id":\#(book.id),"title":"\#(title)","year":\#(book.year.map(String.init) ?? "null")}"#
    }

    static func start() async throws -> BooksUpstream {
        let holder = Holder()
        let router = Router()
        router.get("/books/list") { request, _ in
            let page = request.uri.queryParameters.get("page", as: Int.self) ?? 0
            guard let upstream = holder.upstream else { return Response(status: .serviceUnavailable) }
            let edition = upstream.lock.withLock { upstream.edition }
            guard (1 ... pages.count).contains(page) else {
                return upstream.answer(request, status: .notFound, etag: nil, body: #"{"error":"no such page"}"#)
            }
            let items = pages[page - 1].map { bookJSON($0, edition: edition) }.joined(separator: ",")
            return upstream.answer(request, status: .ok, etag: "\"list-\(page)-e\(edition)\"",
                                   body: #"{"items":[\#(items)],"total_pages":\#(pages.count)}"#)
        }
        router.get("/books/items/:id") { request, context in
            guard let upstream = holder.upstream else { return Response(status: .serviceUnavailable) }
            let id = context.parameters.get("id", as: Int.self) ?? -1
            let edition = upstream.lock.withLock { upstream.edition }
            // Book 99 is served with a number for its title: a body that does not fit.
            if id == 99 { return upstream.answer(request, status: .ok, etag: "\"item-99\"", body: #"{"id":99,"title":42,"year":2000}"#) }
            guard let book = pages.joined().first(where: { $0.id == id }) else {
                return upstream.answer(request, status: .notFound, etag: nil, body: #"{"error":"no such book"}"#)
            }
            return upstream.answer(request, status: .ok, etag: "\"item-\(id)-e\(edition)\"", body: bookJSON(book, edition: edition))
        }
        let server = try await LoopbackServer.start(router, label: "books-upstream")
        let upstream = BooksUpstream(server: server)
        holder.upstream = upstream
        return upstream
    }

    private func answer(_ request: Request, status: HTTPResponse.Status, etag: String?, body: String) -> Response {
        let path = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
        let ifNoneMatch = request.headers[.ifNoneMatch]
        if let etag, ifNoneMatch == etag {
            lock.withLock { log.append(Asked(path: path, ifNoneMatch: ifNoneMatch, status: 304)) }
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        lock.withLock { log.append(Asked(path: path, ifNoneMatch: ifNoneMatch, status: Int(status.code))) }
        var headers: HTTPFields = [.contentType: "application/json"]
        if let etag { headers[.eTag] = etag }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    func stop() async { await server.stop() }

    /// Lets the routes, built before the server starts, reach it once it has.
    private final class Holder: @unchecked Sendable {
        // `@unchecked`: set once, before the first request can arrive.
        var upstream: BooksUpstream?
    }
}
