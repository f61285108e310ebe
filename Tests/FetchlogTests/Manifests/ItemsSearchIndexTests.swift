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
                // A needle holding a separator byte is the caller's to scan (nil).
                let found = index.matching(folded) { ItemsSearchIndex.texts(items[$0], fields) }
                #expect(found == (folded.utf8.contains { $0 <= 1 } ? nil : scanned), "\(fields) '\(needle)'")
            }
        }
        // A combining accent is part of its letter: "e" alone does not match "e\u{301}".
        let accent = ItemsSearchIndex([.object([("name", .string("e\u{301}"))])], fields: [])
        #expect(accent.matching("e") == [])
        #expect(accent.matching("e\u{301}") == [0])
    }

    /// ASCII text is folded byte by byte, as Foundation's trimming and String's lowercasing
    /// fold it; other text goes through them.
    @Test func foldingASCIIByBytesEqualsFoundations() {
        for text in ["", "   ", "ABC xyz", "\u{0B} Ab\tC \u{0C}", "@[`{AZaz", "\r\nTinker\n", "\u{1F}x\u{7F}", "MiXeD CaSe 42", " Émile ", "\u{A0}Zola\u{2003}"] {
            #expect(ItemsView.fold(text) == text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased(), "\(text.debugDescription)")
        }
    }

    /// The read model keeps an index's bytes alone (`ItemsReadModel`): rebuilt from them it
    /// answers as the index it was taken from, and one whose texts hold a separator byte is
    /// not separable (not kept).
    @Test func anIndexRebuiltFromItsBytesAnswersAsTheOriginal() {
        let items = Self.items(500)
        #expect(ItemsSearchIndex(items, fields: ["name"]).separable == false) // "A\u{1}B"
        let separable = items.filter { $0["name"]?.stringValue?.contains("\u{1}") == false }
        #expect(separable.count == 450)
        for fields in [[], ["name"], ["tags", "size"]] {
            let original = ItemsSearchIndex(separable, fields: fields)
            #expect(original.separable)
            let rebuilt = ItemsSearchIndex(bytes: original.bytes)
            #expect(rebuilt.count == 450)
            for needle in ["e", "é", "e\u{301}", "tinker", "ß", "ss", "ça", "1", "12", " 3", "zzz", "ol", "ï", "t4", "straße 5"] {
                let folded = needle.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
                let scanned = separable.indices.filter { ItemsSearchIndex.texts(separable[$0], fields).contains { $0.contains(folded) } }
                #expect(rebuilt.matching(folded) == scanned, "\(fields) '\(needle)'")
            }
        }
    }
}
