import FetchlogCore
import Hummingbird

/// One route of the API: what the responder dispatches on, what a miss lists, and what
/// `/api/openapi.json` describes. `APIRoute.all` is the only list of routes, so the three
/// cannot disagree.
struct APIRoute: Sendable {
    enum Handler: Sendable { case page, status, views, view, items, log, event, diff, stream, fetch, pending, addItem, setItem, replaceItem, deleteItem, push, syncSchedule, sync, retry, discard, sql, sqlTables, sqlSave, openAPI }

    struct Parameter: Sendable {
        enum Location: String, Sendable { case path, query, header }
        let name: String
        let location: Location
        let type: String
        let required: Bool
        let description: String
        /// The bounds the responder enforces (anything outside is refused 400), stated so
        /// that a client (or a fuzzer) generated from the document knows them.
        var minimum: UInt64? = nil
        var maximum: UInt64? = nil
        /// The only values the responder takes (anything else is refused 400), when it names them.
        var values: [String]? = nil

        /// A seq: a whole number the responder reads as a UInt64 (`seq`, `from`, `at` …).
        func seq(from lowest: UInt64) -> Parameter { bounded(lowest, UInt64.max) }

        func bounded(_ lowest: UInt64, _ highest: UInt64) -> Parameter {
            var parameter = self
            parameter.minimum = lowest
            parameter.maximum = highest
            return parameter
        }
    }

    let handler: Handler
    let method: HTTPRequest.Method
    /// As OpenAPI writes it: `/api/views/{name}`.
    let path: String
    let summary: String
    var parameters: [Parameter] = []
    /// The last path parameter takes the rest of the path, slashes included (`show/1`).
    var lastTakesRest = false
    /// The members of a JSON request body: name, type, required, description.
    var body: [(String, String, Bool, String)]? = nil
    /// Bounds of body members the responder or the command refuses outside (400), by name:
    /// more schema keywords (`minLength`, `pattern`).
    var bodyBounds: [String: [(String, JSONValue)]] = [:]
    /// A body that is an item's fields (any members, one JSON object), described thus.
    var fieldsBody: String? = nil
    /// What a 200 answers, and as what.
    let answer: String
    var contentType = "application/json"
    /// Only with the action token (`Authorization: Bearer T`).
    var isAction = false
    /// The statuses of the refusals this route can answer (besides 401, 403, 414).
    var errors: [Int] = []

    static func queryParameter(_ name: String, _ type: String, _ description: String, required: Bool = false) -> Parameter {
        Parameter(name: name, location: .query, type: type, required: required, description: description)
    }

    static func pathParameter(_ name: String, _ type: String, _ description: String) -> Parameter {
        Parameter(name: name, location: .path, type: type, required: true, description: description)
    }

    static let itemParameters = [pathParameter("source", "string", "A source defined by a manifest."),
                                 pathParameter("resource", "string", "One of its resources, with writes declared.")]
    static let keyParameter = pathParameter("key", "string", "The item's primary key (or a created item's local:ID).")
    static let mutationParameter = pathParameter("id", "integer", "The mutation's id (GET /api/pending lists them).").seq(from: 1)
    static let mutationAnswer = "The mutation as `item … --format json` prints it (mutation, op, source, resource, key, state, fields, note): recorded at once, then sent; state pending while the upstream does not answer. A refusal records nothing: the CLI's message, exit 1."

    static let all: [APIRoute] = [
        APIRoute(handler: .page, method: .get, path: "/", summary: "The page: the log as a timeline, views, time travel.",
                 answer: "One self-contained HTML document (no other origin is named).", contentType: "text/html"),
        APIRoute(handler: .page, method: .get, path: "/index.html", summary: "The page, as at /.",
                 answer: "The same document as /.", contentType: "text/html"),
        APIRoute(handler: .status, method: .get, path: "/api/status", summary: "Freshness of every resource, as `status --format json`.",
                 answer: "An array with one object per resource."),
        APIRoute(handler: .views, method: .get, path: "/api/views", summary: "The names of the views `export` takes.",
                 answer: "An array of view names."),
        APIRoute(handler: .view, method: .get, path: "/api/views/{name}", summary: "A view as `export NAME [--at SEQ] --format json`, byte for byte; a saved view (CREATE VIEW) as {view, asOf, count, rows}.",
                 parameters: [pathParameter("name", "string", "The view (it may hold slashes: show/1, items/SOURCE/RESOURCE)."),
                              queryParameter("at", "integer", "The state as of this seq (time travel); 0 is the empty store.").seq(from: 0),
                              Parameter(name: "If-None-Match", location: .header, type: "string", required: false,
                                        description: "An ETag this view was answered with: 304 while it is unchanged.")],
                 lastTakesRest: true,
                 answer: "Canonical JSON; ETag is the SHA-256 of it. A saved view: {view, asOf, count, rows}, rows as objects in its column order, ETag the SHA-256 of that text. Before the compaction horizon, a view that reads a body `log compact` dropped is refused (410) as `export --at` refuses it, the notice in the Fetchlog-Notice header and the error. A saved view of more than 100,000 rows is refused (422: page it through /api/sql), one past the server's answer cap 413, one past its time limit 503.",
                 errors: [304, 400, 404, 410, 413, 422, 503]),
        APIRoute(handler: .items, method: .get, path: "/api/items/{source}/{resource}",
                 summary: "Items of a manifest resource, as `items SOURCE RESOURCE [TEXT] [--where C]… --limit N --page N --format json`.",
                 parameters: [pathParameter("source", "string", "A source defined by a manifest."), pathParameter("resource", "string", "One of its resources."),
                              queryParameter("q", "string", "Text searched (case-insensitive, partial) in the search fields."),
                              queryParameter("where", "string", "FIELD=VALUE (whole, case-insensitive; any element of a list) or FIELD=MIN..MAX; repeatable."),
                              queryParameter("limit", "integer", "Items a page, 1 to 1000 (20).").bounded(1, UInt64(APIResponder.maxLimit)),
                              queryParameter("page", "integer", "The page, from 1 (1).").bounded(1, UInt64(Int.max))],
                 answer: "An array of items.", errors: [400, 404]),
        APIRoute(handler: .log, method: .get, path: "/api/log", summary: "Event headers, as `log tail --format json` shows them.",
                 parameters: [queryParameter("from", "integer", "The first seq (1).").seq(from: 1),
                              queryParameter("limit", "integer", "At most this many, 1 to 1000 (100).").bounded(1, UInt64(APIResponder.maxLimit))],
                 answer: "An array of event headers (bodies by /api/events/SEQ).", errors: [400]),
        APIRoute(handler: .event, method: .get, path: "/api/events/{seq}", summary: "One event, as `log show SEQ --format json`.",
                 parameters: [pathParameter("seq", "integer", "The event's seq, from 1.").seq(from: 1)], answer: "The event with its body.", errors: [400, 404]),
        APIRoute(handler: .diff, method: .get, path: "/api/diff", summary: "What changed in a view between two seqs, as the shell's `diff FROM TO VIEW --format json`.",
                 parameters: [queryParameter("view", "string", "The view.", required: true), queryParameter("from", "integer", "The earlier seq (0 is the empty store).", required: true).seq(from: 0),
                              queryParameter("to", "integer", "The later seq.", required: true).seq(from: 0)],
                 answer: "An array of changes (change, path, before, after); [] when none.", errors: [400, 404, 410]),
        APIRoute(handler: .stream, method: .get, path: "/api/stream", summary: "Server-Sent Events: one per appended event (id: SEQ).",
                 parameters: [Parameter(name: "Last-Event-ID", location: .header, type: "integer", required: false,
                                        description: "Resume after this seq: every later event is sent first.").seq(from: 0)],
                 answer: "text/event-stream of `appended` events whose data is the header /api/log shows.", contentType: "text/event-stream",
                 errors: [400]),
        APIRoute(handler: .fetch, method: .post, path: "/api/fetch",
                 summary: "Fetch through the store, as `fetch SOURCE RESOURCE [VALUE]… [--pages P] --format json`; needs the action token.",
                 body: [("source", "string", true, "The source (fetch's SOURCE)."), ("resource", "string", true, "What to fetch (fetch's second word: census, shows, a manifest resource …)."),
                        ("values", "array", false, "Further words: an id, a text or an href."), ("pages", "string", false, "N, A-B or all.")],
                 // An empty source is refused before the command runs; `--pages` reads
                 // N, A-B (A ≤ B) or all, each number a whole number from 0.
                 bodyBounds: ["source": [("minLength", .number(1))],
                              "pages": [("pattern", .string("^(all|[0-9]{1,9}(-[0-9]{1,9})?)$"))]],
                 answer: "Every attempt as a record, as `fetch --format json` prints them; Fetchlog-Exit is the status the command ends with (1: nothing usable came back, Fetchlog-Notice says why).",
                 isAction: true, errors: [400, 404, 413, 415]),
        APIRoute(handler: .pending, method: .get, path: "/api/pending", summary: "The changes waiting to be sent, as `pending --format json`.",
                 answer: "An array of mutations in log order: id, op, source, resource, key, fields, state, attempts, lastStatus, lastMessage, server, idempotencyKey, inDoubt (sending, and its sender is gone: the next push sends it again), sender (the live push sending it: pid, doing, started), note."),
        APIRoute(handler: .addItem, method: .post, path: "/api/items/{source}/{resource}",
                 summary: "Create an item, as `item add SOURCE RESOURCE --json FILE --format json`: recorded at once, then sent; needs the action token.",
                 parameters: itemParameters, fieldsBody: "The item's fields, one JSON object ({\"title\": \"buy bread\"}).",
                 answer: mutationAnswer, isAction: true, errors: [400, 413, 415]),
        APIRoute(handler: .setItem, method: .patch, path: "/api/items/{source}/{resource}/{key}",
                 summary: "Change fields of an item, as `item set SOURCE RESOURCE KEY … --format json`; needs the action token.",
                 parameters: itemParameters + [keyParameter], fieldsBody: "The fields to change, one JSON object.",
                 answer: mutationAnswer, isAction: true, errors: [400, 413, 415]),
        APIRoute(handler: .replaceItem, method: .put, path: "/api/items/{source}/{resource}/{key}",
                 summary: "Replace an item, as `item set --replace SOURCE RESOURCE KEY … --format json`; needs the action token.",
                 parameters: itemParameters + [keyParameter], fieldsBody: "The item's fields, one JSON object (those not given go back to the server's defaults).",
                 answer: mutationAnswer, isAction: true, errors: [400, 413, 415]),
        APIRoute(handler: .deleteItem, method: .delete, path: "/api/items/{source}/{resource}/{key}",
                 summary: "Delete an item, as `item delete SOURCE RESOURCE KEY --format json`; needs the action token.",
                 parameters: itemParameters + [keyParameter], answer: mutationAnswer, isAction: true, errors: [400]),
        APIRoute(handler: .push, method: .post, path: "/api/push",
                 summary: "Send the changes waiting, as `push --format json`; needs the action token.",
                 answer: "The mutation ids by outcome (confirmed, conflicts, rejected, paused, failed, held), the push's lines, and waitedFor: the push it waited for (one pusher at a time per store), or null.",
                 isAction: true, errors: [409]),
        APIRoute(handler: .syncSchedule, method: .get, path: "/api/sync",
                 summary: "The sync schedule: when each resource is next refreshed, what backs off until when, and (with serve --sync) the loop's state.",
                 answer: "{now, loop, resources}: now the server's clock; loop null without serve --sync, else {running, passing (a pass under way), lastPass: null or {at, summary, requests, failed, nextDue}}; resources one object per resource sync keeps, in pass order: resource, level (fresh, stale, missing), due, nextRefresh (when it is next asked, now when due; null: never by age), backingOff, backoffUntil (while it fails: when its backoff, or its upstream's Retry-After, ends; else null), failures, pendingWrites, pages."),
        APIRoute(handler: .sync, method: .post, path: "/api/sync",
                 summary: "Run a sync pass now, as `sync --once --format json`: the waiting changes sent, every resource due revalidated; needs the action token.",
                 answer: "An array of rows, one a resource (and one a push): resource, outcome (fresh, refreshed, not-modified, pushed, failed, backing-off, missing), nextDue, requests, detail.",
                 isAction: true, errors: [409]),
        APIRoute(handler: .retry, method: .post, path: "/api/pending/{id}/retry",
                 summary: "Send a mutation again with the next push, as `pending retry ID [--force] --format json`; needs the action token.",
                 parameters: [mutationParameter], body: [("force", "boolean", false, "After a conflict: send the change over the server's version (false).")],
                 answer: "{mutation, state: queued, force}.", isAction: true, errors: [400, 404, 409, 415]),
        APIRoute(handler: .discard, method: .post, path: "/api/pending/{id}/discard",
                 summary: "Drop a mutation, as `pending discard ID --format json`; needs the action token.",
                 parameters: [mutationParameter], answer: "{mutation, state: discarded}.", isAction: true, errors: [400, 404]),
        APIRoute(handler: .sql, method: .get, path: "/api/sql",
                 summary: "One SQL query over the store's tables (every view, SOURCE.RESOURCE, events, saved views), as `sql QUERY [--at SEQ] [--confirmed] --format json`, paged.",
                 parameters: [queryParameter("q", "string", "The query: SELECT, WITH, VALUES or EXPLAIN (read-only; CREATE VIEW and DROP VIEW are POST /api/sql).", required: true),
                              queryParameter("at", "integer", "The state as of this seq (time travel); 0 is the empty store.").seq(from: 0),
                              Parameter(name: "confirmed", location: .query, type: "string", required: false,
                                        description: "1 (or true): manifest resources without the changes waiting to be sent; 0 (or false) the default.",
                                        values: ["1", "0", "true", "false"]),
                              queryParameter("limit", "integer", "Rows a page, 1 to 1000 (100).").bounded(1, UInt64(APIResponder.maxLimit)),
                              queryParameter("offset", "integer", "Rows skipped before the page, 0 to 1000000 (0).").bounded(0, UInt64(APIResponder.maxSQLOffset)),
                              queryParameter("timeout", "integer", "Seconds the query may run, 1 to 60 (10).").bounded(1, UInt64(APIResponder.maxSQLTimeout))],
                 answer: "{columns, rows, asOf, offset, limit, more}: rows are objects whose members are in the query's column order (as `sql --format json`), at most limit of them from offset; more is true when rows follow. A query past its time limit (wall clock, the page's conversion included) is refused 503, naming the limit; a page past the server's answer cap (serve --max-answer, 64 MiB) is refused 413, saying how to page.",
                 errors: [400, 404, 413, 503]),
        APIRoute(handler: .sqlSave, method: .post, path: "/api/sql",
                 summary: "Save or drop a view, as `sql \"CREATE VIEW name AS SELECT …\"` or `sql \"DROP VIEW name\"`: an event in the log; needs the action token.",
                 body: [("sql", "string", true, "CREATE VIEW [IF NOT EXISTS] name AS SELECT … or DROP VIEW [IF EXISTS] name.")],
                 bodyBounds: ["sql": [("minLength", .number(1))]],
                 answer: "{saved: NAME, seq} or {dropped: NAME, seq}, as `sql --format json` prints them; the view is then GET /api/views/NAME and a table of GET /api/sql.",
                 isAction: true, errors: [400, 413, 415, 503]),
        APIRoute(handler: .sqlTables, method: .get, path: "/api/sql/tables", summary: "The tables GET /api/sql reads and their columns, as `sql --tables --format json`.",
                 parameters: [queryParameter("at", "integer", "The tables as of this seq; 0 is the empty store.").seq(from: 0)],
                 answer: "An array of {table, kind (table or view), columns: [{name, type}], sql (its CREATE statement)}.", errors: [400, 404, 503]),
        APIRoute(handler: .openAPI, method: .get, path: "/api/openapi.json", summary: "This API, described in OpenAPI 3.1.",
                 answer: "An OpenAPI 3.1 document."),
    ]

    /// The distinct paths, in table order: what a miss lists.
    static var paths: [String] {
        var seen: Set<String> = []
        return all.map(\.path).filter { seen.insert($0).inserted }
    }

    /// The path parameters' raw (still percent-encoded) values when `rawPath` is this
    /// route's path, else nil.
    func match(_ rawPath: String) -> [String]? {
        let template = path.split(separator: "/", omittingEmptySubsequences: false)
        let given = rawPath.split(separator: "/", omittingEmptySubsequences: false)
        guard lastTakesRest ? given.count >= template.count : given.count == template.count else { return nil }
        var values: [String] = []
        for (index, part) in template.enumerated() {
            if part.hasPrefix("{") {
                values.append(lastTakesRest && index == template.count - 1 ? given[index...].joined(separator: "/") : String(given[index]))
            } else if part != given[index] {
                return nil
            }
        }
        return values
    }
}
