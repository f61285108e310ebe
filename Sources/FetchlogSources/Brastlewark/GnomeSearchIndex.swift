import FetchlogCore

/// The index of the folded gnome names, for name search and the filter's `name`: every
/// byte-comparable (ASCII) name laid end to end in one buffer, with
///
/// - per byte value, the rows whose name holds it (a bitmap): a one-byte search is that
///   bitmap, a two-byte one the rows holding both bytes, each checked in the buffer;
/// - per trigram (three bytes), the rows whose name holds it (ascending positions): a
///   longer search intersects its trigrams' lists and checks only those rows.
///
/// Candidates are a superset of the answer (a name containing the text contains each of
/// its bytes and trigrams), and each is checked with a byte comparison — which is
/// `String.contains` on ASCII text without a carriage return (see `FoldedText`). Names
/// that are not byte-comparable are checked with `FoldedText.contains` on every search,
/// as is every name for a text that is not byte-comparable itself: the answer is exactly
/// the row scan's (`GnomeIndexDifferentialTests`).
struct GnomeSearchIndex: Sendable {
    /// The folded names of byte-comparable rows, end to end; `starts[i] ..< starts[i + 1]`
    /// is row i's (empty for rows that are not byte-comparable).
    private let bytes: [UInt8]
    private let starts: [Int32]
    /// Rows whose name is not byte-comparable: checked with `FoldedText.contains`.
    private let otherRows: [Int32]
    private let otherKeys: [FoldedText]
    /// Byte value → rows whose name holds it (nil: no name does).
    private let byteRows: [RowSet?]
    /// Trigram (three bytes packed in a UInt32) → ascending row positions.
    private let postings: [UInt32: [Int32]]
    private let count: Int

    init(_ names: [FoldedText]) {
        count = names.count
        var bytes: [UInt8] = [], starts: [Int32] = [0]
        var otherRows: [Int32] = [], otherKeys: [FoldedText] = []
        var byteRows = [RowSet?](repeating: nil, count: 256)
        var postings: [UInt32: [Int32]] = [:]
        var grams: [UInt32] = []
        bytes.reserveCapacity(names.count * 16)
        starts.reserveCapacity(names.count + 1)
        for (i, key) in names.enumerated() {
            defer { starts.append(Int32(bytes.count)) }
            guard key.bytewise else {
                otherRows.append(Int32(i))
                otherKeys.append(key)
                continue
            }
            var text = key.text
            text.withUTF8 { name in
                bytes.append(contentsOf: name)
                for byte in name {
                    if byteRows[Int(byte)] == nil { byteRows[Int(byte)] = RowSet(count: names.count) }
                    byteRows[Int(byte)]!.insert(i)
                }
                grams.removeAll(keepingCapacity: true)
                if name.count >= 3 {
                    for j in 0 ... name.count - 3 { grams.append(Self.gram(name[j], name[j + 1], name[j + 2])) }
                }
            }
            // Once per row, however often the name repeats a trigram.
            grams.sort()
            var previous: UInt32?
            for gram in grams where gram != previous {
                postings[gram, default: []].append(Int32(i))
                previous = gram
            }
        }
        self.bytes = bytes
        self.starts = starts
        self.otherRows = otherRows
        self.otherKeys = otherKeys
        self.byteRows = byteRows
        self.postings = postings
    }

    static func gram(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt32 { UInt32(a) << 16 | UInt32(b) << 8 | UInt32(c) }

    /// The rows whose folded name contains `key` (non-empty; folded as `GnomeText.key`).
    func matches(_ key: FoldedText, names: [FoldedText]) -> RowSet {
        guard key.bytewise else {
            // A text that is not ASCII may still equal ASCII text as Characters (a Kelvin
            // sign is a K): every name is asked.
            return RowSet(count: count) { names[$0].contains(key) }
        }
        let needle = Array(key.text.utf8)
        var set: RowSet
        if needle.count == 1 {
            set = byteRows[Int(needle[0])] ?? RowSet(count: count)
        } else if needle.count == 2 {
            guard var both = byteRows[Int(needle[0])], let second = byteRows[Int(needle[1])] else { return others(key) }
            both.formIntersection(second)
            set = RowSet(count: count, candidates: both.positions) { holds($0, needle) }
        } else {
            var lists: [[Int32]] = []
            var seen = Set<UInt32>()
            for j in 0 ... needle.count - 3 {
                let gram = Self.gram(needle[j], needle[j + 1], needle[j + 2])
                guard seen.insert(gram).inserted else { continue }
                guard let list = postings[gram] else { return others(key) }
                lists.append(list)
            }
            set = RowSet(count: count, candidates: Self.intersect(lists.sorted { $0.count < $1.count })) { holds($0, needle) }
        }
        set.formUnion(others(key))
        return set
    }

    /// Rows not byte-comparable whose name contains `key`.
    private func others(_ key: FoldedText) -> RowSet {
        var set = RowSet(count: count)
        for (row, name) in zip(otherRows, otherKeys) where name.contains(key) { set.insert(Int(row)) }
        return set
    }

    /// True when row `row`'s name holds `needle` (byte-comparable rows only).
    private func holds(_ row: Int, _ needle: [UInt8]) -> Bool {
        let start = Int(starts[row]), end = Int(starts[row + 1])
        guard end - start >= needle.count else { return false }
        return bytes.withUnsafeBufferPointer { h in
            needle.withUnsafeBufferPointer { n in
                var i = start
                while i <= end - n.count {
                    if h[i] == n[0] {
                        var k = 1
                        while k < n.count, h[i + k] == n[k] { k += 1 }
                        if k == n.count { return true }
                    }
                    i += 1
                }
                return false
            }
        }
    }

    /// The intersection of ascending lists, shortest first.
    private static func intersect(_ lists: [[Int32]]) -> [Int32] {
        var result = lists[0]
        for list in lists.dropFirst() {
            var out: [Int32] = []
            out.reserveCapacity(result.count)
            var i = 0, j = 0
            while i < result.count, j < list.count {
                if result[i] == list[j] {
                    out.append(result[i])
                    i += 1
                    j += 1
                } else if result[i] < list[j] {
                    i += 1
                } else {
                    j += 1
                }
            }
            result = out
            if result.isEmpty { break }
        }
        return result
    }
}
