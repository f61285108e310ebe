import Foundation

/// A source defined by a manifest in a store, as `Store.define(_:)` and `Store.source(_:)`
/// hand it out: its resources by name, each a ``ResourceHandle``.
///
/// A handle holds a name, not a definition: it reads the definition in force in the
/// store's latest snapshot each time it is asked, so a redefinition is seen at once.
public struct SourceHandle: Sendable {
    let store: Store
    /// The source's name (the manifest's `name`).
    public let name: String

    /// Resource `name` of the definition in force. A name the definition does not hold is
    /// refused, with the names it does hold ("did you mean"), rather than read as empty.
    public func resource(_ name: String) throws(DefinedSourceError) -> ResourceHandle {
        let defined = try store.definedManifest(self.name)
        guard defined.resource(name) != nil else {
            throw .noResource(source: self.name, resource: name, known: defined.resources.map(\.name))
        }
        return ResourceHandle(store: store, source: self.name, name: name)
    }
}

/// One resource of a source defined by a manifest: fetch it, read its items into your own
/// `Decodable` type, observe them, export them.
///
/// ```swift
/// let items = try await store.define(manifest).resource("items")
/// try await items.fetch()
/// let all = try items.items(as: Item.self)
/// ```
public struct ResourceHandle: Sendable {
    let store: Store
    /// The source's name.
    public let source: String
    /// The resource's name in the manifest.
    public let name: String

    /// The resource's view by name, `items/SOURCE/RESOURCE`: what `ViewCatalog.export`,
    /// `Store.observe(view:)` and `fetchlog export` take.
    public var viewName: String { "items/\(source)/\(name)" }

    /// Fetches every page the resource's paginator reaches (a child resource: its parent
    /// first, then one list per parent item), each outcome an event in the log, and returns
    /// the reports once the items are in the store's snapshot.
    ///
    /// Throws ``DefinedSourceError/fetchFailed(source:resource:reports:)`` when a page
    /// failed (no answer, an error status, a body that does not decode): the caller cannot
    /// take a failed fetch for a finished one. What was held before is kept, and so is every
    /// page that did arrive.
    @discardableResult
    public func fetch() async throws -> [FetchReport] {
        guard try store.definedManifest(source).resource(name) != nil else { throw missing() }
        let reports = try await store.fetchManifestResource(source: Source(source), resource: name)
        guard reports.allSatisfy(\.isUsable) else { throw DefinedSourceError.fetchFailed(source: source, resource: name, reports: reports) }
        return reports
    }

    /// The resource's items in the store's latest snapshot (deduplicated by the primary key,
    /// in first-seen order, as the `items` view shows them), decoded into `T` from their
    /// canonical JSON, numbers as numbers. `decoder` sets key and date strategies.
    ///
    /// The changes waiting are in them (`add`, `set`, `delete`): an item added here that the
    /// server has not confirmed yet is decoded with its key field null — its key is
    /// `local:ID` until then, which is no value of the server's — so declare that field
    /// optional (`let id: Int?`): it is the server's once a push is confirmed. A `T` whose
    /// key field (or a field the server fills in) is not optional throws
    /// ``DefinedSourceError/unconfirmedItem(source:resource:key:type:field:)`` naming the
    /// item's local key. ``heldItems(as:decoder:)`` gives each item with its key and changes.
    public func items<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> [T] {
        let view = try readView()
        return try decode(view.items, key: view.restResource.primaryKey, as: type, decoder: decoder)
    }

    /// The items decoded into `T` as ``items(as:decoder:)`` decodes them (an item added here
    /// and not confirmed yet with its key field null), now and then each time they change —
    /// as GRDB's `ValueObservation`: a snapshot that leaves them as they were (another
    /// source's fetch, a 304, an intent) yields nothing. Values in between two deliveries may
    /// be skipped (the newest wins), never the last. Ends with an error when the items stop
    /// decoding or a redefinition removes the resource; cancel the consuming task (or drop
    /// the stream) to stop.
    public func observe<T: Decodable & Sendable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) -> AsyncThrowingStream<[T], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[T], any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let views: AsyncStream<JSONValue>
        do {
            views = try store.observe(view: viewName)
        } catch {
            // The view is not there: the source or the resource is not defined (now); if
            // they are, the view's own error says why.
            let state = store.snapshot.state
            let defined = state.manifests[source]?.manifest.resource(name) != nil
            continuation.finish(throwing: defined ? error : missing(in: state))
            return stream
        }
        let task = Task { [self] in
            for await view in views {
                // The export without `asOf`, or null once the resource is gone.
                guard let items = view["items"]?.arrayValue else { return continuation.finish(throwing: missing()) }
                let key = store.snapshot.state.manifests[source]?.manifest.resource(name)?.primaryKey ?? []
                do { continuation.yield(try decode(items, key: key, as: type, decoder: decoder)) } catch { return continuation.finish(throwing: error) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The resource's view as `fetchlog export items/SOURCE/RESOURCE` writes it:
    /// `{"view":"items","asOf":N,"source","resource","count","items":[…]}` (`canonicalText()`
    /// gives the canonical JSON text).
    public func export() throws(DefinedSourceError) -> JSONValue {
        let state = store.snapshot.state
        guard let view = ItemsView(state: state, source: source, resource: name) else { throw missing(in: state) }
        return view.export(asOf: state.seq)
    }

    func readView(_ state: LogState? = nil) throws(DefinedSourceError) -> ItemsView {
        let state = state ?? store.snapshot.state
        guard let view = ItemsView(state: state, source: source, resource: name) else { throw missing(in: state) }
        return view
    }

    /// Why the view is not there: the source is no longer defined, or its definition no
    /// longer names the resource.
    private func missing(in state: LogState? = nil) -> DefinedSourceError {
        let state = state ?? store.snapshot.state
        guard let defined = state.manifests[source]?.manifest else { return .noSource(source, known: state.manifests.keys.sorted()) }
        return .noResource(source: source, resource: name, known: defined.resources.map(\.name))
    }

    /// Items as the canonical JSON text `JSONDecoder` reads (the held numbers' text as
    /// written), an item added here and not confirmed yet with its key field (`key`, the
    /// primary key) null. When such an item lacks what `T` needs — its key, or a field the
    /// server fills in — the error names it (``DefinedSourceError/unconfirmedItem(source:resource:key:type:field:)``)
    /// rather than the decoder's words about an index.
    func decode<T: Decodable>(_ items: [JSONValue], key: [String], as type: T.Type, decoder: JSONDecoder) throws -> [T] {
        var items = items
        var local: [Int: String] = [:]
        if key.count == 1 {
            for at in items.indices {
                guard let text = Self.localKey(of: items[at], field: key[0]) else { continue }
                local[at] = text
                items[at] = ItemsView.adding([(key[0], .null)], to: items[at])
            }
        }
        do {
            return try decoder.decode([T].self, from: Data(JSONValue.array(items).canonicalText().utf8))
        } catch let error as DecodingError {
            guard !local.isEmpty, let (at, field) = Self.lacking(error), let text = local[at],
                  field == key[0] || items[at][field].map({ !$0.isNull }) ?? true else { throw error }
            throw DefinedSourceError.unconfirmedItem(source: source, resource: name, key: text, type: "\(T.self)", field: field)
        }
    }

    /// The local key (`local:SEQ`) of an item added here that the server has not named yet:
    /// the optimistic view gives it as the item's key field, SEQ among its pending mutations.
    static func localKey(of item: JSONValue, field: String) -> String? {
        guard case .string(let text)? = item[field], text.hasPrefix("local:"), let seq = UInt64(text.dropFirst("local:".count)),
              item["pending"]?["mutations"]?.arrayValue?.contains(.number(seq)) == true else { return nil }
        return text
    }

    /// The item (its place in the list) and its member that a decoding error says has no
    /// value: absent, or null where the type takes none. Nil for any other error.
    static func lacking(_ error: DecodingError) -> (Int, String)? {
        switch error {
        case .keyNotFound(let member, let context):
            guard context.codingPath.count == 1, let at = context.codingPath[0].intValue else { return nil }
            return (at, member.stringValue)
        case .valueNotFound(_, let context):
            guard context.codingPath.count == 2, let at = context.codingPath[0].intValue else { return nil }
            return (at, context.codingPath[1].stringValue)
        default:
            return nil
        }
    }
}

/// A defined source or resource asked for by a name the store does not hold, a fetch of one
/// that failed, or an item not confirmed yet read into a type that needs what it lacks.
public enum DefinedSourceError: Error, CustomStringConvertible {
    /// No source of that name is defined by a manifest in the store; `known` are the ones
    /// that are.
    case noSource(String, known: [String])
    /// The definition in force has no resource of that name; `known` are its resources.
    case noResource(source: String, resource: String, known: [String])
    /// A page of the fetch failed; `reports` are every page's (the failed ones say why).
    /// The items held before, and the pages that did arrive, are kept.
    case fetchFailed(source: String, resource: String, reports: [FetchReport])
    /// An item added here (`key`: its `local:ID`) that the server has not confirmed yet, read
    /// into `type`, which needs its member `field` — the key field, null until the server
    /// names the item, or a field the server fills in. Declare that member optional, or read
    /// ``ResourceHandle/heldItems(as:decoder:)`` for each item's key.
    case unconfirmedItem(source: String, resource: String, key: String, type: String, field: String)

    /// What happened and what to do, naming the names that exist ("did you mean").
    public var description: String {
        switch self {
        case .noSource(let name, let known):
            "no source '\(name)' is defined by a manifest in this store\(Suggest.didYouMean(name, known)): "
                + (known.isEmpty ? "define one with store.define(manifest)" : "defined: \(known.joined(separator: ", "))")
        case .noResource(let source, let name, let known):
            "\(source) has no resource '\(name)'\(Suggest.didYouMean(name, known)): its resources are \(known.joined(separator: ", "))"
        case .fetchFailed(let source, let resource, let reports):
            Self.describe(source: source, resource: resource, reports: reports)
        case .unconfirmedItem(let source, let resource, let key, let type, let field):
            "\(source) \(resource) item \(key) was added here and the server has not confirmed it yet: it has no \(field) until a push does, "
                + "and \(type)'s \(field) is not optional. Declare it optional (nil until then); heldItems(as:) gives each item with its key "
                + "(\(key) until the server names it)"
        }
    }

    private static func describe(source: String, resource: String, reports: [FetchReport]) -> String {
        let failures = reports.compactMap { report -> String? in
            guard case .failed(let kind, let message) = report.outcome else { return nil }
            return "\(report.url): \(kind.name): \(message)"
        }
        let usable = reports.count - failures.count
        let kept = usable == 0 ? "nothing usable arrived; the items held before are kept"
                               : "\(usable) of \(reports.count) pages arrived and are kept, with the items held before"
        return "fetching \(source)/\(resource) failed (\(failures.joined(separator: "; "))): \(kept); fetch again to complete it"
    }
}

extension Store {
    /// The handle of the source `name` defined by a manifest in this store (by
    /// `define(_:)`, in this session or an earlier one, or by `fetchlog source add`).
    public func source(_ name: String) throws(DefinedSourceError) -> SourceHandle {
        _ = try definedManifest(name)
        return SourceHandle(store: self, name: name)
    }

    /// The manifest in force for `name`, or the error naming the sources that are defined.
    func definedManifest(_ name: String) throws(DefinedSourceError) -> RestManifest {
        let manifests = snapshot.state.manifests
        guard let defined = manifests[name] else { throw .noSource(name, known: manifests.keys.sorted()) }
        return defined.manifest
    }
}
