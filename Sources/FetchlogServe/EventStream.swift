import FetchlogCore
import Foundation
import Hummingbird
import ServiceLifecycle

/// `GET /api/stream`: Server-Sent Events, one per appended event (`id: SEQ`, the header as
/// `/api/log` shows it). Driven by the store's snapshots: each new one (this process's
/// appends, or another's that the store's `watch()` caught up with) sends the events
/// between the last seq sent and the snapshot's, read back through the maintenance door,
/// so none is skipped however many appends one snapshot folds. A client that reconnects
/// with `Last-Event-ID: N` gets everything after N first; without it, only what comes next.
struct EventStream {
    let content: ServeContent

    func response(lastEventID: String?) throws -> Response {
        let start: UInt64
        if let lastEventID {
            guard let seq = UInt64(lastEventID.trimmingCharacters(in: .whitespaces)) else {
                throw APIError.badRequest("Last-Event-ID '\(lastEventID.prefix(40))' is not a seq: give the id of the last event received")
            }
            start = seq
        } else {
            start = content.store.snapshot.seq
        }
        let content = self.content
        let (chunks, continuation) = AsyncStream<ByteBuffer>.makeStream()
        // Ends with the server's graceful shutdown, or when the client has gone (Hummingbird
        // stops reading the stream, whose termination cancels this task).
        let producer = Task {
            try? await cancelWhenGracefulShutdown {
                // A comment line first: the headers go out at once, so a client knows it
                // is subscribed before any event is due.
                continuation.yield(ByteBuffer(string: ": subscribed after seq \(start)\n\n"))
                var sent = start
                for await snapshot in content.store.snapshots() {
                    let upTo = min(snapshot.seq, (try? content.store.maintenance.lastSeq()) ?? snapshot.seq)
                    guard upTo > sent else { continue }
                    var chunk = ""
                    for seq in (sent + 1)...upTo {
                        let event = try content.store.maintenance.event(at: seq)
                        chunk += "id: \(seq)\nevent: appended\ndata: \(content.eventHeader(event).canonicalText())\n\n"
                    }
                    continuation.yield(ByteBuffer(string: chunk))
                    sent = upTo
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in producer.cancel() }
        let body = ResponseBody(asyncSequence: chunks)
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }
}
