import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// The census indexes (name trigrams, facet bitmaps, sorted numeric columns) answer exactly
/// as testing every row does: 20,000 generated queries — searches and filters, on the
/// recorded census, on its first 400 gnomes and on one twice its size with accented names
/// mixed in — each compared with the row-by-row answer (`GnomeCensus.search`,
/// `GnomeFilter.matches`). The row scan is the cost (about 2 µs a row in a debug build), so
/// most queries go to the small census: the indexes' logic is the same at any size.
@Suite struct GnomeIndexDifferentialTests {
    /// A deterministic generator (SplitMix64), so a failure names a reproducible query.
    typealias Seeded = TestPattern.Generator

    static func census(_ body: [UInt8]) throws -> GnomeCensusData {
        guard case .brastlewarkCensus(let census)? = try SeedSources.decode(.brastlewarkCensus, body: body) as? BrastlewarkDocument else {
            throw CocoaError(.coderReadCorrupt)
        }
        return census
    }

    /// The recorded census cut to its first `prefix` gnomes or repeated `rounds` times (ids
    /// unique, every seventh name then with an accent — é is not byte-comparable, so those
    /// rows take the checked path).
    static func census(prefix: Int = .max, rounds: Int = 1) throws -> [UInt8] {
        let census = try JSONSerialization.jsonObject(with: Data(Fixture.bytes("brastlewark/census.json"))) as! [String: [[String: Any]]]
        let gnomes = Array(census["Brastlewark"]!.prefix(prefix))
        if rounds == 1 { return [UInt8](try JSONSerialization.data(withJSONObject: ["Brastlewark": gnomes], options: [.sortedKeys])) }
        var all: [[String: Any]] = []
        for round in 0 ..< rounds {
            for var gnome in gnomes {
                let id = (gnome["id"] as! Int) + round * gnomes.count
                gnome["id"] = id
                if id % 7 == 0 { gnome["name"] = (gnome["name"] as! String).replacingOccurrences(of: "e", with: "é") }
                all.append(gnome)
            }
        }
        return [UInt8](try JSONSerialization.data(withJSONObject: ["Brastlewark": all], options: [.sortedKeys]))
    }

    /// A search text: a piece of a real key (random case, sometimes padded), random letters,
    /// or two name pieces joined (mostly no match).
    static func text(_ rows: [GnomeRow], _ n: Int, _ random: inout Seeded) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz éTK")
        switch n % 4 {
        case 0, 1:
            let row = rows[Int.random(in: 0 ..< rows.count, using: &random)]
            let keys = [row.name, row.hairColor] + row.professions
            let key = Array(keys[Int.random(in: 0 ..< keys.count, using: &random)])
            guard !key.isEmpty else { return "" }
            let start = Int.random(in: 0 ..< key.count, using: &random)
            let end = Int.random(in: start ... min(key.count, start + 8), using: &random)
            var piece = String(key[start ..< end])
            if Bool.random(using: &random) { piece = piece.uppercased() }
            return n % 16 == 0 ? "  " + piece + " " : piece
        case 2:
            let length = Int.random(in: 0 ... 6, using: &random)
            return String((0 ..< length).map { _ in alphabet[Int.random(in: 0 ..< alphabet.count, using: &random)] })
        default:
            let a = rows[Int.random(in: 0 ..< rows.count, using: &random)].name
            let b = rows[Int.random(in: 0 ..< rows.count, using: &random)].name
            return String(a.suffix(3)) + String(b.prefix(2))
        }
    }

    /// A filter of one to four members: text pieces, and ranges whose bounds are values
    /// of real rows (so the inclusive edges are hit), sometimes open on one side.
    static func filter(_ rows: [GnomeRow], _ n: Int, _ random: inout Seeded) -> GnomeFilter {
        var f = GnomeFilter()
        func any() -> GnomeRow { rows[Int.random(in: 0 ..< rows.count, using: &random)] }
        func bounds<T: Comparable>(_ value: (GnomeRow) -> T) -> (T?, T?) {
            let a = value(any()), b = value(any())
            switch Int.random(in: 0 ..< 4, using: &random) {
            case 0: return (min(a, b), nil)
            case 1: return (nil, max(a, b))
            default: return (min(a, b), max(a, b))
            }
        }
        for _ in 0 ... Int.random(in: 0 ..< 4, using: &random) {
            switch Int.random(in: 0 ..< 7, using: &random) {
            case 0: f.name = text(rows, n, &random)
            case 1: f.hairColor = String(any().hairColor.prefix(Int.random(in: 1 ... 5, using: &random))).lowercased()
            case 2: f.profession = any().professions.first.map { String($0.dropFirst(Int.random(in: 0 ... 2, using: &random)).prefix(4)) }
            case 3: (f.ageMin, f.ageMax) = bounds(\.age)
            case 4: (f.weightMin, f.weightMax) = bounds(\.weight)
            case 5: (f.heightMin, f.heightMax) = bounds(\.height)
            default: (f.friendsMin, f.friendsMax) = bounds(\.friendCount)
            }
        }
        return f
    }

    /// On a thread of its own at the lowest CPU priority (`offPool`): half a minute of
    /// synchronous work on a cooperative thread, or at equal priority on one of two cores,
    /// would stall the suite's network tests into their time bounds.
    @Test func theIndexesAnswerAsTheRowScanOn20000Queries() async throws {
        try await offPool(lowestPriority: true) { try Self.compareOn20000Queries() }
    }

    static func compareOn20000Queries() throws {
        let plans: [(body: [UInt8], gnomes: Int, searches: Int, filters: Int, seed: UInt64)] = [
            (try census(prefix: 400), 400, 8_000, 6_000, 1),
            (try Fixture.bytes("brastlewark/census.json"), 1337, 1_500, 1_500, 2),
            (try census(rounds: 2), 2674, 1_500, 1_500, 3),
        ]
        var total = 0
        for plan in plans {
            let census = try census(plan.body)
            let rows = census.rows
            #expect(rows.count == plan.gnomes)
            var random = Seeded(seed: plan.seed)
            var matched = 0, empty = 0
            func tally(_ ids: [Int]) { if ids.isEmpty { empty += 1 } else { matched += 1 } }
            for n in 0 ..< plan.searches {
                let text = text(rows, n, &random)
                let key = FoldedText(GnomeText.key(text))
                let indexed = key.isEmpty ? rows.map(\.id) : census.searchMatches(key).positions.map { rows[Int($0)].id }
                let scanned = GnomeCensus.search(rows, text).map(\.id)
                if indexed != scanned { Issue.record("search \"\(text)\": index \(indexed.count) rows, scan \(scanned.count)") }
                tally(scanned)
            }
            for n in 0 ..< plan.filters {
                let filter = filter(rows, n, &random)
                let matcher = GnomeFilter.Matcher(filter)
                let indexed = census.filterMatches(matcher).positions.map { rows[Int($0)].id }
                let scanned = rows.filter(matcher.matches).map(\.id)
                if indexed != scanned { Issue.record("filter \(filter.json.canonicalText()): index \(indexed.count) rows, scan \(scanned.count)") }
                tally(scanned)
            }
            total += plan.searches + plan.filters
            // Both kinds of answer were exercised in quantity.
            let queries = plan.searches + plan.filters
            #expect(matched > queries * 2 / 5, "\(matched) of \(queries) queries matched")
            #expect(empty > queries / 20, "\(empty) of \(queries) queries matched nothing")
        }
        #expect(total == 20_000)
    }
}
