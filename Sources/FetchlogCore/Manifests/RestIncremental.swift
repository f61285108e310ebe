import Foundation

/// `endpoint.incremental` (or a `{"type": "incremental"}` param): dlt's incremental loading,
/// with the log as its state. dlt keeps the last cursor value in pipeline state; here it is
/// a pure function of the items held — the highest (or lowest, `last_value_func: min`)
/// `cursor_path` value among them, else `initial_value` — so a replay, `--at` and every
/// replica compute the same next request, and a fetch killed midway asks again from what
/// was committed.
package struct RestIncremental: Sendable, Equatable {
    package enum LastValue: String, Sendable { case max, min }
    package enum Missing: String, Sendable { case raise, include, exclude }

    package var cursorPath: JSONPath
    /// The query param that carries the start value (`since`), when one does.
    package var startParam: String?
    /// The query param that carries `end_value` (`until`), when one does.
    package var endParam: String?
    package var initialValue: JSONValue?
    package var endValue: JSONValue?
    package var lastValueFunction: LastValue = .max
    /// Seconds (timestamps) or units (numbers) the start value steps back, for late writes.
    package var lag: Double?
    /// An item without a cursor value: dlt raises; Fetchlog keeps it (`raise`, `include`)
    /// and says so, or leaves it out of the view (`exclude`).
    package var onMissing: Missing = .raise
    package var rangeStartOpen = false
    package var rangeEndClosed = false
    /// dlt's keys accepted with no effect (key paths).
    var acceptedWithoutEffect: [String] = []

    /// `endpoint.incremental`.
    init(_ reader: ManifestReader) throws(ManifestError) {
        try reader.allow(["cursor_path", "start_param", "end_param", "initial_value", "end_value", "last_value_func", "lag",
                          "on_cursor_value_missing", "range_start", "range_end", "primary_key", "row_order", "allow_external_schedulers"],
                         unsupported: ["convert"], unsupportedNote: "is dlt's (a Python callable), which a JSON manifest cannot hold")
        try self.init(cursor: reader)
        startParam = try reader.optionalString("start_param")
        endParam = try reader.optionalString("end_param")
        if let text = try reader.optionalString("last_value_func") {
            guard let function = LastValue(rawValue: text) else {
                throw ManifestError(path: reader.path + ".last_value_func", message: "\"\(text)\" is not max or min (dlt's other functions are Python callables)")
            }
            lastValueFunction = function
        }
        if let value = reader.json["lag"], !value.isNull {
            guard let seconds = value.doubleValue, seconds >= 0 else { throw ManifestError(path: reader.path + ".lag", message: "expected a number of seconds (or units) from 0") }
            lag = seconds
        }
        if let text = try reader.optionalString("on_cursor_value_missing") {
            guard let missing = Missing(rawValue: text) else {
                throw ManifestError(path: reader.path + ".on_cursor_value_missing", message: "\"\(text)\" is not raise, include or exclude")
            }
            onMissing = missing
        }
        for (key, open) in [("range_start", "open"), ("range_end", "closed")] {
            guard let text = try reader.optionalString(key) else { continue }
            guard text == "open" || text == "closed" else { throw ManifestError(path: reader.path + "." + key, message: "\"\(text)\" is not open or closed") }
            if key == "range_start" { rangeStartOpen = text == open } else { rangeEndClosed = text == open }
        }
        for key in ["primary_key", "row_order", "allow_external_schedulers"] where reader.json[key] != nil {
            acceptedWithoutEffect.append(reader.path + "." + key)
        }
    }

    /// A `{"type": "incremental", …}` param named `name`: its value is the start value.
    init(param reader: ManifestReader, name: String) throws(ManifestError) {
        try reader.allow(["type", "cursor_path", "initial_value", "end_value"], unsupported: ["convert"],
                         unsupportedNote: "is dlt's (a Python callable), which a JSON manifest cannot hold")
        try self.init(cursor: reader)
        startParam = name
    }

    private init(cursor reader: ManifestReader) throws(ManifestError) {
        let text = try reader.string("cursor_path")
        do { cursorPath = try JSONPath(text) } catch { throw ManifestError(path: reader.path + ".cursor_path", message: error.description) }
        func scalar(_ key: String) throws(ManifestError) -> JSONValue? {
            switch reader.json[key] {
            case nil, .null?: return nil
            case .string?, .number?: return reader.json[key]
            default: throw ManifestError(path: reader.path + "." + key, message: "expected a string or a number")
            }
        }
        initialValue = try scalar("initial_value")
        endValue = try scalar("end_value")
    }

    /// The placeholders a path, param or body may hold (dlt's names).
    static let placeholders = ["incremental.start_value", "incremental.initial_value", "incremental.end_value",
                               "incremental.last_value", "incremental.lag"]

    // MARK: The state, from the items held

    /// The cursor values of `items` (an item without one is skipped).
    func cursorValues(_ items: [JSONValue]) -> [JSONValue] {
        items.compactMap { item in cursorPath.first(in: item).flatMap { $0.isNull ? nil : $0 } }
    }

    /// The last value held: the highest (`max`) or lowest (`min`) cursor value, nil when
    /// no item has one.
    func lastValue(of items: [JSONValue]) -> JSONValue? { extreme(of: cursorValues(items)) }

    /// The highest (`max`) or lowest (`min`) of cursor values (each page's, say).
    func extreme(of values: [JSONValue]) -> JSONValue? {
        values.reduce(nil) { best, value in
            guard let best else { return value }
            let before = Self.precedes(value, best)
            return (lastValueFunction == .max ? !before && value != best : before) ? value : best
        }
    }

    /// What the next request starts from: the last value held (stepped back by `lag`),
    /// else `initial_value`.
    func startValue(last: JSONValue?) -> JSONValue? {
        guard let last else { return initialValue }
        guard let lag, lag > 0 else { return last }
        return Self.stepped(last, by: lastValueFunction == .max ? -lag : lag) ?? last
    }

    /// The `{incremental.…}` placeholders' values for the next request (as dlt names them),
    /// `last` being the last value held.
    func placeholderValues(last: JSONValue?) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        values["incremental.start_value"] = startValue(last: last)
        values["incremental.initial_value"] = initialValue
        values["incremental.end_value"] = endValue
        values["incremental.last_value"] = last ?? initialValue
        values["incremental.lag"] = lag.map { .number(CanonicalNumber.text($0)) }
        return values
    }

    /// True when `item` is inside the static bounds (`initial_value`, `end_value`), as dlt
    /// filters a page's items; an item without a cursor value as `on_cursor_value_missing`.
    func keeps(_ item: JSONValue) -> Bool {
        guard let value = cursorPath.first(in: item), !value.isNull else { return onMissing != .exclude }
        if let start = initialValue {
            let before = lastValueFunction == .max ? Self.precedes(value, start) : Self.precedes(start, value)
            if before || (rangeStartOpen && value == start) { return false }
        }
        if let end = endValue {
            let past = lastValueFunction == .max ? Self.precedes(end, value) : Self.precedes(value, end)
            if past || (!rangeEndClosed && value == end) { return false }
        }
        return true
    }

    /// Cursor order: numbers by value, anything else by its text (ISO 8601 times sort so).
    static func precedes(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.doubleValue, let y = b.doubleValue, case .number = a, case .number = b { return x < y }
        return ItemsView.text(a) < ItemsView.text(b)
    }

    /// `value` moved by `amount`: a number, or an ISO 8601 time by seconds (same spelling).
    static func stepped(_ value: JSONValue, by amount: Double) -> JSONValue? {
        if case .number = value, let n = value.doubleValue { return .number(CanonicalNumber.text(n + amount)) }
        guard case .string(let text) = value else { return nil }
        let formatter = ISO8601DateFormatter()
        let fractional = text.contains(".")
        if fractional { formatter.formatOptions.insert(.withFractionalSeconds) }
        guard let date = formatter.date(from: text) else { return nil }
        return .string(formatter.string(from: date.addingTimeInterval(amount)))
    }
}

extension RestResource {
    /// This resource as its next fetch asks it: `{incremental.…}` placeholders in the path
    /// and params filled, and the start and end params added, from the items held.
    package func preparedForFetch(held items: [JSONValue]) -> RestResource {
        preparedForFetch(lastValue: incremental?.lastValue(of: items.filter { incremental?.keeps($0) ?? true }))
    }

    /// The same from the last value held (the extreme of the held pages' `lastCursor`s:
    /// no view of every item needed).
    func preparedForFetch(lastValue last: JSONValue?) -> RestResource {
        guard let incremental else { return self }
        var copy = self
        let values = incremental.placeholderValues(last: last).mapValues { ($0, ItemsView.text($0)) }
        func fill(_ text: String) -> String {
            var text = text
            for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value.1) }
            return text
        }
        copy.path = fill(path)
        copy.params = params.map { ($0.0, fill($0.1)) }
        copy.headerTemplates = headerTemplates.map { ($0.0, fill($0.1)) }
        // In a body a value that is only the placeholder keeps its type (a number stays one).
        for (name, value) in values.sorted(by: { $0.key < $1.key }) { copy.body = copy.body?.filling("{\(name)}", with: value.0, text: value.1) }
        if let start = incremental.startParam, let value = values["incremental.start_value"] { copy.params.append((start, value.1)) }
        if let end = incremental.endParam, let value = values["incremental.end_value"] { copy.params.append((end, value.1)) }
        return copy
    }
}
