import FetchlogCore

/// A saved view as a view (issue 35): `export NAME` and `GET /api/views/NAME` answer its rows
/// as `{"view", "asOf", "count", "rows"}` (canonical, as every export), and `export NAME
/// --schema` a JSON Schema drawn from its columns and the values they hold.
package enum SavedViewExport {
    /// The export of saved view `name` from its `answer` (`SELECT * FROM name`).
    package static func document(name: String, answer: SQLAnswer) -> JSONValue {
        .object([("view", .string(name)), ("asOf", .number(answer.asOf)), ("count", .number(answer.rows.count)), ("rows", answer.json)])
    }

    /// The JSON Schema of `document(name:answer:)`: each column's types as its values have them
    /// (integer, number, string, null; a column with no rows takes any value).
    package static func schema(name: String, sql: String, answer: SQLAnswer) -> JSONValue {
        let columns: [(String, JSONValue)] = answer.columns.enumerated().map { index, column in
            var types: [String] = []
            for row in answer.rows {
                let type = switch row[index] {
                case .null: "null"
                case .number(let text): Int64(text) != nil ? "integer" : "number"
                case .string: "string"
                case .bool: "boolean"
                case .array: "array"
                case .object: "object"
                }
                if !types.contains(type) { types.append(type) }
            }
            // An integer column that also holds reals is a number column.
            if types.contains("number") { types.removeAll { $0 == "integer" } }
            let order = ["integer", "number", "string", "boolean", "array", "object", "null"]
            types.sort { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! }
            if types.isEmpty { return (column, .object([])) }
            return (column, .object([("type", types.count == 1 ? .string(types[0]) : .array(types.map(JSONValue.string)))]))
        }
        let row: JSONValue = .object([("type", .string("object")), ("additionalProperties", .bool(false)),
                                      ("required", .array(answer.columns.map(JSONValue.string))), ("properties", .object(columns))])
        return .object([
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("title", .string("saved view \(name): \(sql)")),
            ("type", .string("object")), ("additionalProperties", .bool(false)),
            ("required", .array(["view", "asOf", "count", "rows"].map(JSONValue.string))),
            ("properties", .object([
                ("view", .object([("const", .string(name))])),
                ("asOf", .object([("type", .string("integer")), ("minimum", .number(0))])),
                ("count", .object([("type", .string("integer")), ("minimum", .number(0))])),
                ("rows", .object([("type", .string("array")), ("items", row)])),
            ])),
        ])
    }
}

/// The bounds a saved view is evaluated under wherever it is (issue 44): replay and
/// `replay --verify`, `export`, a checkpoint's view record, `GET /api/views/NAME`, the event
/// stream and the page. One that runs past them fails there, by name, instead of taking the
/// machine: a view saved once (one event) is evaluated by every replay after it.
package enum SavedViewBounds {
    /// The time one evaluation may take.
    package static let time: Duration = .seconds(10)
    /// The most bytes its rows may hold as JSON (64 MiB; `serve --max-answer` sets the server's).
    package static let bytes = 64 << 20

    /// These bounds, with `bytes` as the byte cap (and at most `rows` rows, when given).
    package static func bounds(bytes: Int = bytes, rows: Int? = nil) -> SQLEngine.Bounds {
        SQLEngine.Bounds(time: time, rows: rows, bytes: bytes)
    }

    /// `SELECT * FROM name`.
    package static func select(_ name: String) -> String { "SELECT * FROM \(SQLEngine.quote(name))" }
}

/// The saved views in the view record saved with each checkpoint (`replay --diff`): the
/// core runs no SQL, so this module installs the exporter — on a store's first SQL use, and
/// by the command line at start. Each saved view is recorded as `export NAME` gives it, or
/// as the error asking it gives (a view that no longer compiles).
package enum SavedViewRecording {
    package static let installed: Void = {
        ViewRecord.install { state, events in
            guard !state.savedViews.isEmpty, let engine = try? SQLEngine(events: events) else { return [] }
            return state.savedViews.keys.sorted().map { name in
                // A name the rule leaves out of SQL (issue 44) is recorded as refused, not as
                // the table that now has its name.
                if let refusal = SavedViewName.refusal(of: name, in: state) {
                    return (name, .object([("view", .string(name)), ("error", .string(refusal))]))
                }
                do {
                    let answer = try engine.answer(SavedViewBounds.select(name), subject: SQLSubject(state: state, confirmed: false),
                                                   bounds: SavedViewBounds.bounds())
                    return (name, SavedViewExport.document(name: name, answer: answer))
                } catch {
                    return (name, .object([("view", .string(name)), ("error", .string("\(error)"))]))
                }
            }
        }
    }()
}
