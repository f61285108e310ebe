import CFetchlogSupport
import Foundation

/// SHA-256 of bytes or text, as lowercase hex (view hashes, asset digests).
public enum SHA256 {
    /// Lower-case hex SHA-256 of the bytes.
    public static func hex<Bytes: ContiguousBytes>(_ bytes: Bytes) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { raw in
            digest.withUnsafeMutableBufferPointer { fl_sha256(raw.baseAddress, raw.count, $0.baseAddress) }
        }
        return digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    public static func hex(_ text: String) -> String { hex(Array(text.utf8)) }

    /// The 32-byte digest.
    public static func digest<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { raw in
            digest.withUnsafeMutableBufferPointer { fl_sha256(raw.baseAddress, raw.count, $0.baseAddress) }
        }
        return digest
    }

    /// Lower-case hex of a digest already made.
    public static func hex(digest: [UInt8]) -> String { digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
}
