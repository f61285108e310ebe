import Foundation

/// The part of the state a source keeps beside the core's (resources, statuses,
/// validators): the user's choices, recorded as intents. A slice is folded by its own pure
/// reducer from the intents of its source (bodies are the core's: views read them from
/// `LogState.documents`, so replay may skip superseded ones), and saved in checkpoints through its `Codable`
/// form — the one definition of what it holds.
///
/// Bump `version` when `apply` changes meaning: on open, a checkpoint's slice of another
/// version is rebuilt from the log, and only that slice.
public protocol SourceSlice: Codable, Sendable, Equatable {
    /// The slice's own version: a checkpoint's slice of another version is rebuilt from the log.
    static var version: Int { get }
    /// Folds one intent event of this slice's source. Pure: no I/O, no clock.
    mutating func apply(_ event: Event)
}

extension SourceSlice {
    func isEqual(to other: any SourceSlice) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }

    /// The slice's checkpoint form: its `Codable` encoding with sorted keys.
    func encoded() throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try JSONValue.parse(bytes: Array(try encoder.encode(self)))
    }

    /// A slice of this type from its checkpoint form.
    func decoded(from json: JSONValue) throws -> any SourceSlice {
        try JSONDecoder().decode(Self.self, from: Data(json.canonicalText().utf8))
    }
}
