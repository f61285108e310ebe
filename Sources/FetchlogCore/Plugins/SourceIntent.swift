/// A slice's intents as one type: a `Codable` enum whose cases are the choices a source's
/// slice folds (``SourceSlice``), so no label string is written twice — once to record it
/// and once to fold it.
///
/// Each case names its event's label and body: the event an intent becomes, and the intent
/// read back from an event, come from this one definition. The label and the body's
/// canonical bytes are what logs hold, so renaming a case changes nothing on disk, while
/// changing a label or a body's shape is a new intent (older logs keep the old one).
///
/// ```swift
/// enum ShelfIntent: SourceIntent {
///     case pin(id: Int)
///     case clear
///     static let source = Source("books")
///     var label: String { switch self { case .pin: "shelf.pin"; case .clear: "shelf.clear" } }
///     var body: JSONValue { switch self { case .pin(let id): .object([("id", .number(id))]); case .clear: .object([]) } }
///     init?(label: String, body: JSONValue) {
///         switch label {
///         case "shelf.pin": guard let id = body["id"]?.intValue else { return nil }; self = .pin(id: id)
///         case "shelf.clear": self = .clear
///         default: return nil
///         }
///     }
/// }
/// try await store.sendIntent(ShelfIntent.pin(id: 7))
/// ```
public protocol SourceIntent: Codable, Sendable, Equatable {
    /// The source whose slice folds these intents (their events' `source`).
    static var source: Source { get }
    /// The event's label (`filter.set`).
    var label: String { get }
    /// The event's body; its canonical text is the body's bytes.
    var body: JSONValue { get }
    /// The intent an event with `label` and `body` records (`body` is `null` when the event
    /// has none or it is not JSON); nil for a label of another intent or a body it cannot read.
    init?(label: String, body: JSONValue)
}

extension SourceIntent {
    /// The intent `event` records: nil for another kind, another source, or what
    /// `init(label:body:)` refuses.
    public init?(_ event: Event) {
        guard event.kind == .intent, event.source == Self.source.rawValue else { return nil }
        let body = event.body.flatMap { try? JSONValue.parse(bytes: $0) } ?? .null
        self.init(label: event.label, body: body)
    }

    /// The intent event recorded at `at` (as `StoreAction.intent` appends it).
    public func event(at: Timestamp) -> Event {
        Event(recordedAt: at, kind: .intent, source: Self.source.rawValue, label: label, body: Array(body.canonicalText().utf8))
    }
}

extension StoreAction {
    /// Records `intent` at `at`: `.intent` with its source, label and body.
    package static func record(_ intent: some SourceIntent, at: Timestamp) -> StoreAction {
        .intent(source: type(of: intent).source, label: intent.label, body: intent.body, at: at)
    }
}
