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
final class ItemsSearchIndex: Sendable {
    private let bytes: [UInt8]
    /// Where each item's text starts in `bytes`.
    private let starts: [Int]
    /// Per item: its text holds a non-ASCII byte (an array, not a set: read once per hit).
    private let nonASCII: [Bool]
    private let fields: [String]
    /// How often each byte occurs in `bytes`: a needle is looked for by its rarest byte.
    private let byteCounts: [Int]

    init(_ items: [JSONValue], fields: [String]) {
        self.fields = fields
        var bytes: [UInt8] = [], starts: [Int] = [], nonASCII: [Bool] = []
        bytes.reserveCapacity(items.count * 32)
        starts.reserveCapacity(items.count)
        nonASCII.reserveCapacity(items.count)
        for item in items {
            starts.append(bytes.count)
            let start = bytes.count
            for text in Self.texts(item, fields) {
                bytes.append(contentsOf: text.precomposedStringWithCanonicalMapping.utf8)
                bytes.append(0x01)
            }
            bytes.append(0x00)
            nonASCII.append(bytes[start...].contains(where: { $0 >= 0x80 }))
        }
        var counts = [Int](repeating: 0, count: 256)
        for byte in bytes { counts[Int(byte)] += 1 }
        byteCounts = counts
        self.bytes = bytes
        self.starts = starts
        self.nonASCII = nonASCII
    }

    /// The folded texts of an item's searchable members (every member when `fields` is empty).
    static func texts(_ item: JSONValue, _ fields: [String]) -> [String] {
        guard case .object(let members) = item else { return [] }
        let own = members.flatMap { (fields.isEmpty || fields.contains($0.0)) ? ItemsView.foldedTexts($0.1) : [] }
        // A dotted search field (`author.name`) reaches inside, as `--where` does.
        let nested = fields.filter { $0.contains(".") && item[$0] == nil }.flatMap { ItemsView.foldedTexts(ItemsView.value(of: $0, in: item)) }
        return nested.isEmpty ? own : own + nested
    }

    /// Positions (ascending) of the items whose text holds `needle` (already folded).
    func matching(_ needle: String, in items: [JSONValue]) -> [Int] {
        // Both sides composed (NFC): "e\u{301}" and "é" are one text to String, and so here.
        let pattern = Array(needle.precomposedStringWithCanonicalMapping.utf8)
        // A needle holding a separator byte would match across texts: search them one by one.
        guard !pattern.isEmpty, !pattern.contains(0x00), !pattern.contains(0x01) else {
            return items.indices.filter { Self.texts(items[$0], fields).contains { $0.contains(needle) } }
        }
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
                    if !(verify || nonASCII[low]) || Self.texts(items[low], fields).contains(where: { $0.contains(needle) }) {
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
