/// A view: a pure function of `LogState` with a canonical JSON export
/// (`Schemas/<name>.schema.json` describes it).
public protocol ExportableView: Sendable {
    /// The export name, e.g. `status`, `assets`, or a plug-in's `items`.
    static var viewName: String { get }
    /// The view's data: the members that follow `view` and `asOf` in the export.
    func exportMembers() -> [(String, JSONValue)]
}

extension ExportableView {
    /// `{"view": NAME, "asOf": SEQ, …members}` — canonical text is what replay hashes.
    public func export(asOf seq: UInt64) -> JSONValue {
        .object([("view", .string(Self.viewName)), ("asOf", .number(seq))] + exportMembers())
    }
}

extension JSONValue {
    /// `.string` or `.null`.
    public static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    /// `.number` or `.null`.
    public static func optional(_ value: Int?) -> JSONValue { value.map { .number($0) } ?? .null }
    /// `.number` or `.null`.
    public static func optional(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }
}
