import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
@testable import SampleUpstream

/// A running server plus a client talking to it over real loopback HTTP.
struct Harness {
    let server: SampleUpstream
    let base: URL
    let client: HTTPClient

    struct Fetched {
        let status: Int
        let headers: HTTPHeaders
        let body: Data
        func header(_ name: String) -> String? { headers.first(name: name) }
        var json: Any? { try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) }
        var array: [[String: Any]] { json as? [[String: Any]] ?? [] }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
    }

    func get(_ path: String, headers: [(String, String)] = [], timeout: TimeAmount = .seconds(60)) async throws -> Fetched {
        try await send(.GET, path, headers: headers, timeout: timeout)
    }

    func send(_ method: HTTPMethod, _ path: String, body: String? = nil, headers: [(String, String)] = [], timeout: TimeAmount = .seconds(60)) async throws -> Fetched {
        var request = HTTPClientRequest(url: base.absoluteString + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: 10 << 20)
        return Fetched(status: Int(response.status.code), headers: response.headers, body: Data(buffer: bytes))
    }
}

/// Starts a server on a free port, runs `body`, and always shuts both ends down.
func withServer(_ configuration: SampleUpstreamConfiguration = .init(), _ body: (Harness) async throws -> Void) async throws {
    let server = try SampleUpstream(configuration: configuration)
    let base = try await server.start()
    let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
    let harness = Harness(server: server, base: base, client: client)
    var failure: (any Error)?
    do { try await body(harness) } catch { failure = error }
    try? await client.shutdown()
    await server.stop()
    if let failure { throw failure }
}

func ids(_ objects: [[String: Any]]) -> [Int] { objects.compactMap { $0["id"] as? Int } }
