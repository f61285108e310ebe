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
/// 15 s keeps proxies from closing a quiet stream. A client that does not read is held to
/// `StreamOutbox.maxUnreadBytes` (256 KiB): past it the stream ends with an `event: dropped`
/// (`{"reason","lastEventId"}`), and a reconnect with that Last-Event-ID misses nothing.
struct EventStream {
    let content: ServeContent

    /// `FETCHLOG_SERVE_HEARTBEAT_MS` shortens it, so a test sees heartbeats without waiting.
    static let heartbeat: Duration = ProcessInfo.processInfo.environment["FETCHLOG_SERVE_HEARTBEAT_MS"]
        .flatMap(Int.init).map { .milliseconds(max($0, 1)) } ?? .seconds(15)

    /// A reconnect's catch-up is rendered this many events at a time, each piece once the
    /// client has read the last down below the bound.
    static let catchUpPiece: UInt64 = 256

    /// The last message of a client that fell behind: why, and how to resume (a browser's
    /// EventSource reconnects by itself, sending the last id it received as Last-Event-ID).
    /// `lastEventId` is the id of the last `appended` message sent before it.
    static func dropped(_ why: String, lastEventID: UInt64) -> String {
        let data = JSONValue.object([("reason", .string("this client fell behind: \(why); reconnect with Last-Event-ID: \(lastEventID) to resume after the last event sent")),
                                     ("lastEventId", .number(lastEventID))])
        return "event: dropped\ndata: \(data.canonicalText())\n\n"
    }

    func response(lastEventID: String?) throws -> Response {
        let requested: UInt64?
        if let lastEventID {
            guard let seq = UInt64(lastEventID.trimmingCharacters(in: .whitespaces)) else {
                throw APIError.badRequest("Last-Event-ID '\(lastEventID.prefix(40))' is not a seq: give the id of the last event received, a whole number from 0")
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
        let outbox = StreamOutbox()
        let heartbeat = Task {
            while (try? await Task.sleep(for: Self.heartbeat)) != nil {
                // Bytes still waiting keep the connection busy enough; a heartbeat would
                // only add to what a client that does not read holds.
                if outbox.unreadBytes == 0 { outbox.yield(ByteBuffer(string: ": heartbeat\n\n")) }
            }
        }
        // Ends with the server's graceful shutdown, or when the client has gone (Hummingbird
        // stops reading the stream, whose termination cancels this task).
        let producer = Task {
            let behind = try? await cancelWhenGracefulShutdown { () async throws -> (why: String, lastEventID: UInt64)? in
                // A comment line first: the headers go out at once, so a client knows it
                // is subscribed before any event is due.
                outbox.yield(ByteBuffer(string: ": subscribed after seq \(start)\n\n"))
                // What the log holds past `start` now (a reconnect's catch-up), a piece at a
                // time as the client reads it: a whole log is never rendered at once …
                var sent = start
                let now = min(content.store.snapshot.seq, try content.store.maintenance.lastSeq())
                while sent < now {
                    guard await outbox.waitForRoom() else { return nil }
                    let upTo = min(now, sent + Self.catchUpPiece)
                    outbox.yield(ByteBuffer(string: try StreamHub.render(after: sent, upTo: upTo, content)))
                    sent = upTo
                }
                // … then each snapshot's batch, rendered once for every client; a client
                // that is ahead of it or behind reads its own events. One with
                // `maxUnreadBytes` still unread is dropped rather than held more.
                for await batch in batches {
                    let events = batch.upTo > sent
                    guard events || (batch.upTo == sent && batch.from == sent && batch.views.readableBytes > 0) else { continue }
                    guard outbox.hasRoom else {
                        return ("\(StreamOutbox.maxUnreadBytes) bytes were waiting unread, the most a client is held", sent)
                    }
                    if events {
                        outbox.yield(batch.from == sent ? batch.appended : ByteBuffer(string: try StreamHub.render(after: sent, upTo: batch.upTo, content)))
                        sent = batch.upTo
                    }
                    outbox.yield(batch.views)
                }
                // The hub ends a subscriber's batches early only when too many waited for it.
                return Task.isCancelled ? nil : ("\(StreamHub.maxWaitingBatches) snapshots were waiting for it, the most a client is held", sent)
            }
            hub.unsubscribe(id)
            heartbeat.cancel()
            if let behind = behind ?? nil { outbox.yield(ByteBuffer(string: Self.dropped(behind.why, lastEventID: behind.lastEventID))) }
            outbox.finish()
        }
        outbox.onTermination {
            producer.cancel()
            heartbeat.cancel()
        }
        let body = ResponseBody(asyncSequence: outbox.body)
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }
}
