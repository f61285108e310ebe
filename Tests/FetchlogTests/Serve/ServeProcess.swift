import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `fetchlog serve` as a user runs it: a child process on a free loopback port, its
/// address read from the first line of stdout; SIGTERM ends it. `command` runs another
/// command that serves the same way (`demo --web --port 0`).
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    /// `http://127.0.0.1:PORT`.
    private(set) var base = ""
    /// The lines printed after the address (the generated token's).
    private(set) var extraLine = ""
    let client = HTTPClient(eventLoopGroupProvider: .singleton)

    /// The action token the server made at start (read from its stderr when asked for).
    private(set) var actionToken = ""

    init(store: String, command: [String] = ["serve", "--port", "0"], arguments: [String] = [], environment: [String: String] = [:],
         readsExtraLine: Bool = false, readsActionToken: Bool = false) async throws {
        process.executableURL = URL(fileURLWithPath: Repo.executable)
        process.arguments = ["--store", store] + command + arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        let errors = Pipe()
        process.standardError = readsActionToken ? errors : FileHandle.nullDevice
        try process.run()
        let reader = out.fileHandleForReading
        let lines = try await offPool { () -> [String] in
            readsExtraLine ? [Self.line(reader), Self.line(reader)] : [Self.line(reader)]
        }
        base = lines[0]
        if readsExtraLine { extraLine = lines[1] }
        if readsActionToken {
            // "fetchlog: actions (POST /api/fetch, the writes, push) need Authorization: Bearer TOKEN (the page at / holds it)"
            let said = try await offPool { Self.line(errors.fileHandleForReading) }
            actionToken = said.components(separatedBy: "Bearer ").last?.split(separator: " ").first.map(String.init) ?? ""
            // Whatever else it says must not fill the pipe and stall it.
            errors.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
        }
    }

    /// One line of `reader`, without its newline.
    static func line(_ reader: FileHandle) -> String {
        var line = ""
        while !line.hasSuffix("\n") {
            let byte = reader.readData(ofLength: 1)
            if byte.isEmpty { break }
            line += String(decoding: byte, as: UTF8.self)
        }
        return line.trimmingCharacters(in: .newlines)
    }

    struct Answer {
        let status: Int
        let headers: HTTPHeaders
        let body: String
    }

    /// One request to `path`, at the server's address or at `via` (another of its addresses).
    func get(_ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], body: String? = nil, via: String? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: (via ?? base) + path)
        request.method = method
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: String(buffer: body))
    }

    /// Reads `/api/stream` (after `lastEventID`, when given) until the event with id `last`
    /// has arrived; `subscribed` runs once the server has said it is subscribed.
    /// Returns every id received, in order.
    func streamIDs(after lastEventID: UInt64?, until last: UInt64, token: String? = nil,
                   subscribed: @Sendable () async throws -> Void = {}) async throws -> [UInt64] {
        var request = HTTPClientRequest(url: base + "/api/stream")
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: String(lastEventID)) }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await client.execute(request, timeout: .seconds(600))
        guard response.status == .ok else { return [] }
        var pending = ""
        var ids: [UInt64] = []
        var announced = false
        for try await chunk in response.body {
            pending += String(buffer: chunk)
            while let end = pending.range(of: "\n\n") {
                let message = pending[..<end.lowerBound]
                pending = String(pending[end.upperBound...])
                if message.hasPrefix(": subscribed"), !announced {
                    announced = true
                    try await subscribed()
                }
                // A client cut off at `last` has seen nothing after it.
                for line in message.split(separator: "\n") where line.hasPrefix("id: ") && ids.last != last {
                    ids.append(UInt64(line.dropFirst(4))!)
                }
            }
            if ids.last == last { break }
        }
        return ids
    }

    /// A test that throws before `stop()` leaves no server behind.
    deinit {
        if process.isRunning { process.terminate() }
    }

    func stop() async throws {
        try await client.shutdown()
        process.terminate()
        try await offPool { self.process.waitUntilExit() }
    }
}
