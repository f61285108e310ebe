import FetchlogCore
import FetchlogSQLite
import Foundation

/// The read model's copies of the views that give one (`ViewDefinition.copy`, a plug-in's
/// `ViewCopy`): `copies.sqlite` beside the SQL tables, so a plug-in's one-shot command
/// (`fetchlog query "COMMAND"`) answers without folding the store or decoding a body.
/// Written and stamped with the rest of the read model (`ReadModel.write`); SQL never sees it.
package enum ViewCopiesReadModel {
    package static let fileName = "copies.sqlite"

    /// Writes the copy of every view of `state`'s registry that gives one into the database
    /// at `path`; the views named in `reused` are copied from the file at `prior` (their
    /// sources' events did not move since it was written), not made.
    static func write(state: LogState, to path: String, reusing reused: Set<String> = [], from prior: String? = nil) throws {
        let (connection, copying) = try RecordsFile.create(path, catalog: "CREATE TABLE copies (view TEXT PRIMARY KEY, header BLOB, records TEXT, count INTEGER)",
                                                          prior: prior, copying: !reused.isEmpty)
        let entry = try connection.prepare("INSERT INTO copies VALUES (?, ?, ?, ?)")
        var number = 0
        for view in state.sources.views {
            guard let make = view.copy else { continue }
            number += 1
            // Tables named by number: any view name is safe.
            let table = "records_\(number)"
            if copying, reused.contains(view.name) {
                let row = try connection.prepare("SELECT header, records, count FROM prior.copies WHERE view = ?")
                try row.bind([.text(view.name)])
                if try row.step(), case .text(let held) = row.value(at: 1) {
                    let (header, count) = (row.value(at: 0), row.value(at: 2))
                    try RecordsFile.copy(held, into: table, connection) {
                        try entry.bind([.text(view.name), header, .text(table), count])
                        try entry.run()
                    }
                    continue
                }
                // Not in the prior file (it gave none then): made below.
            }
            guard let copy = make(state) else { continue }
            try RecordsFile.write(copy.records, into: table, connection) {
                try entry.bind([.text(view.name), .blob(copy.header), .text(table), .integer(Int64(copy.records.count))])
                try entry.run()
            }
        }
    }

    /// View `view`'s copy from the read model of the store at `storePath`, when the read
    /// model is current (`stamp`) and holds one; nil otherwise.
    package static func open(storePath: String, stamp: ReadModel.Stamp, view: String) -> HeldViewCopy? {
        (try? opening(storePath: storePath, stamp: stamp, view: view).get()) ?? nil
    }

    /// View `view`'s copy from the read model of the store at `storePath` when it is current
    /// (`stamp`) and its catalog and copies file are as its digests say (nil when it holds no
    /// copy of the view); else why it cannot answer.
    package static func opening(storePath: String, stamp: ReadModel.Stamp, view: String) -> Result<HeldViewCopy?, ReadModel.NotCurrent> {
        ReadModel.removeLeftovers(storePath: storePath)
        let directory = ReadModel.directory(of: storePath)
        if case .failure(let problem) = ReadModel.verify(directory: directory, stamp: stamp, reading: .copies) { return .failure(problem) }
        return .success(held(path: directory + "/" + fileName, view: view))
    }

    private static func held(path: String, view: String) -> HeldViewCopy? {
        guard let connection = try? SQLiteConnection(path: path, readOnly: true),
              let row = try? connection.prepare("SELECT header, records, count FROM copies WHERE view = ?"),
              (try? row.bind([.text(view)])) != nil, (try? row.step()) == true,
              case .blob(let header) = row.value(at: 0), case .text(let table) = row.value(at: 1),
              case .integer(let count) = row.value(at: 2) else { return nil }
        let reader = RecordsFile.Reader(connection: connection, table: table)
        return HeldViewCopy(header: header, count: Int(count)) { try reader.records(at: $0) }
    }
}
