import FetchlogCore
import NIOCore
import Synchronization

/// The canonical export of a view as `GET /api/views/NAME` sends it, kept for the state it
/// was made from: a repeated GET (and the event stream's `view` events, which announce the
/// same ETag) does not export, serialize and hash the view again until the state moves.
/// Exporting a large view takes milliseconds; answering from here is a dictionary lookup.
package final class ViewCache: Sendable {
    package struct Canonical: Sendable {
        /// The export (with its `asOf`).
        package let json: JSONValue
        /// Its canonical text, without the newline the API and `export` add.
        package let text: String
        /// `"SHA-256 of text"`, quotes included, as the `ETag` header carries it.
        package let etag: String
        /// `text` and a newline: the response body, shared by every response (no copy).
        package let body: ByteBuffer
    }

    /// At most this many names are held; past it the cache starts over (a client walking
    /// `show/1`, `show/2`, … must not grow it without bound).
    static let capacity = 256

    private let entries = Mutex<[String: (key: [UInt64], value: Canonical)]>([:])

    package init() {}

    /// `ViewCatalog.export(name, state:)` as canonical text, from the cache when it was made
    /// from this very state. Only for the store's snapshots: a past state (`?at=`) is made
    /// afresh for each request and would never be found again.
    package func canonical(_ name: String, state: LogState) throws(ViewNameError) -> Canonical {
        let key = Self.key(of: state)
        if let hit = entries.withLock({ $0[name] }), hit.key == key { return hit.value }
        let value = try Self.make(name, state: state)
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[name] == nil { entries.removeAll() }
            entries[name] = (key, value)
        }
        return value
    }

    /// As `canonical(_:state:)`, a miss made by `export` (the CLI's `export`, with its
    /// refusal of a view that reads a body `log compact` dropped): what `GET /api/views/NAME`
    /// answers. A refusal is not cached.
    package func canonical(_ name: String, state: LogState, export: (String, LogState) throws -> JSONValue) throws -> Canonical {
        let key = Self.key(of: state)
        if let hit = entries.withLock({ $0[name] }), hit.key == key { return hit.value }
        let value = Self.canonical(try export(name, state))
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[name] == nil { entries.removeAll() }
            entries[name] = (key, value)
        }
        return value
    }

    /// As `canonical(_:state:export:)` for a view made asynchronously (a saved view, by its
    /// query), kept as `make` wrote it (`text`: its own member order).
    package func canonical(_ name: String, state: LogState, make: () async throws -> Canonical) async throws -> Canonical {
        let key = Self.key(of: state)
        if let hit = entries.withLock({ $0[name] }), hit.key == key { return hit.value }
        let value = try await make()
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[name] == nil { entries.removeAll() }
            entries[name] = (key, value)
        }
        return value
    }

    /// Without the cache (a past state).
    package static func make(_ name: String, state: LogState) throws(ViewNameError) -> Canonical {
        canonical(try ViewCatalog.export(name, state: state))
    }

    /// `ordered`: members in the order given (a saved view's rows in its column order), not sorted.
    static func canonical(_ json: JSONValue, ordered: Bool = false) -> Canonical {
        let text = ordered ? json.orderedText() : json.canonicalText()
        return Canonical(json: json, text: text, etag: "\"\(SHA256.hex(text))\"", body: ByteBuffer(string: text + "\n"))
    }

    /// What identifies a snapshot's state: its seq (every export names it in `asOf`) and the
    /// change tokens of every source it can hold (a session-only event moves those, not the
    /// seq). Equal keys, equal states (`ChangeTokens`).
    static func key(of state: LogState) -> [UInt64] {
        let sources = Set(state.sources.sources.map(\.rawValue) + state.manifests.keys + [Source.assets.rawValue, ManifestDefinition.source])
        return [state.seq] + state.changes.key(for: sources)
    }
}
