import FetchlogCore

/// What a `CREATE VIEW` or `DROP VIEW` did (issue 44): saved or dropped a view (an event
/// appended), or nothing — `CREATE VIEW IF NOT EXISTS` over a view that exists,
/// `DROP VIEW IF EXISTS` of one that does not. ``FetchlogCore/Store/sqlView(_:)`` answers it;
/// `fetchlog sql`, the shell and `POST /api/sql` print it as ``description`` and ``json``.
public struct SavedViewChange: Sendable, Equatable, CustomStringConvertible {
    /// What happened.
    public enum Outcome: String, Sendable, Equatable {
        /// The view was saved: a `view.saved` event at ``SavedViewChange/seq``.
        case saved
        /// The view was dropped: a `view.dropped` event at ``SavedViewChange/seq``.
        case dropped
        /// `IF NOT EXISTS` and a view of the name exists (saved at ``SavedViewChange/seq``): nothing saved.
        case exists
        /// `IF EXISTS` and no view of the name: nothing dropped.
        case absent
    }

    /// What happened.
    public let outcome: Outcome
    /// The view's name: as the statement wrote it, or as it was saved for `exists`.
    public let name: String
    /// The event appended (`saved`, `dropped`), or the one that saved the view that exists
    /// (`exists`); nil for `absent`.
    public let seq: UInt64?
    /// The seq of the log's last event after the statement.
    public let asOf: UInt64

    package init(_ outcome: Outcome, name: String, seq: UInt64?, asOf: UInt64) {
        self.outcome = outcome
        self.name = name
        self.seq = seq
        self.asOf = asOf
    }

    /// Whether an event was appended.
    public var appended: Bool { outcome == .saved || outcome == .dropped }

    /// As `fetchlog sql` prints it: "saved view ev (seq 36)", "dropped view ev (seq 37)",
    /// "view ev exists (seq 36): nothing saved", "no view nosuch: nothing dropped".
    public var description: String {
        switch outcome {
        case .saved: "saved view \(name) (seq \(seq ?? asOf))"
        case .dropped: "dropped view \(name) (seq \(seq ?? asOf))"
        case .exists: "view \(name) exists (seq \(seq ?? asOf)): nothing saved"
        case .absent: "no view \(name): nothing dropped"
        }
    }

    /// As `fetchlog sql --format json` and `POST /api/sql` answer it: `{"saved": NAME, "seq": N}`,
    /// `{"dropped": NAME, "seq": N}`, `{"exists": NAME, "saved": false, "seq": N}`,
    /// `{"absent": NAME, "dropped": false}` (keys in canonical order, so both print alike).
    public var json: JSONValue {
        let seq = JSONValue.number(Int(self.seq ?? asOf))
        return switch outcome {
        case .saved: .object([("saved", .string(name)), ("seq", seq)])
        case .dropped: .object([("dropped", .string(name)), ("seq", seq)])
        case .exists: .object([("exists", .string(name)), ("saved", .bool(false)), ("seq", seq)])
        case .absent: .object([("absent", .string(name)), ("dropped", .bool(false))])
        }
    }
}
