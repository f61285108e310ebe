@testable import FetchlogCore
import Testing

/// The optimistic view reaches items by key through an index instead of scanning the list
/// for every mutation (`WriteOverlay.Folding`). It must find what the scan found — the first
/// item left with that key — through duplicates, items whose key a change replaced, removals
/// and items added at the end: checked here against the plain list, step by step.
@Suite struct WriteOverlayFoldingTests {
    /// A fixed pseudo-random sequence (the steps are the same on every run).
    struct Steps {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test(arguments: [["id"], ["shelf", "slot"]])
    func foldingFindsWhatScanningTheListFinds(key: [String]) {
        // Keys from a small set, so that some repeat, some are missing, some come back.
        func item(_ keyNumber: Int, _ value: Int) -> JSONValue {
            let members: [(String, JSONValue)] = key.count == 1
                ? [("id", .string("k\(keyNumber)"))]
                : [("shelf", .number(String(keyNumber % 3))), ("slot", .string("s\(keyNumber / 3)"))]
            return .object(members + [("value", .number(String(value)))])
        }
        func text(_ keyNumber: Int) -> String { key.count == 1 ? "k\(keyNumber)" : "\(keyNumber % 3)/s\(keyNumber / 3)" }
        var steps = Steps(state: 26)
        let base = (0 ..< 40).map { item(steps.next(30), $0) }
        var list = base
        var folding = WriteOverlay.Folding(base: base, key: key, positions: ItemsView.keyPositions(base, key: key))
        func scan(_ text: String) -> Int? {
            let wanted = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            return list.firstIndex { item in key.map { ItemsView.text(item[$0]) } == wanted }
        }
        for step in 0 ..< 600 {
            let wanted = text(steps.next(36))
            let scanned = scan(wanted), indexed = folding.index(of: wanted)
            #expect((scanned == nil) == (indexed == nil), "step \(step): \(wanted)")
            guard let scanned, let indexed else {
                let added = item(steps.next(36), 1000 + step)
                list.append(added)
                folding.append(added)
                continue
            }
            #expect(list[scanned] == folding[indexed], "step \(step): \(wanted)")
            switch steps.next(4) {
            case 0:
                list.remove(at: scanned)
                folding.remove(at: indexed)
            case 1:
                // A change that gives the item another key.
                let changed = item(steps.next(36), 2000 + step)
                list[scanned] = changed
                folding[indexed] = changed
            case 2:
                let changed = ItemsView.adding([("value", .number(String(3000 + step)))], to: list[scanned])
                list[scanned] = changed
                folding[indexed] = ItemsView.adding([("value", .number(String(3000 + step)))], to: folding[indexed])
            default:
                #expect(list.first == folding.first, "step \(step)")
            }
        }
        #expect(folding.items == list)
    }
}
