import FetchlogLMDB

/// The named databases of a store and the keys of its metadata.
package enum StoreSchema {
    /// Written into `meta` as `format`: how a store recognises itself.
    package static let formatName = "fetchlog"
    /// The store layout version this build writes and reads (not the envelope version).
    /// 2: bodies are stored once, by SHA-256, in `bodies`; a version-1 store is brought to 2
    /// when this build opens it (its records stay as they are, and read as before).
    /// 3: events may say where they were first recorded (an origin, when merged from
    /// another store) and may have had their body compacted away (envelope version 4);
    /// `origins` finds merged events by origin. A version-2 store gains `origins` on open.
    package static let formatVersion = 3

    /// seq (8-byte big-endian) → envelope record.
    package static let eventsName = "events"
    /// UTF-8 keys → UTF-8 values (`format`, `format-version`, `store-id`, `created-at`).
    package static let metaName = "meta"
    /// view name → checkpoint (view state with the seq it covers).
    package static let checkpointsName = "checkpoints"
    /// SHA-256 (32 bytes) → body: each body once, however many events carry it.
    package static let bodiesName = "bodies"
    /// Bodies this size or larger are stored apart, by digest; smaller ones stay in their
    /// record. Small bodies repeat little and cost most to hash and look up per byte: with
    /// every 4 KiB body apart, batched appends ran at 0.24× raw liblmdb instead of 0.92×
    /// (fetchlog-bench), while the bodies worth keeping once — a census, a page of shows —
    /// are hundreds of KiB.
    package static let bodyReferenceThreshold = 16 * 1024
    /// Origin store id (UTF-8), a 0 byte, origin seq (8-byte big-endian) → local seq: each
    /// event merged from another store's log, so merging it again adds nothing.
    package static let originsName = "origins"
    /// A replicated store's own count (8-byte big-endian) → its event's record, origin set:
    /// what it wrote and its stream has not given back yet (made on first use).
    package static let outboxName = "outbox"

    enum Key {
        static let format = StaticKey("format")
        static let formatVersion = StaticKey("format-version")
        static let storeID = StaticKey("store-id")
        static let createdAt = StaticKey("created-at")
        static let createdBy = StaticKey("created-by")
        /// The seq from which every body a view needs is held (`log compact` dropped
        /// superseded bodies before it).
        static let compactionHorizon = StaticKey("compaction-horizon")
    }
}

/// A UTF-8 key usable where LMDB wants raw bytes.
struct StaticKey {
    let text: String
    init(_ text: String) { self.text = text }
}

extension ReadTransaction {
    func get(_ db: Database, key: StaticKey) throws -> UnsafeRawBufferPointer? {
        var text = key.text
        return try text.withUTF8 { try get(db, key: UnsafeRawBufferPointer($0)) }
    }
}

extension WriteTransaction {
    func get(_ db: Database, key: StaticKey) throws -> UnsafeRawBufferPointer? {
        var text = key.text
        return try text.withUTF8 { try get(db, key: UnsafeRawBufferPointer($0)) }
    }
}
