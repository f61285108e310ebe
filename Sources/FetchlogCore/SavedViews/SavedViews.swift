/// Saved SQL views are events: `CREATE VIEW name AS SELECT …` appends a `view.saved` intent
/// (source `fetchlog`, body `{"name", "sql"}`), `DROP VIEW name` a `view.dropped` one, and the
/// reducer folds them into the state's `savedViews`. Replay, `--at`, merged logs and replicas
/// therefore know each view as it stood at every point of the log. What the SQL means is the
/// SQL layer's business (`FetchlogSQL`); the core only keeps the text.
package enum SavedViews {
    /// The events' source (the core's own) and labels.
    package static let source = ManifestDefinition.source
    package static let savedLabel = "view.saved"
    package static let droppedLabel = "view.dropped"

    /// The intent body of a saved view.
    package static func savedBody(name: String, sql: String) -> JSONValue {
        .object([("name", .string(name)), ("sql", .string(sql))])
    }

    /// The intent body of a dropped view.
    package static func droppedBody(name: String) -> JSONValue { .object([("name", .string(name))]) }

    static func apply(_ event: Event, to state: inout LogState) {
        guard let body = event.body, let json = try? JSONValue.parse(bytes: body), let name = json["name"]?.stringValue else { return }
        switch event.label {
        case savedLabel:
            guard let sql = json["sql"]?.stringValue else { return }
            state.savedViews[name] = SavedView(name: name, sql: sql, seq: event.seq)
        case droppedLabel:
            state.savedViews[name] = nil
        default:
            break
        }
    }
}

/// One saved view in force: its name, its `SELECT`, and the seq of the event that saved it.
package struct SavedView: Sendable, Equatable {
    package let name: String
    package let sql: String
    package let seq: UInt64

    package init(name: String, sql: String, seq: UInt64) {
        self.name = name
        self.sql = sql
        self.seq = seq
    }

    /// The checkpoint's form.
    var json: JSONValue { .object([("name", .string(name)), ("seq", .number(seq)), ("sql", .string(sql))]) }

    init?(checkpoint json: JSONValue) {
        guard let name = json["name"]?.stringValue, let sql = json["sql"]?.stringValue, let seq = json["seq"]?.intValue else { return nil }
        self.init(name: name, sql: sql, seq: UInt64(seq))
    }
}
