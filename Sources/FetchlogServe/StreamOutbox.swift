import Foundation
import Hummingbird
import Synchronization

/// One `/api/stream` client's bytes not yet taken by its connection, counted. Hummingbird
/// takes the next chunk only once the socket has room for the last (NIO's writability), so
/// what a client that does not read leaves waiting is here, and here it is bounded:
/// `EventStream` queues a snapshot's batch only while fewer than `maxUnreadBytes` wait
/// (else the client is dropped, with a message saying how to resume), and renders a
/// reconnect's catch-up only as fast as the client reads it.
final class StreamOutbox: Sendable {
    /// The bound per client: 256 KiB waiting unread (about 800 `appended` messages). A
    /// batch is queued only below it, so a client holds at most this plus one snapshot's
    /// batch, whose buffer every client shares. 200 clients that never read hold at most
    /// 50 MiB and the latest batch (README, "Serving the store over HTTP").
    /// `FETCHLOG_SERVE_STREAM_BUFFER` sets another (bytes), for a test or a measurement.
    static let maxUnreadBytes: Int = ProcessInfo.processInfo.environment["FETCHLOG_SERVE_STREAM_BUFFER"]
        .flatMap(Int.init).map { max($0, 1024) } ?? 256 << 10

    private let unread = Atomic<Int>(0)
    private let continuation: AsyncStream<ByteBuffer>.Continuation
    private let chunks: AsyncStream<ByteBuffer>
    /// Told each time the connection takes a chunk: what a catch-up waits on.
    private let taken: AsyncStream<Void>.Continuation
    private let takenSignals: AsyncStream<Void>

    init() {
        (chunks, continuation) = AsyncStream<ByteBuffer>.makeStream()
        (takenSignals, taken) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Bytes queued and not yet taken by the connection.
    var unreadBytes: Int { unread.load(ordering: .relaxed) }

    /// True while another batch may be queued.
    var hasRoom: Bool { unreadBytes < Self.maxUnreadBytes }

    func yield(_ buffer: ByteBuffer) {
        guard buffer.readableBytes > 0 else { return }
        unread.add(buffer.readableBytes, ordering: .relaxed)
        continuation.yield(buffer)
    }

    /// Waits until the client has read enough for another piece of a catch-up: false when
    /// the stream ended first.
    func waitForRoom() async -> Bool {
        var signals = takenSignals.makeAsyncIterator()
        while !hasRoom {
            guard await signals.next() != nil, !Task.isCancelled else { return false }
        }
        return true
    }

    func finish() {
        continuation.finish()
        taken.finish()
    }

    /// Runs when the connection stops reading (the client went away, or the stream ended).
    func onTermination(_ action: @escaping @Sendable () -> Void) {
        continuation.onTermination = { _ in action() }
    }

    /// What Hummingbird writes: the chunks, each uncounted as the connection takes it.
    var body: Body { Body(chunks: chunks, outbox: self) }

    struct Body: AsyncSequence, Sendable {
        let chunks: AsyncStream<ByteBuffer>
        let outbox: StreamOutbox

        func makeAsyncIterator() -> Iterator { Iterator(base: chunks.makeAsyncIterator(), outbox: outbox) }

        struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<ByteBuffer>.AsyncIterator
            let outbox: StreamOutbox

            mutating func next() async -> ByteBuffer? {
                guard let chunk = await base.next() else { return nil }
                outbox.unread.subtract(chunk.readableBytes, ordering: .relaxed)
                outbox.taken.yield()
                return chunk
            }
        }
    }
}
