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
    /// A repeated column name is a key of its own (`Self.keys`).
    public var json: JSONValue {
        let keys = Self.keys(columns)
        return .array(rows.map { row in .object(zip(keys, row).map { ($0, $1) }) })
    }

    /// The columns as the keys of a row object: each name as it is, but a name already used
    /// (`SELECT * FROM a JOIN b`, both with an `id`) gets `:N`, as SQLite names a view's
    /// repeated columns (`id`, `id:1`): a JSON reader keeps one value per key, so a repeated
    /// key would silently lose all but one column.
    package static func keys(_ columns: [String]) -> [String] {
        var used = Set<String>()
        var next: [String: Int] = [:]
        return columns.map { name in
            guard used.contains(name) else {
                used.insert(name)
                return name
            }
            // `a:1` repeated counts on from `a`'s numbers, as SQLite does.
            var base = Substring(name)
            if let colon = name.lastIndex(of: ":"), name.index(after: colon) < name.endIndex, name[name.index(after: colon)...].allSatisfy({ $0.isASCII && $0.isNumber }) {
                base = name[..<colon]
            }
            var number = next[String(base), default: 0]
            var key: String
            repeat {
                number += 1
                key = "\(base):\(number)"
            } while used.contains(key)
            next[String(base)] = number
            used.insert(key)
            return key
        }
    }
}

/// What a streamed answer (`Store.sqlStream`) handed over: how many rows, whether another
/// followed the last one its bounds asked for, and the seq it is as of.
package struct SQLStreamed: Sendable, Equatable {
    package let rows: Int
    package let more: Bool
    package let asOf: UInt64

    package init(rows: Int, more: Bool, asOf: UInt64) {
        self.rows = rows
        self.more = more
        self.asOf = asOf
    }
}
