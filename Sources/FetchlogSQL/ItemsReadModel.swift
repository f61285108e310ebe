import FetchlogCore
import FetchlogSQLite
import Foundation

/// The read model's copy of every manifest resource's items (`items.sqlite` beside the SQL
/// tables), so a one-shot `fetchlog items SOURCE RESOURCE [TEXT]` answers without folding
/// the store or decoding a body (issue 35, cold start): each item as the view holds it
/// (members in their order, JSON text), in the view's order, and the bytes of the view's
/// search index, which rebuild the index in one pass. Written and stamped with the rest of
/// the read model (`ReadModel.write`); SQL never sees it (it is not attached).
package enum ItemsReadModel {
    package static let fileName = "items.sqlite"

    /// Writes every resource's items and search bytes into the database at `path`; the
    /// resources of the sources in `reused` are copied from the items file at `prior` (their
    /// events did not move since it was written), not built.
    static func write(state: LogState, to path: String, reusing reused: Set<String> = [], from prior: String? = nil) throws {
        let (connection, copying) = try RecordsFile.create(
            path, catalog: "CREATE TABLE resources (source TEXT, resource TEXT, records TEXT, count INTEGER, search BLOB, PRIMARY KEY (source, resource))",
            prior: prior, copying: !reused.isEmpty)
        let resource = try connection.prepare("INSERT INTO resources VALUES (?, ?, ?, ?, ?)")
        var number = 0
        for (source, names) in SQLTables.resources(in: state) {
            if copying, reused.contains(source) {
                let rows = try connection.prepare("SELECT resource, records, count, search FROM prior.resources WHERE source = ? ORDER BY rowid")
                try rows.bind([.text(source)])
                var held: [(name: String, table: String, count: SQLiteValue, search: SQLiteValue)] = []
                while try rows.step() {
                    guard case .text(let name) = rows.value(at: 0), case .text(let table) = rows.value(at: 1) else { continue }
                    held.append((name, table, rows.value(at: 2), rows.value(at: 3)))
                }
                for entry in held {
                    number += 1
                    let table = "records_\(number)"
                    try RecordsFile.copy(entry.table, into: table, connection) {
                        try resource.bind([.text(source), .text(entry.name), .text(table), entry.count, entry.search])
                        try resource.run()
                    }
                }
                continue
            }
            for name in names {
                guard let view = ItemsView(state: state, source: source, resource: name) else { continue }
                number += 1
                // Tables named by number: any source or resource name is safe.
                let table = "records_\(number)"
                try RecordsFile.write(view.items.lazy.map { $0.orderedText() }, into: table, connection) {
                    // An index some text of which holds a separator byte is not kept: its bytes
                    // alone do not say where items start (the one-shot then folds the store).
                    let index = view.searchIndex
                    try resource.bind([.text(source), .text(name), .text(table), .integer(Int64(view.items.count)),
                                       index.separable ? .blob(index.bytes) : .null])
                    try resource.run()
                }
            }
        }
    }

    /// One resource's items as the read model holds them.
    package struct Held {
        private let connection: SQLiteConnection
        private let table: String
        private let searchBytes: [UInt8]?
        /// How many items the view holds.
        package let count: Int

        fileprivate init(connection: SQLiteConnection, table: String, searchBytes: [UInt8]?, count: Int) {
            self.connection = connection
            self.table = table
            self.searchBytes = searchBytes
            self.count = count
        }

        /// The positions (in the view's order) of the items `text` finds, as
        /// `ItemsView.positions(text:)` finds them; nil when this copy cannot answer (a text
        /// holding a separator byte, an index not kept): the caller asks the store.
        package func positions(text: String) -> [Int]? {
            let needle = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            guard !needle.isEmpty else { return Array(0 ..< count) }
            guard let searchBytes else { return nil }
            let index = ItemsSearchIndex(bytes: searchBytes)
            guard index.count == count else { return nil }
            return index.matching(needle)
        }

        /// The items at `positions`, in that order. Any failure (a record missing or not JSON,
        /// a file that does not read) is an `ItemsReadModelError`: the caller asks the store.
        package func items(at positions: [Int]) throws(ItemsReadModelError) -> [JSONValue] {
            do {
                return try RecordsFile.Reader(connection: connection, table: table).records(at: positions).map { try JSONValue.parse($0) }
            } catch let error as ItemsReadModelError {
                throw error
            } catch {
                throw ItemsReadModelError(message: "\(table) does not read: \(error)")
            }
        }
    }

    /// Resource `resource` of `source` from the read model of the store at `storePath`, when
    /// the read model is current (`stamp`) and holds it; nil otherwise.
    package static func open(storePath: String, stamp: ReadModel.Stamp, source: String, resource: String) -> Held? {
        (try? opening(storePath: storePath, stamp: stamp, source: source, resource: resource).get()) ?? nil
    }

    /// Resource `resource` of `source` from the read model of the store at `storePath` when it
    /// is current (`stamp`) and its catalog and items file are as its digests say (nil when it
    /// does not hold the resource); else why it cannot answer.
    package static func opening(storePath: String, stamp: ReadModel.Stamp, source: String,
                                resource: String) -> Result<Held?, ReadModel.NotCurrent> {
        ReadModel.removeLeftovers(storePath: storePath)
        let directory = ReadModel.directory(of: storePath)
        if case .failure(let problem) = ReadModel.verify(directory: directory, stamp: stamp, reading: .items) { return .failure(problem) }
        return .success(held(directory: directory, source: source, resource: resource))
    }

    private static func held(directory: String, source: String, resource: String) -> Held? {
        guard let connection = try? SQLiteConnection(path: directory + "/" + fileName, readOnly: true),
              let row = try? connection.prepare("SELECT records, count, search FROM resources WHERE source = ? AND resource = ?"),
              (try? row.bind([.text(source), .text(resource)])) != nil,
              (try? row.step()) == true,
              case .text(let table) = row.value(at: 0), case .integer(let count) = row.value(at: 1) else { return nil }
        var search: [UInt8]?
        if case .blob(let bytes) = row.value(at: 2) { search = bytes }
        return Held(connection: connection, table: table, searchBytes: search, count: Int(count))
    }
}

/// A read model file that does not hold what its catalog says (damaged): the caller asks the store.
package struct ItemsReadModelError: Error {
    package let message: String
}
