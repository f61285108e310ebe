@testable import FetchlogCore
import Foundation
import Testing

/// The one-pass text search of a manifest resource (`ItemsSearchIndex`) answers exactly as
/// searching each item's texts one by one — ASCII, accents, combining marks, separators.
@Suite struct ItemsSearchIndexTests {
    static let names = ["Tobus Quickwhistle", "Émile Zola", "e\u{301}clair", "Straße", "ÇA VA", "ünïcödé", "plain", "A\u{1}B", "", "x"]

    static func items(_ count: Int) -> [JSONValue] {
        (0 ..< count).map { i in
            .object([("id", .number(i)), ("name", .string(names[i % names.count] + " \(i % 7)")),
                     ("tags", .array([.string(i % 2 == 0 ? " Tinker" : "Brewer"), .string("t\(i % 5)")])), ("size", .number(i * 3))])
        }
    }

    @Test func theIndexAnswersAsAScanDoes() {
        let items = Self.items(500)
        for fields in [[], ["name"], ["tags", "size"]] {
            let index = ItemsSearchIndex(items, fields: fields)
            for needle in ["e", "é", "e\u{301}", "tinker", "ß", "ss", "ça", "1", "12", "a\u{1}b", " 3", "zzz", "ol", "ï", "t4"] {
                let folded = needle.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
                let scanned = items.indices.filter { ItemsSearchIndex.texts(items[$0], fields).contains { $0.contains(folded) } }
                #expect(index.matching(folded, in: items) == scanned, "\(fields) '\(needle)'")
            }
        }
        // A combining accent is part of its letter: "e" alone does not match "e\u{301}".
        let accent = ItemsSearchIndex([.object([("name", .string("e\u{301}"))])], fields: [])
        #expect(accent.matching("e", in: [.object([("name", .string("e\u{301}"))])]) == [])
    }
}
