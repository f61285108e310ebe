import FetchlogCore
import FetchlogSQL
import Foundation
import NIOCore
import Synchronization

/// The work of `/api/stream` done once per snapshot for every subscriber, not once per
/// subscriber: one task follows the store's snapshots while at least one client is
/// subscribed, renders the new events' SSE messages and finds the views that changed
/// (`ViewChanges`), and hands each subscriber the same `Batch`. With no subscriber it
/// stops, and nothing is computed.
package final class StreamHub: Sendable {
    /// What one snapshot brought: the events after `from` up to `upTo` as SSE messages
    /// (`appended`, empty when none), then its `view` messages (`views`). Buffers made once
    /// and shared by every client's queue (a `ByteBuffer` copies only when written to).
    struct Batch: Sendable {
        let from: UInt64
        let upTo: UInt64
        let appended: ByteBuffer
        let views: ByteBuffer
    }

    /// Batches waiting for one subscriber's task, at most: it takes each at once unless it
    /// is rendering a reconnect's catch-up for a client that reads slowly; a subscriber with
    /// this many waiting is finished, and its client dropped as one that fell behind.
    static let maxWaitingBatches = 64

    private struct Subscribers {
        var continuations: [UUID: AsyncStream<Batch>.Continuation] = [:]
        var follower: Task<Void, Never>?
        /// Which follower is current: one cancelled as the last client left must not hand
        /// a late batch to a client of the next.
        var generation = 0
    }

    private let subscribers = Mutex(Subscribers())

    package init() {}

    /// Registers a subscriber (starting the follower for the first) and returns its batches.
    /// The follower compares against the snapshot of this moment, so a view that changes
    /// after `subscribe` returns is announced.
    func subscribe(_ content: ServeContent, views: ViewCache) -> (UUID, AsyncStream<Batch>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Batch>.makeStream(bufferingPolicy: .bufferingOldest(Self.maxWaitingBatches))
        subscribers.withLock { s in
            s.continuations[id] = continuation
            if s.follower == nil {
                s.generation += 1
                s.follower = follow(content, views: views, baseline: content.store.snapshot, generation: s.generation)
            }
        }
        return (id, stream)
    }

    func unsubscribe(_ id: UUID) {
        subscribers.withLock { s in
            s.continuations.removeValue(forKey: id)?.finish()
            if s.continuations.isEmpty {
                s.follower?.cancel()
                s.follower = nil
            }
        }
    }

    private func follow(_ content: ServeContent, views: ViewCache, baseline: Snapshot, generation: Int) -> Task<Void, Never> {
        let snapshots = content.store.snapshots()
        return Task { [weak self] in
            var changes = ViewChanges(baseline: baseline.state)
            var saved = await Self.savedViews(of: baseline.state, content, previous: [:])
            var sent = baseline.seq
            for await snapshot in snapshots {
                guard let self, !Task.isCancelled else { return }
                let upTo = max(sent, min(snapshot.seq, (try? content.store.maintenance.lastSeq()) ?? snapshot.seq))
                let appended: String
                do { appended = try Self.render(after: sent, upTo: upTo, content) } catch { return }
                var viewText = ""
                for (view, etag) in changes.changes(to: snapshot.state, cache: views) {
                    let data = JSONValue.object([("view", .string(view)), ("etag", etag.map { .string($0) } ?? .null), ("seq", .number(snapshot.seq))])
                    viewText += "event: view\ndata: \(data.canonicalText())\n\n"
                }
                // Saved views (issue 35) are asked again when a source they read moved (or
                // for each snapshot, when they read the log itself), and announced when
                // their rows changed, as the fixed views are.
                let now = await Self.savedViews(of: snapshot.state, content, previous: saved)
                for name in Set(saved.keys).union(now.keys).sorted() where saved[name]?.rows != now[name]?.rows {
                    let data = JSONValue.object([("view", .string(name)), ("etag", now[name].flatMap { $0.rows == nil ? nil : JSONValue.string($0.etag) } ?? .null), ("seq", .number(snapshot.seq))])
                    viewText += "event: view\ndata: \(data.canonicalText())\n\n"
                }
                saved = now
                guard upTo > sent || !viewText.isEmpty else { continue }
                let batch = Batch(from: sent, upTo: upTo, appended: ByteBuffer(string: appended), views: ByteBuffer(string: viewText))
                sent = upTo
                subscribers.withLock { s in
                    guard s.generation == generation else { return }
                    for continuation in s.continuations.values {
                        // Full: the stream ends, which its task reads as having fallen behind.
                        if case .dropped = continuation.yield(batch) { continuation.finish() }
                    }
                }
            }
        }
    }

    /// What the stream knows of a saved view: its export without `asOf` (nil when asking it
    /// fails: a view that no longer compiles), its ETag, and the change key of what it reads
    /// when that was asked (nil: unknown, asked again for every snapshot).
    struct SavedAnswer {
        let rows: JSONValue?
        let etag: String
        let key: [UInt64]?
    }

    /// Each saved view of `state` by name, as `GET /api/views/NAME` answers; a view whose
    /// definition and inputs (`SavedViewInputs`) are as they were in `previous` is not asked again.
    private static func savedViews(of state: LogState, _ content: ServeContent, previous: [String: SavedAnswer]) async -> [String: SavedAnswer] {
        var answers: [String: SavedAnswer] = [:]
        // Only the views SQL takes as tables (issue 44: a name the rule refuses is no view here).
        let inForce = state.savedViews.isEmpty ? [:]
            : SavedViewName.inForce(state.savedViews.values, viewNames: SQLTables.viewNames(in: state), resources: SQLTables.resources(in: state)).views
        for view in inForce.values {
            let key = SavedViewInputs.of(view.name, in: state).map { [view.seq] + state.changes.key(for: $0) }
            if let key, let known = previous[view.name], known.key == key {
                answers[view.name] = known
                continue
            }
            if let export = try? await APIResponder.savedView(view, state: state, cached: true, content: content) {
                answers[view.name] = SavedAnswer(rows: ViewChanges.withoutAsOf(export.json), etag: export.etag, key: key)
            } else {
                answers[view.name] = SavedAnswer(rows: nil, etag: "", key: key)
            }
        }
        return answers
    }

    /// The `appended` messages of the events after `from` up to `upTo` (`id: SEQ`, the
    /// header as `/api/log` shows it), read back through the maintenance door.
    static func render(after from: UInt64, upTo: UInt64, _ content: ServeContent) throws -> String {
        guard upTo > from else { return "" }
        var chunk = ""
        for seq in (from + 1)...upTo {
            let event = try content.store.maintenance.event(at: seq)
            chunk += "id: \(seq)\nevent: appended\ndata: \(content.eventHeader(event).canonicalText())\n\n"
        }
        return chunk
    }
}

/// What the API's requests share: the views' canonical exports and the event stream's hub.
package final class ServeShared: Sendable {
    package let views = ViewCache()
    package let stream = StreamHub()
    package init() {}
}
