import FetchlogCore

/// The rows a query answered, with their columns in the query's order, at the seq it saw.
public struct SQLAnswer: Sendable, Equatable {
    /// The column names, in the query's order.
    public let columns: [String]
    /// Each row's values, in `columns` order: numbers, strings and null (a blob as its hex
    /// text, `x'…'`, as sqlite3's quote() writes it).
    public let rows: [[JSONValue]]
    /// The seq of the last event the tables held.
    public let asOf: UInt64

    package init(columns: [String], rows: [[JSONValue]], asOf: UInt64) {
        self.columns = columns
        self.rows = rows
        self.asOf = asOf
    }

    /// Rows as objects, column name → value in column order: `fetchlog sql --format json`.
    public var json: JSONValue {
        .array(rows.map { row in .object(zip(columns, row).map { ($0, $1) }) })
    }
}
