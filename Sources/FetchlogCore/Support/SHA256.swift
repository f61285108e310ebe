import CFetchlogSupport
import Foundation

/// SHA-256 of bytes or text, as lowercase hex (view hashes, asset digests).
package enum SHA256 {
    /// Lower-case hex SHA-256 of the bytes.
    package static func hex<Bytes: ContiguousBytes>(_ bytes: Bytes) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { raw in
            digest.withUnsafeMutableBufferPointer { fl_sha256(raw.baseAddress, raw.count, $0.baseAddress) }
        }
        return digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    package static func hex(_ text: String) -> String { hex(Array(text.utf8)) }

    /// The 32-byte digest.
    package static func digest<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { raw in
            digest.withUnsafeMutableBufferPointer { fl_sha256(raw.baseAddress, raw.count, $0.baseAddress) }
        }
        return digest
    }

    /// Lower-case hex of a digest already made.
    package static func hex(digest: [UInt8]) -> String { digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

    /// The bytes of lower-case or upper-case hex; nil when it is not hex of whole bytes.
    package static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30 ... 0x39: c - 0x30
            case 0x61 ... 0x66: c - 0x61 + 10
            case 0x41 ... 0x46: c - 0x41 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let high = value(digits[i]), let low = value(digits[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }
}
