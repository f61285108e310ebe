/// JSON member names (and strings) are compared by their UTF-8 bytes, in both JSON readers.
///
/// Swift's `String ==` compares canonical equivalence: "é" written as U+00E9 equals "e"
/// followed by U+0301. To JSON they are two names (RFC 8259 §8.3: names are compared code
/// unit by code unit), and Python's `json`, dlt and the DTO decoder (`JSONCursor`) keep them
/// apart; `JSONValue` merged them into one member, so the two readers of one body disagreed.
extension String {
    /// True when both strings are the same UTF-8 bytes (never canonical equivalence).
    @inline(__always)
    package func hasSameUTF8(as other: String) -> Bool {
        let a = utf8, b = other.utf8
        // O(1) for native strings, and most names differ in length or first bytes.
        guard a.count == b.count else { return false }
        let contiguous = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in x.elementsEqual(y) }
        }
        if let contiguous, let same = contiguous { return same }
        return a.elementsEqual(b)
    }
}

/// A string as a set or dictionary key that is equal and hashed by its UTF-8 bytes, for the
/// large objects whose repeated member names are found by hashing.
struct UTF8Key: Hashable {
    let text: String

    static func == (a: UTF8Key, b: UTF8Key) -> Bool { a.text.hasSameUTF8(as: b.text) }

    func hash(into hasher: inout Hasher) {
        for byte in text.utf8 { hasher.combine(byte) }
    }
}
