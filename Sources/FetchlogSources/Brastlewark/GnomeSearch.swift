import FetchlogCore
import Foundation

/// One gnome as the views show it. The census is inconsistent in its strings (202
/// gnomes list " Tinker" with a leading space), so name, hair colour and professions
/// are trimmed here once; friends stay exactly as listed (FriendsView resolves them).
public struct GnomeRow: Sendable, Equatable, Identifiable {
    public let id: Int
    public let name: String
    public let thumbnail: String
    public let age: Int
    public let weight: Double
    public let height: Double
    public let hairColor: String
    /// Trimmed, in listed order, without repeats (" Tinker" and "Tinker" are one).
    public let professions: [String]
    /// Friend names as listed.
    public let friends: [String]
    /// Name, hair colour and professions folded for matching, computed once.
    let searchKeys: [FoldedText]

    public init(_ gnome: Gnome) {
        id = gnome.id
        name = GnomeText.trimmed(gnome.name)
        thumbnail = gnome.thumbnail
        age = gnome.age
        weight = gnome.weight
        height = gnome.height
        hairColor = GnomeText.trimmed(gnome.hairColor)
        var seen = Set<String>()
        let trimmedProfessions = gnome.professions.map(GnomeText.trimmed).filter { seen.insert($0).inserted }
        // The census's own array when trimming and merging changed nothing (shared storage).
        professions = trimmedProfessions == gnome.professions ? gnome.professions : trimmedProfessions
        friends = gnome.friends
        searchKeys = ([name, hairColor] + professions).map { FoldedText(GnomeText.folded($0)) }
    }

    public var friendCount: Int { friends.count }

    /// True when `key` (already `GnomeText.key`-folded, non-empty) is part of the
    /// name, the hair colour or a profession.
    func matchesSearch(key: FoldedText) -> Bool {
        searchKeys.contains { $0.contains(key) }
    }

    var json: JSONValue {
        .object([
            ("id", .number(id)), ("name", .string(name)), ("thumbnail", .string(thumbnail)),
            ("age", .number(age)), ("weight", .number(weight)), ("height", .number(height)),
            ("hairColor", .string(hairColor)),
            ("professions", .array(professions.map(JSONValue.string))),
            ("friends", .array(friends.map(JSONValue.string))),
        ])
    }
}

/// How gnome strings are compared: trimmed, then case-folded without a locale, so
/// matching is the same on every machine.
package enum GnomeText {
    /// `s` without leading and trailing whitespace and newlines. When `s` starts and ends
    /// with a printable ASCII byte other than a space (nearly every census string) it is
    /// returned itself — no copy, its storage shared — and Foundation is not asked.
    package static func trimmed(_ s: String) -> String {
        guard let first = s.utf8.first, let last = s.utf8.last, (0x21 ... 0x7E).contains(first), (0x21 ... 0x7E).contains(last) else {
            return s.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return s
    }

    /// `s` lowercased (already trimmed); itself, shared, when it has no upper-case ASCII
    /// letter and is all ASCII.
    package static func folded(_ s: String) -> String {
        s.utf8.allSatisfy { $0 < 0x80 && !(0x41 ... 0x5A).contains($0) } ? s : s.lowercased()
    }

    package static func key(_ s: String) -> String { folded(trimmed(s)) }
}

/// Folded text for substring matching, with the answer to "may this be matched byte by
/// byte?" worked out once. `String.contains` compares by Character (grapheme clusters),
/// which is right but costs about half a microsecond a call; a query over ten censuses
/// makes tens of thousands of calls. When both sides are ASCII without a carriage return
/// (the only ASCII pair, "\r\n", that forms one Character), every byte is a whole
/// Character, so comparing bytes gives exactly the same answer.
struct FoldedText: Sendable, Equatable {
    let text: String
    let bytewise: Bool

    init(_ folded: String) {
        text = folded
        bytewise = folded.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D }
    }

    var isEmpty: Bool { text.isEmpty }

    func contains(_ needle: FoldedText) -> Bool {
        guard bytewise, needle.bytewise else { return text.contains(needle.text) }
        var haystack = text, needle = needle.text
        return haystack.withUTF8 { h in
            needle.withUTF8 { n in
                guard n.count <= h.count else { return false }
                guard let first = n.first else { return true }
                var i = 0
                let last = h.count - n.count
                while i <= last {
                    if h[i] == first {
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
}

/// The census held in the state.
public enum GnomeCensus {
    /// The held census with its rows and indexes; an empty one when none is held.
    public static func data(in state: LogState) -> GnomeCensusData {
        guard case .brastlewarkCensus(let census)? = state.document(.brastlewarkCensus)?.brastlewark else { return .empty }
        return census
    }

    public static func rows(in state: LogState) -> [GnomeRow] { data(in: state).rows }

    /// Rows whose name, hair colour or a profession contains `text` (trimmed,
    /// case-insensitive), by testing every row: the reference the indexed answers
    /// (`GnomesView.search`, `FiltersView.filtered`) are held to. Blank text matches every row.
    public static func search(_ rows: [GnomeRow], _ text: String) -> [GnomeRow] {
        let key = FoldedText(GnomeText.key(text))
        if key.isEmpty { return rows }
        return rows.filter { $0.matchesSearch(key: key) }
    }
}

extension GnomeFilter {
    /// True when `row` satisfies every set member: ranges are inclusive, `name` is a
    /// partial match, `hairColor` and `profession` whole matches, all trimmed and
    /// case-insensitive. A blank string member constrains nothing (it names nothing).
    public func matches(_ row: GnomeRow) -> Bool { Matcher(self).matches(row) }

    /// The filter with its text members folded once, for testing many rows.
    struct Matcher {
        let filter: GnomeFilter
        let name: FoldedText?
        let hairColor: FoldedText?
        let profession: FoldedText?

        init(_ filter: GnomeFilter) {
            func folded(_ s: String?) -> FoldedText? {
                guard let key = s.map(GnomeText.key), !key.isEmpty else { return nil }
                return FoldedText(key)
            }
            self.filter = filter
            name = folded(filter.name)
            hairColor = folded(filter.hairColor)
            profession = folded(filter.profession)
        }

        func matches(_ row: GnomeRow) -> Bool {
            if let name, !row.searchKeys[0].contains(name) { return false }
            // Like search: case-insensitive, partial, trimmed ("tink" finds " Tinker").
            if let hairColor, !row.searchKeys[1].contains(hairColor) { return false }
            if let profession, !row.searchKeys.dropFirst(2).contains(where: { $0.contains(profession) }) { return false }
            func within<T: Comparable>(_ value: T, _ low: T?, _ high: T?) -> Bool {
                (low.map { value >= $0 } ?? true) && (high.map { value <= $0 } ?? true)
            }
            return within(row.age, filter.ageMin, filter.ageMax) && within(row.weight, filter.weightMin, filter.weightMax)
                && within(row.height, filter.heightMin, filter.heightMax)
                && within(row.friendCount, filter.friendsMin, filter.friendsMax)
        }
    }
}
