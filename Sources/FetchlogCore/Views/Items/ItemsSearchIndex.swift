import CFetchlogSupport
import Foundation
import Synchronization

/// Text search over a resource's items in one pass: every item's searchable texts,
/// trimmed and lowercased, laid end to end in one buffer (an item's texts joined by 0x01,
/// items by 0x00), so finding a needle in 100,000 items is one sweep over a few megabytes
/// instead of 100,000 string searches — `memchr` (vectorised) on the needle's rarest byte,
/// `memcmp` at each candidate.
///
/// Byte matching equals `String.contains` on ASCII text; where an item or the needle is
/// not ASCII, both are composed (NFC) and each candidate is confirmed by `String.contains`
/// (a byte match inside a grapheme cluster is no match). The differential test holds the
/// index to a plain scan.
package final class ItemsSearchIndex: Sendable {
    /// The texts laid end to end, as built: what the SQL read model keeps of a resource's
    /// search (`bytes` alone rebuild the index).
    package let bytes: [UInt8]
    /// Where each item's text starts in `bytes`.
    private let starts: [Int]
    /// Per item: its text holds a non-ASCII byte (an array, not a set: read once per hit).
    private let nonASCII: [Bool]
    /// How often each byte occurs in `bytes`: a needle is looked for by its rarest byte.
    private let byteCounts: [Int]

    /// False when some text holds a separator byte (0x00 or 0x01): `bytes` alone then do
    /// not say where items start, so the read model keeps no copy of this index.
    package let separable: Bool

    convenience init(_ items: [JSONValue], fields: [String]) {
        self.init(count: items.count) { Self.texts(items[$0], fields) }
    }

    /// The index of `count` entries whose searchable texts (already folded: trimmed and
    /// lowercased, as `ItemsView.fold` does) `texts` gives by position: a plug-in view's own
    /// search kept in the read model (`ViewCopy`).
    package convenience init(count: Int, texts: (Int) -> [String]) {
        var bytes: [UInt8] = [], starts: [Int] = [], nonASCII: [Bool] = []
        var separable = true
        bytes.reserveCapacity(count * 32)
        starts.reserveCapacity(count)
        nonASCII.reserveCapacity(count)
        for position in 0 ..< count {
            starts.append(bytes.count)
            let start = bytes.count
            for text in texts(position) {
                // ASCII is its own composition: only other text is composed (NFC).
                let utf8 = text.utf8.contains(where: { $0 >= 0x80 }) ? Array(text.precomposedStringWithCanonicalMapping.utf8) : Array(text.utf8)
                if separable, utf8.contains(where: { $0 <= 0x01 }) { separable = false }
                bytes.append(contentsOf: utf8)
                bytes.append(0x01)
            }
            bytes.append(0x00)
            nonASCII.append(bytes[start...].contains(where: { $0 >= 0x80 }))
        }
        self.init(bytes: bytes, starts: starts, nonASCII: nonASCII, separable: separable)
    }

    /// The index whose texts are `bytes`, as a separable index's `bytes` (the read model's copy).
    package convenience init(bytes: [UInt8]) {
        var starts: [Int] = [], nonASCII: [Bool] = []
        var start = 0, wide = false
        for (offset, byte) in bytes.enumerated() {
            if byte >= 0x80 { wide = true }
            if byte == 0x00 {
                starts.append(start)
                nonASCII.append(wide)
                start = offset + 1
                wide = false
            }
        }
        self.init(bytes: bytes, starts: starts, nonASCII: nonASCII, separable: true)
    }

    private init(bytes: [UInt8], starts: [Int], nonASCII: [Bool], separable: Bool) {
        var counts = [Int](repeating: 0, count: 256)
        for byte in bytes { counts[Int(byte)] += 1 }
        byteCounts = counts
        self.bytes = bytes
        self.starts = starts
        self.nonASCII = nonASCII
        self.separable = separable
    }

    /// How many items the index holds.
    package var count: Int { starts.count }

    /// The folded texts of an item's searchable members (every member when `fields` is empty).
    static func texts(_ item: JSONValue, _ fields: [String]) -> [String] {
        guard case .object(let members) = item else { return [] }
        let own = members.flatMap { (fields.isEmpty || fields.contains($0.0)) ? ItemsView.foldedTexts($0.1) : [] }
        // A dotted search field (`author.name`) reaches inside, as `--where` does.
        let nested = fields.filter { $0.contains(".") && item[$0] == nil }.flatMap { ItemsView.foldedTexts(ItemsView.value(of: $0, in: item)) }
        return nested.isEmpty ? own : own + nested
    }

    /// Item `position`'s texts as the index holds them (composed; a separable index's).
    private func heldTexts(_ position: Int) -> [String] {
        let end = position + 1 < starts.count ? starts[position + 1] - 1 : bytes.count - 1
        guard starts[position] < end else { return [] }
        return bytes[starts[position] ..< end].split(separator: 0x01, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    }

    /// Positions (ascending) of the items whose text holds `needle` (already folded); nil
    /// when the needle holds a separator byte (0x00 or 0x01), which would match across
    /// texts: the caller then searches the texts one by one. `texts` gives an item's texts
    /// where a match is confirmed (non-ASCII); without it, the index's own (separable).
    package func matching(_ needle: String, texts: ((Int) -> [String])? = nil) -> [Int]? {
        let texts = texts ?? heldTexts
        // Both sides composed (NFC): "e\u{301}" and "é" are one text to String, and so here.
        let pattern = Array(needle.precomposedStringWithCanonicalMapping.utf8)
        guard !pattern.isEmpty, !pattern.contains(0x00), !pattern.contains(0x01) else { return nil }
        let verify = pattern.contains { $0 >= 0x80 }
        let rare = pattern.indices.min { byteCounts[Int(pattern[$0])] < byteCounts[Int(pattern[$1])] } ?? 0
        var found: [Int] = []
        bytes.withUnsafeBufferPointer { haystack in
            pattern.withUnsafeBufferPointer { pattern in
                guard let base = haystack.baseAddress, let needleBase = pattern.baseAddress else { return }
                var offset = 0, item = 0
                while offset < haystack.count,
                      let hit = fl_find_rare(base + offset, haystack.count - offset, needleBase, pattern.count, rare) {
                    let at = UnsafeRawPointer(base).distance(to: hit)
                    // The item holding the hit: hits come in order, so walk on from the last.
                    while item + 1 < starts.count, starts[item + 1] <= at { item += 1 }
                    let low = item
                    // A byte match inside a grapheme cluster is no match: confirmed by
                    // String (canonical equivalence) on the item's own texts.
                    if !(verify || nonASCII[low]) || texts(low).contains(where: { $0.contains(needle) }) {
                        found.append(low)
                    }
                    // On to the next item: one match is enough for this one.
                    offset = low + 1 < starts.count ? starts[low + 1] : haystack.count
                }
            }
        }
        return found
    }
}

/// A once-built value shared by every copy of a view (views are values; their index is not
/// worth building twice).
final class SearchBox: Sendable {
    private let built = Mutex<ItemsSearchIndex?>(nil)

    func index(_ build: () -> ItemsSearchIndex) -> ItemsSearchIndex {
        built.withLock { built in
            if let built { return built }
            let index = build()
            built = index
            return index
        }
    }
}
