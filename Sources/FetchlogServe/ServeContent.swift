import FetchlogCore
import Foundation

/// What the API shows of the store, and how: the store (its snapshot, time travel and
/// maintenance door, never the log itself), the clock freshness is judged by, the CLI's
/// own rendering of an event header (so `/api/log` and `log tail --format json` cannot
/// drift apart), and the CLI's own answers to the questions only its commands know how
/// to answer (`items`, `diff`, `fetch`, `export`'s refusals).
package struct ServeContent: Sendable {
    package let store: Store
    package let clock: any WallClock
    package let eventHeader: @Sendable (Event) -> JSONValue
    package let answers: ServeAnswers
    /// `serve --sync`'s loop (nil without it): `GET /api/sync` reads its plan and state.
    package let sync: SyncDriver?
    /// The views' canonical exports by snapshot, and the event stream's hub (one per server).
    package let shared = ServeShared()
    /// The most bytes one SQL answer or saved view may hold here (`serve --max-answer`).
    package var maxAnswerBytes = ServeConfiguration.defaultMaxAnswerBytes

    package init(store: Store, clock: any WallClock, eventHeader: @escaping @Sendable (Event) -> JSONValue,
                 answers: ServeAnswers = ServeAnswers(), sync: SyncDriver? = nil) {
        self.store = store
        self.clock = clock
        self.eventHeader = eventHeader
        self.answers = answers
        self.sync = sync
    }
}

/// `items …`, `diff …` and `fetch …` as the CLI answers them: each closure runs the
/// command's own code and returns the text `--format json` prints, or throws the
/// `APIError` that carries the CLI's message and exit status. The CLI supplies them
/// (`fetchlog serve`); without it (a server built on the engine alone) those routes say
/// they are not available, and views are exported by the engine directly.
package struct ServeAnswers: Sendable {
    /// `export NAME` as of `state`: the document, or the CLI's refusal (bodies compacted away).
    package var export: @Sendable (_ name: String, _ state: LogState) throws -> JSONValue
    /// `items SOURCE RESOURCE [TEXT] [--where C]… --limit N --page N --format json`.
    package var items: @Sendable (_ state: LogState, _ question: ItemsQuestion) throws -> String
    /// `diff FROM TO VIEW --format json` (the shell's).
    package var diff: @Sendable (_ view: String, _ from: UInt64, _ to: UInt64) async throws -> String
    /// `fetch WORDS… --format json` through the store.
    package var fetch: @Sendable (_ words: [String]) async throws -> FetchAnswer
    /// `pending --format json` as of `state`.
    package var pending: @Sendable (_ state: LogState) throws -> String
    /// A write command (`item add|set|delete`, `push`, `pending retry|discard`) through the
    /// store, as its `--format json` prints it.
    package var write: @Sendable (_ action: WriteAction) async throws -> String
    /// A sync pass now (`sync --once --format json`'s rows), through the store.
    package var sync: @Sendable () async throws -> String

    /// Each answer not given is the engine's own (`export`) or says it is not available.
    package init(
        export: (@Sendable (_ name: String, _ state: LogState) throws -> JSONValue)? = nil,
        items: (@Sendable (_ state: LogState, _ question: ItemsQuestion) throws -> String)? = nil,
        diff: (@Sendable (_ view: String, _ from: UInt64, _ to: UInt64) async throws -> String)? = nil,
        fetch: (@Sendable (_ words: [String]) async throws -> FetchAnswer)? = nil,
        pending: (@Sendable (_ state: LogState) throws -> String)? = nil,
        write: (@Sendable (_ action: WriteAction) async throws -> String)? = nil,
        sync: (@Sendable () async throws -> String)? = nil
    ) {
        self.export = export ?? { name, state in
            do { return try ViewCatalog.export(name, state: state) } catch { throw APIError.notFound("\(error)") }
        }
        self.items = items ?? { _, _ in throw ServeAnswers.unavailable("items") }
        self.diff = diff ?? { _, _, _ in throw ServeAnswers.unavailable("diff") }
        self.fetch = fetch ?? { _ in throw ServeAnswers.unavailable("fetch") }
        self.pending = pending ?? { _ in throw ServeAnswers.unavailable("pending") }
        self.write = write ?? { _ in throw ServeAnswers.unavailable("writing") }
        self.sync = sync ?? { throw ServeAnswers.unavailable("sync") }
    }

    static func unavailable(_ what: String) -> APIError {
        APIError(status: .notImplemented, message: "\(what) is answered by the fetchlog command's code, which this server was built without: run fetchlog serve")
    }
}

/// What `/api/items/SOURCE/RESOURCE` asks: the words of `items`.
package struct ItemsQuestion: Sendable, Equatable {
    package var source: String
    package var resource: String
    /// Searched text (`q=`), empty for none.
    package var text: String
    /// `FIELD=VALUE` or `FIELD=MIN..MAX`, as `--where` takes them (`where=`, repeatable).
    package var conditions: [String]
    package var limit: Int
    package var page: Int
}

/// A fetch's report as `fetch --format json` prints it, and the status the command ends
/// with (1 when nothing usable came back, with `message` saying why).
package struct FetchAnswer: Sendable {
    package var text: String
    package var exit: Int32
    package var message: String?

    package init(text: String, exit: Int32, message: String?) {
        self.text = text
        self.exit = exit
        self.message = message
    }
}

/// A write the API was asked for: the words of `item add|set|delete`, `push` and
/// `pending retry|discard`, with an item's fields as the JSON object the body holds.
package enum WriteAction: Sendable {
    case add(source: String, resource: String, fields: [(String, JSONValue)])
    case set(source: String, resource: String, key: String, fields: [(String, JSONValue)], replace: Bool)
    case delete(source: String, resource: String, key: String)
    case push
    case retry(id: UInt64, force: Bool)
    case discard(id: UInt64)
}

