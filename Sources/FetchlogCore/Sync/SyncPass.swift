import Foundation

/// What became of one resource in a pass.
package enum SyncOutcome: Sendable, Equatable {
    /// Not due: nothing asked.
    case fresh
    /// Asked, and a new body came back.
    case refreshed
    /// Asked with its validators, and every page answered 304 (or the list's known end).
    case notModified
    /// Asked, and a request failed (its message), or its writes could not be sent.
    case failed(String)
    /// Its pending writes were sent first; this many confirmed.
    case pushed(Int)
    /// Not asked: it failed before, and waits out its backoff.
    case backingOff
    /// Due, but nothing could be asked (a child whose parents hold no item).
    case missing

    /// `fresh`, `refreshed`, `not-modified`, `failed`, `pushed`, `backing-off`, `missing`.
    package var name: String {
        switch self {
        case .fresh: "fresh"
        case .refreshed: "refreshed"
        case .notModified: "not-modified"
        case .failed: "failed"
        case .pushed: "pushed"
        case .backingOff: "backing-off"
        case .missing: "missing"
        }
    }

    /// True for the row of a push (its resource's own row follows it).
    package var isPush: Bool {
        if case .pushed = self { return true }
        return false
    }

    /// True when the resource is not current after the pass (what `sync --once` exits 1 for).
    package var isFailure: Bool {
        switch self {
        case .failed, .backingOff: true
        default: false
        }
    }
}

/// One line of a pass's report.
package struct SyncRow: Sendable, Equatable {
    package let target: SyncTarget
    package var outcome: SyncOutcome
    /// When it falls due next (nil: never by age).
    package var nextDue: Timestamp?
    /// Requests sent for it in the pass (attempts, writes).
    package var requests: Int

    package var detail: String {
        switch outcome {
        case .failed(let message): message
        case .pushed(let count): "\(count) write\(count == 1 ? "" : "s") confirmed"
        default: ""
        }
    }

    package var json: JSONValue {
        .object([("resource", .string(target.description)), ("outcome", .string(outcome.name)),
                 ("detail", detail.isEmpty ? .null : .string(detail)),
                 ("nextDue", nextDue.map { .string($0.iso8601) } ?? .null), ("requests", .number(requests))])
    }
}

/// A pass's rows, in plan order (a resource's push before its fetch).
package struct SyncPass: Sendable, Equatable {
    package let rows: [SyncRow]
    /// When the next resource falls due after the pass (nil: none by age).
    package let nextDue: Timestamp?
    package let requests: Int
    /// The moment the pass was planned for.
    package let at: Timestamp
    /// This store's writes still waiting after the pass.
    package var waitingWrites = 0
    /// Those writes as the plan after the pass saw them (what a sleep wakes for is any other).
    package var writes: Set<SyncWriteMark> = []
    /// This store's writes in doubt that sync leaves for a person (`SyncPlan.inDoubt`).
    package var inDoubt: [UInt64] = []

    package var failed: Bool { rows.contains { $0.outcome.isFailure } }

    /// `sync: 4 resources: 1 refreshed, 2 not-modified, 1 fresh; 3 requests; next due …`.
    package var summary: String {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for row in rows {
            if counts[row.outcome.name] == nil { order.append(row.outcome.name) }
            counts[row.outcome.name, default: 0] += 1
        }
        let resources = Set(rows.map(\.target)).count
        let parts = order.map { "\(counts[$0]!) \($0)" }.joined(separator: ", ")
        return "sync: \(resources) resource\(resources == 1 ? "" : "s")" + (parts.isEmpty ? "" : ": " + parts)
            + "; \(requests) request\(requests == 1 ? "" : "s")"
            + "; next due " + (nextDue.map(\.iso8601) ?? "never")
            + inDoubtNote
    }

    /// `; 1 write in doubt, not sent again by itself (pending retry 7 or pending discard 7)`, or empty.
    package var inDoubtNote: String {
        guard let first = inDoubt.first else { return "" }
        let ids = inDoubt.map(String.init).joined(separator: ", ")
        return "; \(inDoubt.count) write\(inDoubt.count == 1 ? "" : "s") in doubt (\(ids)), not sent again by itself"
            + " (pending retry \(first) or pending discard \(first))"
    }
}

extension SyncPass {
    /// What a terminal shows while sync sleeps: the next refresh and what it is of, what
    /// backs off until when, and the writes still waiting.
    /// `next refresh 08:15:00Z catalog/items (+1); backing off until 08:00:31Z catalog/notes; 1 write pending`
    package var statusLine: String {
        var parts: [String] = []
        let time = { (t: Timestamp) in String(t.iso8601.dropFirst(11).prefix(8)) + "Z" }
        let resources = rows.filter { !$0.outcome.isPush }
        if let next = nextDue {
            let due = resources.filter { $0.nextDue == next && $0.outcome != .backingOff && !$0.outcome.isFailure }.map(\.target.description)
            parts.append("next refresh \(time(next))" + (due.first.map { " " + $0 } ?? "") + (due.count > 1 ? " (+\(due.count - 1))" : ""))
        } else {
            parts.append("nothing falls due by age")
        }
        let failing = resources.filter(\.outcome.isFailure)
        if let first = failing.compactMap(\.nextDue).min() {
            let until = failing.filter { $0.nextDue == first }.map(\.target.description)
            parts.append("backing off until \(time(first)) \(until[0])" + (failing.count > 1 ? " (+\(failing.count - 1))" : ""))
        }
        if waitingWrites > 0 { parts.append("\(waitingWrites) write\(waitingWrites == 1 ? "" : "s") pending") }
        if !inDoubt.isEmpty { parts.append("\(inDoubt.count) write\(inDoubt.count == 1 ? "" : "s") in doubt") }
        return parts.joined(separator: "; ")
    }
}
