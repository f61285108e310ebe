import FetchlogCore

/// A trigram index over the folded gnome names: a name search for three or more ASCII
/// bytes intersects the posting lists of its trigrams and checks only those rows instead
/// of every name. Candidates are a superset of the answer (a name containing the text
/// contains each of its trigrams), every candidate is checked with the same `contains` as
/// the scan, and names that are not byte-comparable (non-ASCII) are always candidates, so
/// the answer is exactly the scan's.
///
/// Hair colours and professions need no such index: a census has a handful of distinct
/// values, each with its rows as a bitmap (`GnomeCensusData`).
struct GnomeSearchIndex: Sendable {
    /// Trigram (three bytes packed in a UInt32) → ascending row positions.
    private let postings: [UInt32: [Int32]]
    /// Rows whose name is not byte-comparable: a candidate of every search.
    private let alwaysChecked: [Int32]

    init(_ rows: [GnomeRow]) {
        var postings: [UInt32: [Int32]] = [:]
        var always: [Int32] = []
        var grams: [UInt32] = []
        for (i, row) in rows.enumerated() {
            let key = row.searchKeys[0]
            guard key.bytewise else {
                always.append(Int32(i))
                continue
            }
            grams.removeAll(keepingCapacity: true)
            var text = key.text
            text.withUTF8 { bytes in
                guard bytes.count >= 3 else { return }
                for j in 0 ... bytes.count - 3 { grams.append(Self.gram(bytes[j], bytes[j + 1], bytes[j + 2])) }
            }
            // Once per row, however often the name repeats a trigram.
            grams.sort()
            var previous: UInt32?
            for gram in grams where gram != previous {
                postings[gram, default: []].append(Int32(i))
                previous = gram
            }
        }
        self.postings = postings
        alwaysChecked = always
    }

    static func gram(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt32 { UInt32(a) << 16 | UInt32(b) << 8 | UInt32(c) }

    /// Ascending positions of the rows whose name may contain `key`; nil when the index
    /// cannot narrow it (fewer than three bytes, or not byte-comparable): scan then.
    func candidates(_ key: FoldedText) -> [Int32]? {
        guard key.bytewise else { return nil }
        let bytes = Array(key.text.utf8)
        guard bytes.count >= 3 else { return nil }
        var lists: [[Int32]] = []
        var seen = Set<UInt32>()
        for j in 0 ... bytes.count - 3 {
            let gram = Self.gram(bytes[j], bytes[j + 1], bytes[j + 2])
            guard seen.insert(gram).inserted else { continue }
            guard let list = postings[gram] else { return alwaysChecked }
            lists.append(list)
        }
        let found = Self.intersect(lists.sorted { $0.count < $1.count })
        return alwaysChecked.isEmpty ? found : Self.merge(found, alwaysChecked)
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

    /// Two ascending lists as one, without repeats.
    private static func merge(_ a: [Int32], _ b: [Int32]) -> [Int32] {
        var out: [Int32] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i] < b[j]) {
                out.append(a[i])
                i += 1
            } else if i == a.count || b[j] < a[i] {
                out.append(b[j])
                j += 1
            } else {
                out.append(a[i])
                i += 1
                j += 1
            }
        }
        return out
    }
}
