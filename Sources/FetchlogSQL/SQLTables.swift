import FetchlogCore
import FetchlogSQLite

/// The tables a state offers to SQL (issue 35), the contract users and tests rely on:
/// - every fixed view as a table named as the view: the records of its list (the member
///   named as the view, else its only list of objects); a view with several lists of objects
///   (`search`) is one table of all their records, each with a first column `list` naming its
///   list; a view with no list of objects is one row of its members;
/// - each manifest resource as `SOURCE.RESOURCE` (the source a schema of its own, attached
///   when a query names it): the optimistic items (pending changes folded, a `pending` column)
///   unless confirmed-only; a manifest's `columns` types declared;
/// - the log as `events`, one row per event with the members of `log tail --format json`;
/// - saved views as views of their names (`SQLEngine` creates them).
///
/// Columns are the records' members as exported, in first-seen order, names unchanged:
/// numbers, text, booleans (0/1) and null are SQL values; lists and objects canonical JSON text.
package struct SQLTable {
    /// `main`, or the source's name for a manifest resource.
    package let schema: String
    package let name: String
    package var columns: [SQLColumn]
    package var rows: [[SQLiteValue]]

    /// `name`, or `schema.name` for a manifest resource.
    package var qualifiedName: String { schema == "main" ? name : schema + "." + name }
}

/// One column: its name and the SQL type a manifest's `columns` declares (nil: none).
package struct SQLColumn: Equatable, Sendable {
    package let name: String
    package let declaredType: String?
}

package enum SQLTables {
    /// The log's table.
    package static let eventsName = "events"
    /// The extra first column of a view with several lists.
    package static let listColumn = "list"

    /// The fixed views' table names, in the registry's order.
    package static func viewNames(in state: LogState) -> [String] { ViewCatalog.fixedNames(in: state.sources) }

    /// The manifest resources: source name → resource names, sorted by source.
    package static func resources(in state: LogState) -> [(source: String, resources: [String])] {
        state.manifests.keys.sorted().map { source in (source, state.manifests[source]!.manifest.resources.map(\.name)) }
    }

    /// Fixed view `name` as a table.
    package static func viewTable(_ name: String, state: LogState) -> SQLTable? {
        guard let export = try? ViewCatalog.export(name, state: state) else { return nil }
        let columns = state.sources.views.first { $0.name == name }?.columns ?? []
        return table(schema: "main", name: name, fromExport: export, columns: columns)
    }

    /// A view's export as a table, by the rules above.
    /// `columns`: the view's declared record members, first (and there when the list is empty).
    package static func table(schema: String, name: String, fromExport export: JSONValue, columns: [String] = []) -> SQLTable {
        guard case .object(let members) = export else { return SQLTable(schema: schema, name: name, columns: [], rows: []) }
        let data = members.filter { $0.0 != "view" }
        if let own = data.first(where: { $0.0 == name }), case .array(let list) = own.1 {
            return records(schema: schema, name: name, leading: columns, list)
        }
        let lists = data.compactMap { member -> (String, [JSONValue])? in
            guard case .array(let elements) = member.1, elements.allSatisfy({ if case .object = $0 { true } else { false } }) else { return nil }
            return (member.0, elements)
        }
        if lists.count == 1 { return records(schema: schema, name: name, leading: columns, lists[0].1) }
        if lists.count > 1 {
            var table = records(schema: schema, name: name, leading: columns, lists.flatMap { list in list.1.map { ($0, list.0) } }.map { record, list in
                guard case .object(let fields) = record else { return record }
                return .object([(listColumn, .string(list))] + fields)
            })
            if table.columns.first?.name != listColumn { table.columns.insert(SQLColumn(name: listColumn, declaredType: nil), at: 0) }
            return table
        }
        return SQLTable(schema: schema, name: name, columns: data.map { SQLColumn(name: $0.0, declaredType: nil) },
                        rows: [data.map { value($0.1) }])
    }

    /// Records as rows: the union of their members in first-seen order.
    package static func records(schema: String, name: String, leading: [String] = [], _ records: [JSONValue],
                                declared: [(String, String)] = [], always: [String] = []) -> SQLTable {
        var names: [String] = []
        var index: [String: Int] = [:]
        func add(_ column: String) {
            guard index[column] == nil else { return }
            index[column] = names.count
            names.append(column)
        }
        for column in leading { add(column) }
        for (column, _) in declared { add(column) }
        for record in records { for member in record.memberNames { add(member) } }
        for column in always { add(column) }
        let rows: [[SQLiteValue]] = records.map { record in
            var row = [SQLiteValue](repeating: .null, count: names.count)
            guard case .object(let members) = record else { return row }
            // The first of a repeated member, as `JSONValue`'s subscript reads it.
            for (member, value) in members.reversed() { row[index[member]!] = Self.value(value) }
            return row
        }
        let types = Dictionary(declared, uniquingKeysWith: { first, _ in first })
        return SQLTable(schema: schema, name: name, columns: names.map { SQLColumn(name: $0, declaredType: types[$0].map(sqlType)) }, rows: rows)
    }

    /// Resource `resource` of manifest source `source`, optimistic or confirmed-only.
    package static func resourceTable(source: String, resource: String, state: LogState, confirmedOnly: Bool) -> SQLTable? {
        guard let view = ItemsView(state: state, source: source, resource: resource, confirmedOnly: confirmedOnly) else { return nil }
        let declared = state.manifests[source]?.manifest.resources.first { $0.name == resource }?.columnTypes ?? []
        return records(schema: source, name: resource, view.items, declared: declared, always: confirmedOnly ? [] : ["pending"])
    }

    /// The log up to `seq` as the `events` table.
    package static func eventsTable(_ events: [JSONValue]) -> SQLTable {
        records(schema: "main", name: eventsName, events, always: EventSummary.memberNames)
    }

    /// A JSON value as an SQL value.
    package static func value(_ json: JSONValue) -> SQLiteValue {
        switch json {
        case .null: .null
        case .bool(let b): .integer(b ? 1 : 0)
        case .string(let s): .text(s)
        case .number(let text):
            if let i = Int64(text) { .integer(i) } else if let d = Double(text) { .real(d) } else { .text(text) }
        case .array, .object: .text(json.canonicalText())
        }
    }

    /// dlt's data types as SQLite's declared types (their affinity).
    package static func sqlType(_ dlt: String) -> String {
        switch dlt {
        case "bigint", "bool": "INTEGER"
        case "double", "decimal": "REAL"
        case "binary": "BLOB"
        case "json", "complex": "JSON"
        default: "TEXT"
        }
    }
}
