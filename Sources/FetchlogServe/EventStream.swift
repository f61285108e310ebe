import FetchlogCore
import Foundation
import Hummingbird
import ServiceLifecycle

/// `GET /api/stream`: Server-Sent Events driven by the store's snapshots (this process's
/// appends, or another's that the store's `watch()` caught up with). For each new snapshot:
/// first an `appended` message per event between the last seq sent and the snapshot's
/// (`id: SEQ`, the header as `/api/log` shows it), so none is skipped however many appends
/// one snapshot folds; then a `view` message per exported view whose export changed
/// (`{"view":NAME,"etag":"\"SHA-256\"","seq":SEQ}`, the ETag `GET /api/views/NAME` answers
/// at that seq; `etag` null when the view went away), without an id, so `Last-Event-ID`
/// stays the last event's seq. A client that reconnects with `Last-Event-ID: N` gets every
/// event after N first; without it, only what comes next. A `: heartbeat` comment every
/// 15 s keeps proxies from closing a quiet stream.
struct EventStream {
    let content: ServeContent

    /// `FETCHLOG_SERVE_HEARTBEAT_MS` shortens it, so a test sees heartbeats without waiting.
    static let heartbeat: Duration = ProcessInfo.processInfo.environment["FETCHLOG_SERVE_HEARTBEAT_MS"]
        .flatMap(Int.init).map { .milliseconds(max($0, 1)) } ?? .seconds(15)

    func response(lastEventID: String?) throws -> Response {
        let requested: UInt64?
        if let lastEventID {
            guard let seq = UInt64(lastEventID.trimmingCharacters(in: .whitespaces)) else {
                throw APIError.badRequest("Last-Event-ID '\(lastEventID.prefix(40))' is not a seq: give the id of the last event received")
            }
            requested = seq
        } else {
            requested = nil
        }
        let content = self.content
        let hub = content.shared.stream
        // Subscribed before the start is read: whatever follows it arrives as a batch.
        let (id, batches) = hub.subscribe(content, views: content.shared.views)
        let start = requested ?? content.store.snapshot.seq
        let (chunks, continuation) = AsyncStream<ByteBuffer>.makeStream()
        let heartbeat = Task {
            while (try? await Task.sleep(for: Self.heartbeat)) != nil {
                continuation.yield(ByteBuffer(string: ": heartbeat\n\n"))
            }
        }
        // Ends with the server's graceful shutdown, or when the client has gone (Hummingbird
        // stops reading the stream, whose termination cancels this task).
        let producer = Task {
            try? await cancelWhenGracefulShutdown {
                // A comment line first: the headers go out at once, so a client knows it
                // is subscribed before any event is due.
                continuation.yield(ByteBuffer(string: ": subscribed after seq \(start)\n\n"))
                // What the log holds past `start` now (a reconnect's catch-up) …
                var sent = start
                let now = min(content.store.snapshot.seq, try content.store.maintenance.lastSeq())
                if now > sent {
                    continuation.yield(ByteBuffer(string: try StreamHub.render(after: sent, upTo: now, content)))
                    sent = now
                }
                // … then each snapshot's batch, rendered once for every client; a client
                // that is ahead of it or behind reads its own events.
                for await batch in batches {
                    if batch.upTo > sent {
                        let appended = batch.from == sent ? batch.appended : try StreamHub.render(after: sent, upTo: batch.upTo, content)
                        continuation.yield(ByteBuffer(string: appended + batch.views))
                        sent = batch.upTo
                    } else if batch.upTo == sent, batch.from == sent, !batch.views.isEmpty {
                        continuation.yield(ByteBuffer(string: batch.views))
                    }
                }
            }
            hub.unsubscribe(id)
            heartbeat.cancel()
            continuation.finish()
        }
        continuation.onTermination = { _ in
            producer.cancel()
            heartbeat.cancel()
        }
        let body = ResponseBody(asyncSequence: chunks)
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }
}
