import FetchlogCore
import Foundation

extension Store {
    /// Runs one SQL statement over the store's tables (issue 35): every view (`shows`,
    /// `status`, `events`, a plug-in's views, …), each manifest resource as `SOURCE.RESOURCE`, the log as
    /// `events`, and the saved views.
    ///
    /// ```swift
    /// let answer = try await store.sql("SELECT kind, count(*) AS n FROM events GROUP BY kind ORDER BY n DESC")
    /// for row in answer.rows { print(row) }
    /// ```
    ///
    /// A query (SELECT, WITH, VALUES, EXPLAIN) reads the latest snapshot, or the state as of
    /// `at`; `confirmed` leaves pending changes out of manifest resources. It runs read-only
    /// (anything that would write is refused: ``SQLError/Kind-swift.enum/refused``) for at most
    /// `timeLimit`; cancelling the calling task interrupts it.
    ///
    /// `CREATE VIEW name AS SELECT …` and `DROP VIEW name` save and drop a view: each is an
    /// event in the log, so replay, time travel, merged logs and replicas know the view. They
    /// answer with no rows, as of the event's seq (or the head's, when `IF NOT EXISTS` or
    /// `IF EXISTS` left the log as it was); ``sqlView(_:)`` says which happened.
    public func sql(_ statement: String, at seq: UInt64? = nil, confirmed: Bool = false,
                    timeLimit: Duration = .seconds(10)) async throws -> SQLAnswer {
        switch SQLText.classify(statement) {
        case .createView:
            if seq != nil { throw SQLError(.refused, "a view is saved at the head of the log, not --at a seq") }
            return SQLAnswer(columns: [], rows: [], asOf: try await sqlView(statement).asOf)
        case .dropView:
            if seq != nil { throw SQLError(.refused, "a view is dropped at the head of the log, not --at a seq") }
            return SQLAnswer(columns: [], rows: [], asOf: try await sqlView(statement).asOf)
        default:
            let state = try seq.map { try self.state(asOf: $0) } ?? snapshot.state
            return try await sqlQuery(statement, state: state, confirmed: confirmed, bounds: SQLEngine.Bounds(time: timeLimit))
        }
    }

    /// Runs `CREATE VIEW [IF NOT EXISTS] name AS SELECT …` or `DROP VIEW [IF EXISTS] name`
    /// and says what it did (``SavedViewChange``): saved or dropped (an event appended), or
    /// nothing — the view exists (`IF NOT EXISTS`), or there is none (`IF EXISTS`).
    ///
    /// A name that would read as another is refused (``SQLError/Kind-swift.enum/refused``):
    /// a table's, a schema's, a source's or resource's, `events`, `sqlite_…`, another saved
    /// view's (compared after Unicode NFKC and case folding), or one holding `.`, `/`,
    /// whitespace or an invisible character (zero-width, bidirectional, control).
    public func sqlView(_ statement: String) async throws -> SavedViewChange {
        switch SQLText.classify(statement) {
        case .createView(let name, let select, let ifNotExists):
            let state = snapshot.state
            // A view of this very name (as SQLite compares names) exists: said below, not refused as taken.
            try SavedViewName.validate(name, against: SavedViewName.taken(in: state, except: name))
            if let existing = state.savedViews[name] ?? state.savedViews.values.sorted(by: { $0.seq < $1.seq }).first(where: { SavedViewName.sameToSQLite($0.name, name) }) {
                if ifNotExists { return SavedViewChange(.exists, name: existing.name, seq: existing.seq, asOf: state.seq) }
                throw SQLError(.invalid, "a saved view named '\(existing.name)' exists (seq \(existing.seq)): DROP VIEW \(existing.name) first, or CREATE VIEW IF NOT EXISTS")
            }
            _ = try await SQLService.of(self).run { engine in try engine.validateView(name: name, select: select, state: state) }
            try await sendIntent(source: Source(SavedViews.source), label: SavedViews.savedLabel, body: SavedViews.savedBody(name: name, sql: select))
            let seq = snapshot.seq
            return SavedViewChange(.saved, name: name, seq: seq, asOf: seq)
        case .dropView(let name, let ifExists):
            let state = snapshot.state
            // Its exact name first, else as SQLite compares names (the first saved); a view the
            // name rule leaves out of SQL (saved before it) is dropped by its name too.
            guard let view = state.savedViews[name] ?? state.savedViews.values.sorted(by: { $0.seq < $1.seq }).first(where: { SavedViewName.sameToSQLite($0.name, name) }) else {
                if ifExists { return SavedViewChange(.absent, name: name, seq: nil, asOf: state.seq) }
                let saved = state.savedViews.keys.sorted()
                throw SQLError(.invalid, "no saved view named '\(name)'\(Suggest.didYouMean(name, saved)); "
                    + (saved.isEmpty ? "there are none" : "saved views: " + saved.joined(separator: ", ")) + ". Tables that are views of the log cannot be dropped")
            }
            try await sendIntent(source: Source(SavedViews.source), label: SavedViews.droppedLabel, body: SavedViews.droppedBody(name: view.name))
            let seq = snapshot.seq
            return SavedViewChange(.dropped, name: name, seq: seq, asOf: seq)
        case .empty:
            throw SQLError(.refused, "no SQL statement given")
        case .query, .other:
            throw SQLError(.refused, "sqlView takes CREATE VIEW name AS SELECT … or DROP VIEW name; a query is sql(_:)")
        }
    }

    /// The rows of `query` decoded into `T`, each row an object of column name → value (as
    /// `SQLAnswer/json`), so `T`'s coding keys are the query's column names.
    public func sql<T: Decodable>(_ query: String, as type: T.Type, at seq: UInt64? = nil, confirmed: Bool = false,
                                  decoder: JSONDecoder = JSONDecoder()) async throws -> [T] {
        let answer = try await sql(query, at: seq, confirmed: confirmed)
        return try decoder.decode([T].self, from: Data(answer.json.canonicalText().utf8))
    }

    /// The answer to `query` now and each time it changes — as GRDB's `ValueObservation`: a
    /// snapshot that leaves the answer as it was yields nothing. Ends with the query's error
    /// (a saved view dropped, a table gone); cancel the consuming task to stop.
    public func observe(sql query: String, confirmed: Bool = false) -> AsyncThrowingStream<SQLAnswer, any Error> {
        let (stream, continuation) = AsyncThrowingStream<SQLAnswer, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let snapshots = snapshots()
        let service = SQLService.of(self)
        let task = Task {
            var last: SQLAnswer?
            for await snapshot in snapshots {
                let state = confirmed ? snapshot.state.confirmedOnly : snapshot.state
                do {
                    let answer = try await service.run { engine in try engine.query(query, state: state, confirmed: confirmed) }
                    if answer.columns != last?.columns || answer.rows != last?.rows { continuation.yield(answer) }
                    last = answer
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

extension Store {
    /// A query over the state now (or as of `seq`), each row handed to `row` as SQLite
    /// yields it, on the SQL engine's thread, one call after another, after `columns` gets
    /// the column names: nothing is held, so memory does not grow with the answer (issue 44).
    /// `bounds`: its time (wall clock, the callbacks' own time included), rows and bytes.
    /// Returns how many rows were handed over, whether more followed, and the seq it is as of.
    package func sqlStream(_ statement: String, at seq: UInt64? = nil, confirmed: Bool = false, bounds: SQLEngine.Bounds,
                           columns: @escaping @Sendable ([String]) throws -> Void,
                           row: @escaping @Sendable ([JSONValue]) throws -> Void) async throws -> SQLStreamed {
        let state = try seq.map { try self.state(asOf: $0) } ?? snapshot.state
        return try await sqlStream(statement, state: state, confirmed: confirmed, bounds: bounds, columns: columns, row: row)
    }

    /// `sqlStream` over `state`.
    package func sqlStream(_ statement: String, state: LogState, confirmed: Bool = false, bounds: SQLEngine.Bounds,
                           columns: @escaping @Sendable ([String]) throws -> Void,
                           row: @escaping @Sendable ([JSONValue]) throws -> Void) async throws -> SQLStreamed {
        let subject = SQLSubject(state: confirmed ? state.confirmedOnly : state, confirmed: confirmed)
        return try await SQLService.of(self).run { engine in
            let handed = try engine.stream(statement, subject: subject, bounds: bounds, columns: columns, row: row)
            return SQLStreamed(rows: handed.rows, more: handed.more, asOf: subject.seq)
        }
    }

    /// A query (never CREATE or DROP VIEW: those are refused) over `state` within `bounds`,
    /// its rows held: `Store.sql`, and a saved view's evaluation (replay, export,
    /// `/api/views`), which takes no more than its bounds anywhere.
    package func sqlQuery(_ statement: String, state: LogState, confirmed: Bool = false,
                          bounds: SQLEngine.Bounds = SQLEngine.Bounds()) async throws -> SQLAnswer {
        let subject = SQLSubject(state: confirmed ? state.confirmedOnly : state, confirmed: confirmed)
        return try await SQLService.of(self).run { engine in try engine.answer(statement, subject: subject, bounds: bounds) }
    }
}

/// A table as `.tables` and `.schema` describe it.
package typealias SQLTableDescription = SQLEngine.TableDescription

extension Store {
    /// Every table (or `only`) over `state` with its columns: `sql --tables`, `.schema`, completion.
    package func sqlTables(_ only: String? = nil, state: LogState, confirmed: Bool = false) async throws -> [SQLTableDescription] {
        let asked = confirmed ? state.confirmedOnly : state
        return try await SQLService.of(self).run { engine in try engine.describe(only, state: asked, confirmed: confirmed) }
    }
}

extension Store {
    /// Saved view `name`'s rows as of `state`, within `SavedViewBounds` (`bytes` its byte cap).
    package func savedViewAnswer(_ name: String, state: LogState, confirmed: Bool = false, bytes: Int = SavedViewBounds.bytes,
                                 rows: Int? = nil) async throws -> SQLAnswer {
        // One SQL leaves out (its name now reads as a table's): `SELECT * FROM name` would
        // answer that table, not the view.
        if let refusal = SavedViewName.refusal(of: name, in: state) { throw SQLError(.invalid, refusal) }
        return try await sqlQuery(SavedViewBounds.select(name), state: state, confirmed: confirmed, bounds: SavedViewBounds.bounds(bytes: bytes, rows: rows))
    }
}
