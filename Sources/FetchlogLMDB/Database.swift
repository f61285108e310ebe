import CLMDB

/// A handle to a named (or the unnamed) database inside an environment.
/// Handles stay valid for the environment's lifetime and may cross threads.
public struct Database: Sendable, Hashable {
    public let dbi: MDB_dbi
    public let name: String?
}

/// Flags for `put`.
public struct PutFlags: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The key is larger than every key present: LMDB appends without searching.
    public static let append = PutFlags(rawValue: UInt32(MDB_APPEND))
    /// Fail with MDB_KEYEXIST instead of replacing.
    public static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))
}

/// 8-byte big-endian keys: lexicographic order equals numeric order, so MDB_APPEND works.
public enum SequenceKey {
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

    @inline(__always)
    public static func with<R>(_ value: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var b = value.bigEndian
        return try withUnsafeBytes(of: &b) { try body($0) }
    }
}
