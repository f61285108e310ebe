import CLMDB

/// A handle to a named (or the unnamed) database inside an environment.
/// Handles stay valid for the environment's lifetime and may cross threads.
public struct Database: Sendable, Hashable {
    /// liblmdb's handle, for a call this binding does not wrap (`mdb_stat`, `mdb_dbi_flags`).
    public let dbi: MDB_dbi
    /// The name it was opened by, for error messages; nil: the environment's unnamed main database.
    public let name: String?
}

/// Flags for ``WriteTransaction/put(_:key:value:flags:)`` and
/// ``WriteTransaction/reserve(_:key:count:flags:fill:)``: liblmdb's `MDB_*` put flags.
public struct PutFlags: OptionSet, Sendable {
    /// The `MDB_*` bits as liblmdb takes them in `mdb_put`.
    public let rawValue: UInt32
    /// Flags from liblmdb's bits, for a flag this type does not name (`MDB_NODUPDATA`).
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The key is larger than every key present: LMDB appends without searching.
    public static let append = PutFlags(rawValue: UInt32(MDB_APPEND))
    /// Fail with MDB_KEYEXIST instead of replacing.
    public static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))
}

/// 8-byte big-endian keys: lexicographic order equals numeric order, so MDB_APPEND works.
public enum SequenceKey {
    /// The key of `value` as a tuple of its 8 bytes, most significant first: a value
    /// that lives on the stack, so a hot loop writes keys without allocating.
    @inline(__always)
    public static func bytes(_ value: UInt64) -> (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) {
        let b = value.bigEndian
        return withUnsafeBytes(of: b) { ($0[0], $0[1], $0[2], $0[3], $0[4], $0[5], $0[6], $0[7]) }
    }

    /// nil when the key is not exactly 8 bytes.
    @inline(__always)
    public static func decode(_ raw: UnsafeRawBufferPointer) -> UInt64? {
        guard raw.count == 8 else { return nil }
        return UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self))
    }

    /// Calls `body` with the 8-byte key of `value`, valid only inside `body`: what
    /// `get`, `put` and a cursor's `setRange` take.
    @inline(__always)
    public static func with<R>(_ value: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var b = value.bigEndian
        return try withUnsafeBytes(of: &b) { try body($0) }
    }
}
