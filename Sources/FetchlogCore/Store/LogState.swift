import Synchronization
/// A resource as the log names it: the event's source and label.
public struct ResourceKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The source's name, as events carry it.
    public let source: String
    /// The resource's path (with its query), as events label it.
    public let path: String
    /// The key of `source`'s resource at `path`.
    public init(source: String, path: String) {
        self.source = source
        self.path = path
    }
    /// The key the log files `resource` under.
    public init(_ resource: Resource) { self.init(source: resource.source.rawValue, path: resource.path) }
    /// Ordered by source, then path, so listings are stable.
    public static func < (a: ResourceKey, b: ResourceKey) -> Bool { (a.source, a.path) < (b.source, b.path) }
    /// `source` followed by `path`.
    public var description: String { source + path }
}

/// The last body of a resource that decoded, with where it came from.
public struct HeldDocument: Sendable, Equatable {
    /// The event that brought the body.
    public let seq: UInt64
    /// When that event was recorded.
    public let fetchedAt: Timestamp
    /// As the source's plug-in decoded it; cast to the plug-in's own type to read it.
    ///
    /// Restored from a checkpoint, the body is decoded the first time this is read: a
    /// command that reads no item (`status`, `source list`, `log stats`) never decodes one.
    public var document: any SourceDocument { held.document }
    private let held: DecodedOnce
    /// False while a body restored from a checkpoint waits to be read (tests see the cold start).
    package var isDecoded: Bool { held.isDecoded }

    /// A held document from event `seq`, recorded at `fetchedAt`.
    package init(seq: UInt64, fetchedAt: Timestamp, document: any SourceDocument) {
        self.seq = seq
        self.fetchedAt = fetchedAt
        held = DecodedOnce(document)
    }

    /// A held document whose body `decode` decodes when it is first read (once, whoever
    /// reads it first; every copy of the state shares it). The body decoded when its event
    /// was folded, by the same reducer version, so it decodes again: `decode` returns an
    /// `UndecodableDocument` only for a log damaged since, which views read as no document.
    package init(seq: UInt64, fetchedAt: Timestamp, decoding decode: @escaping @Sendable () -> any SourceDocument) {
        self.seq = seq
        self.fetchedAt = fetchedAt
        held = DecodedOnce(decode)
    }

    /// Equal when the same event brought an equal document.
    public static func == (a: HeldDocument, b: HeldDocument) -> Bool {
        a.seq == b.seq && a.fetchedAt == b.fetchedAt && a.document.isEqual(to: b.document)
    }
}

/// A document decoded at most once, on first read.
private final class DecodedOnce: Sendable {
    private enum Held {
        case decoded(any SourceDocument)
        case waiting(@Sendable () -> any SourceDocument)
    }
    private let held: Mutex<Held>

    init(_ document: any SourceDocument) { held = Mutex(.decoded(document)) }
    init(_ decode: @escaping @Sendable () -> any SourceDocument) { held = Mutex(.waiting(decode)) }

    var isDecoded: Bool {
        held.withLock { held in
            if case .decoded = held { return true }
            return false
        }
    }

    var document: any SourceDocument {
        held.withLock { held in
            switch held {
            case .decoded(let document):
                return document
            case .waiting(let decode):
                let document = decode()
                held = .decoded(document)
                return document
            }
        }
    }
}

/// What a held body restored from a checkpoint became when it no longer decoded (a log
/// damaged after the checkpoint was saved): no view reads it, so the resource shows nothing
/// held, and the reason is logged.
package struct UndecodableDocument: SourceDocument, Equatable {
    package let reason: String
}

/// What is known about fetching one resource.
public struct ResourceStatus: Sendable, Equatable {
    /// The last `fetched` event that decoded (the held body).
    public var lastSuccess: Timestamp?
    /// The seq of the held body's event.
    public var lastSuccessSeq: UInt64?
    /// The last 304 that confirmed the held body.
    public var lastRevalidated: Timestamp?
    /// The last time a view opened within its time to live renewed it (a `renew` intent).
    package var lastRenewed: Timestamp?
    /// The `Age` header of the held body's response, in seconds.
    package var ageSeconds: Int?
    /// Any attempt at all.
    public var lastAttempt: Timestamp?
    /// The seq of the last attempt (0: none yet).
    package var lastAttemptSeq: UInt64 = 0
    /// The held body's `ETag`, sent back as `If-None-Match`.
    public var etag: String?
    /// The held body's `Last-Modified`, sent back as `If-Modified-Since`.
    public var lastModified: String?
    /// The held body's `Cache-Control`, which freshness reads.
    package var cacheControl: String?
    /// The held response's headers freshness is computed from (RFC 9111): `Cache-Control`,
    /// `Age`, `Date`, `Expires`, `Last-Modified`, `ETag`, `Vary`, as recorded; a 304's replace
    /// them by name (§4.3.4), so a revalidation that says `max-age` anew is heeded.
    package var cacheHeaders: [Header] = []
    /// The request lines of the fields the held response's `Vary` names, as the request
    /// that got it (or last revalidated it) sent them: part of the response's identity
    /// (RFC 9111 §4.1). A request whose values differ neither revalidates nor reuses it.
    package var selectingHeaders: [Header] = []
    /// When the last answer was kept for the session only because the upstream said
    /// `no-store` (the log's `not-stored` marker, `NoStore`); nil once a body is recorded.
    package var notStoredAt: Timestamp?
    /// Failed attempts since the last success or 304.
    public var failuresSince = 0
    /// The last failure's message.
    public var lastError: String?
    /// The last failure's class.
    package var lastErrorClass: FailureClass?
    /// Not to be asked again before this: the last failure's `Retry-After` (seconds or an
    /// HTTP date, at most a day after it), read when it was recorded. Nil after a success.
    package var retryAfter: Timestamp?
    /// True when the source said the list ends here (a 404 past the last page, say).
    package var endOfList = false
    /// The held body's `Link: <URL>; rel="next"` (RFC 8288), for paginators that follow it.
    package var linkNext: String?
}

/// Everything the log has established, folded event by event. Views are pure
/// functions of it; it is a pure function of the events up to `seq` and the registry.
///
/// The core's part — held documents, statuses and validators — is the same for every
/// source; each source that keeps more has a slice of its own (`SourceSlice`).
public struct LogState: Sendable, Equatable {
    /// Bump when the core's `apply` changes meaning: checkpoints of another version are
    /// rebuilt. (A slice has a version of its own.)
    package static let reducerVersion = 8

    /// The sources and views this state is folded and read with.
    public let sources: SourceRegistry
    /// The last event folded into this state.
    public internal(set) var seq: UInt64 = 0
    /// The last body of each resource that decoded, by resource.
    public internal(set) var documents: [ResourceKey: HeldDocument] = [:] {
        didSet { documentsToken = ChangeTokens.fresh() }
    }
    /// Fresh whenever `documents` changes (never handed out twice in this process), so two
    /// states with the same token hold the same documents: what is derived from them alone
    /// (a resource's held pages, `HeldPages`) is kept by it. Not part of the value.
    package private(set) var documentsToken = ChangeTokens.fresh()
    /// Written through `setStatus(_:for:)`, which keeps `failingAssets` in step.
    public private(set) var status: [ResourceKey: ResourceStatus] = [:]
    /// The URLs of images whose download is failing now (`failuresSince > 0`): derived
    /// from `status`, so a view can tell at once whether any image fallback applies.
    package private(set) var failingAssets: Set<String> = []
    /// Each source's slice, by source name (only sources that keep one).
    public internal(set) var slices: [String: any SourceSlice] = [:]
    /// Sources defined by manifests (`source.defined` intents), by name: the definition in
    /// force at this point of the log.
    package internal(set) var manifests: [String: DefinedManifest] = [:]
    /// Resources whose body at this point `log compact` dropped (a later body superseded
    /// it), by the seq of that event. Empty at the head of the log; only a state before
    /// the compaction horizon (`--at`) has any, and views that read them say so.
    package internal(set) var compactedBodies: [ResourceKey: UInt64] = [:]
    /// Offline writes (issue 26): mutations waiting, created items' keys, the server's answers.
    package internal(set) var writes = WriteState()
    /// Saved SQL views in force, by name (`SavedViews`; issue 35).
    package internal(set) var savedViews: [String: SavedView] = [:]
    /// Which sources moved since when, for observers; not part of the value (`==` ignores it).
    package internal(set) var changes = ChangeTokens()

    /// The empty state of `sources`: no event folded, each source's initial slice.
    public init(sources: SourceRegistry) {
        self.sources = sources
        for plugin in sources.plugins {
            if let slice = plugin.initialSlice { slices[plugin.source.rawValue] = slice }
        }
    }

    /// The held document of `resource`, if a body of it decoded.
    public func document(_ resource: Resource) -> HeldDocument? { documents[ResourceKey(resource)] }

    /// The plug-in of `source`: a registered one, else the manifest in force.
    public func plugin(_ source: String) -> (any SourcePlugin)? {
        sources.plugin(source) ?? manifests[source].map { ManifestSource($0.manifest) }
    }

    /// Rebuilds a resource from a logged event's source and label (manifest sources included).
    package func resource(source: String, label: String) -> Resource? {
        guard let plugin = plugin(source), let kind = plugin.documentKind(ofPath: label) else { return nil }
        return Resource(source: plugin.source, path: label, document: kind)
    }

    /// Decodes `body` as `resource`'s plug-in (or manifest) says.
    package func decode(_ resource: Resource, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        guard let plugin = plugin(resource.source.rawValue) else {
            throw DecodeError(path: "$", reason: "no registered source named '\(resource.source)'")
        }
        return try plugin.decode(resource.document, body: body)
    }

    /// The slice `source` keeps, as its type; nil when it keeps none of that type.
    public func slice<S: SourceSlice>(_ type: S.Type, of source: Source) -> S? { slices[source.rawValue] as? S }

    mutating func setStatus(_ newStatus: ResourceStatus, for key: ResourceKey) {
        status[key] = newStatus
        guard key.source == Source.assets.rawValue else { return }
        if newStatus.failuresSince > 0 { failingAssets.insert(key.path) } else { failingAssets.remove(key.path) }
    }

    /// Everything but the registry (which says how to fold, not what was folded).
    public static func == (a: LogState, b: LogState) -> Bool {
        a.seq == b.seq && a.documents == b.documents && a.status == b.status && a.failingAssets == b.failingAssets
            && a.slices.count == b.slices.count
            && a.slices.allSatisfy { name, slice in b.slices[name].map { slice.isEqual(to: $0) } ?? false }
            && a.manifests == b.manifests && a.compactedBodies == b.compactedBodies && a.writes == b.writes
            && a.savedViews == b.savedViews
    }
}

/// Stable text for a Double in exports: integral values without a fraction
/// (`37` not `37.0`), others in Swift's shortest round-trip form.
package enum CanonicalNumber {
    package static func text(_ value: Double) -> String {
        if value.isNaN || value.isInfinite { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

extension JSONValue {
    package static func number(_ value: Double) -> JSONValue { .number(CanonicalNumber.text(value)) }
}

/// A source defined by a manifest, and the seq of the `source.defined` intent that did it.
package struct DefinedManifest: Sendable, Equatable {
    /// The manifest as defined.
    package let manifest: RestManifest
    /// The seq of the `source.defined` intent that defined it.
    package let seq: UInt64
}
