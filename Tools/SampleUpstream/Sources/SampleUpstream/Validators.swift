import Foundation
import Synchronization

/// HTTP validators: ETag and Last-Modified, and the conditional-request rules of RFC 9110 §13.
enum Validators {
    /// A strong ETag from FNV-1a 64 over the body, as 16 hex digits in quotes.
    /// FNV-1a is not cryptographic, but it is deterministic and byte-sensitive, which is all an
    /// entity tag needs here, and it keeps the library free of a crypto dependency.
    static func etag(for body: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// Weak comparison (RFC 9110 §8.8.3.2), which is what If-None-Match uses: `W/` is ignored.
    static func ifNoneMatch(_ header: String, matches etag: String) -> Bool {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" { return true }
        let target = opaque(etag)
        return splitTags(trimmed).contains { opaque($0) == target }
    }

    /// Entity tags may contain commas inside quotes, so split on commas outside quotes only.
    private static func splitTags(_ header: String) -> [String] {
        var tags: [String] = []
        var current = ""
        var inQuotes = false
        for ch in header {
            if ch == "\"" { inQuotes.toggle() }
            if ch == "," && !inQuotes {
                tags.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(ch)
            }
        }
        tags.append(current.trimmingCharacters(in: .whitespaces))
        return tags.filter { !$0.isEmpty }
    }

    private static func opaque(_ tag: String) -> String {
        var t = tag.trimmingCharacters(in: .whitespaces)
        if t.hasPrefix("W/") { t.removeFirst(2) }
        return t
    }

    /// One formatter, used by one request at a time (a `DateFormatter` is not `Sendable`).
    private static let formatter = Mutex({
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f
    }())

    /// RFC 1123 (IMF-fixdate) as HTTP requires.
    static func httpDate(_ date: Date) -> String {
        formatter.withLock { $0.string(from: date) }
    }

    static func parseHTTPDate(_ text: String) -> Date? {
        formatter.withLock { $0.date(from: text.trimmingCharacters(in: .whitespaces)) }
    }

    /// True when the client's copy is current. If-None-Match takes precedence: when present,
    /// If-Modified-Since is ignored (RFC 9110 §13.1.3), so a changed body is never hidden by a date.
    static func isNotModified(ifNoneMatch: String?, ifModifiedSince: String?, etag: String, lastModified: Date) -> Bool {
        if let inm = ifNoneMatch {
            return Validators.ifNoneMatch(inm, matches: etag)
        }
        if let ims = ifModifiedSince, let since = parseHTTPDate(ims) {
            // HTTP dates have one-second resolution.
            return lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }
}
