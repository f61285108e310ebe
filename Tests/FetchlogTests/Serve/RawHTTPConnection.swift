import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection to the server written by hand: the request's bytes exactly as given
/// (a Host no HTTP client would send, two of them), and a reader that can stop reading
/// (an SSE client that never reads). Blocking calls: run them with `offPool`.
final class RawHTTPConnection: @unchecked Sendable {
    let fd: Int32
    private var received: [UInt8] = []

    /// `receiveBuffer` (bytes) shrinks the socket's receive buffer before it connects, so a
    /// client that does not read holds little in its kernel and the server's own bound is
    /// what fills.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw NATSTestError("socket: \(errno)") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        // Not a bound anything is asserted on: a read that would block for ever (a stream
        // that never ends) returns, and the test fails on what arrived instead of hanging.
        var patience = timeval(tv_sec: 300, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw NATSTestError("connect to \(port): \(errno)") }
    }

    deinit { close(fd) }

    /// A larger receive buffer for reading what waited (a window up to 64 KiB, the scale
    /// fixed at connect), so reading it takes fewer calls.
    func widenReceiveBuffer() {
        var size: Int32 = 1 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw NATSTestError("send: \(errno)") }
            offset += n
        }
    }

    /// Reads until `done` holds for what has arrived (or the peer closes); returns it all.
    @discardableResult
    func read(until done: ([UInt8]) -> Bool) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while !done(received) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return received
    }

    /// Reads the whole answer of a `Connection: close` request.
    func readToEnd() -> String {
        String(decoding: read(until: { _ in false }), as: UTF8.self)
    }

    /// The status code of an answer read whole.
    static func status(of answer: String) -> Int {
        Int(answer.split(separator: " ", maxSplits: 2).dropFirst().first ?? "") ?? 0
    }

    /// The body of a chunked answer (`Transfer-Encoding: chunked`), and whether its last
    /// chunk arrived; nil when the chunking is broken.
    static func dechunk(_ bytes: [UInt8]) -> (body: [UInt8], ended: Bool)? {
        guard let headerEnd = find([13, 10, 13, 10], in: bytes, from: 0) else { return ([], false) }
        var at = headerEnd + 4
        var body: [UInt8] = []
        while true {
            guard let lineEnd = find([13, 10], in: bytes, from: at) else { return (body, false) }
            guard let size = Int(String(decoding: bytes[at..<lineEnd], as: UTF8.self), radix: 16) else { return nil }
            if size == 0 { return (body, true) }
            let start = lineEnd + 2
            guard bytes.count >= start + size + 2 else { return (body, false) }
            body += bytes[start..<(start + size)]
            at = start + size + 2
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var i = from
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0], Array(haystack[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}
