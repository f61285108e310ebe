import FetchlogCore
import Foundation
import Hummingbird

/// The reads: each answers what the CLI prints for the same question in `--format json`.
extension APIResponder {
    /// As `status --format json`: one object per resource, freshness judged now.
    func status() async throws -> JSONValue {
        let state = content.store.snapshot.state
        let report = FreshnessReport(state: state, policy: FreshnessPolicy(sources: state.sources), now: content.clock.now())
        return .array(report.rows.map(\.json))
    }

    /// As `export NAME [--at SEQ] --format json`, byte for byte, refused where `export`
    /// refuses (a view before the compaction horizon that reads a dropped body); the ETag
    /// is the SHA-256 of the canonical text (what `replay` prints), so a client that holds
    /// it gets 304.
    func view(_ name: String, query: QueryItems, ifNoneMatch: String?) async throws -> Response {
        guard !name.isEmpty else { throw APIError.notFound("no view named '': GET /api/views lists them") }
        let state = try self.state(at: query["at"])
        // A saved view (CREATE VIEW, issue 35) is answered by its query; Core's catalog
        // (and `export`) does not know them.
        let export: ViewCache.Canonical
        if let saved = Self.savedView(name, in: state) {
            export = try await savedView(saved, state: state, cached: query["at"] == nil)
        } else {
            // The store's snapshot from the cache (made once per snapshot, shared with the event
            // stream's view messages); a past state afresh. Either way by `export`'s own code.
            export = query["at"] == nil ? try content.shared.views.canonical(name, state: state, export: content.answers.export)
                                        : ViewCache.canonical(try content.answers.export(name, state))
        }
        let etag = export.etag
        if let ifNoneMatch, ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag || $0 == "*" }) {
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .eTag: etag], body: ResponseBody(byteBuffer: export.body))
    }

    /// As `items SOURCE RESOURCE [q] [--where C]… --limit N --page N --format json`.
    func items(source: String, resource: String, query: QueryItems) throws -> Response {
        let question = ItemsQuestion(source: source, resource: resource, text: query["q"] ?? "", conditions: query.all("where"),
                                     limit: try Self.count(query["limit"], name: "limit", default: 20, max: Self.maxLimit),
                                     page: try Self.count(query["page"], name: "page", default: 1, max: Int.max))
        return Self.response(try content.answers.items(content.store.snapshot.state, question), contentType: "application/json; charset=utf-8")
    }

    /// As the shell's `diff FROM TO VIEW --format json`.
    func diff(_ query: QueryItems) async throws -> Response {
        guard let view = query["view"], let from = query["from"], let to = query["to"] else {
            throw APIError.badRequest("diff needs view=NAME, from=SEQ and to=SEQ (GET /api/views lists the views)")
        }
        let a = try Self.seq(from, name: "from", allowZero: true), b = try Self.seq(to, name: "to", allowZero: true)
        return Self.response(try await content.answers.diff(view, a, b), contentType: "application/json; charset=utf-8")
    }

    /// Event headers from `from` on, at most `limit`, as `log tail --format json` shows them.
    func log(_ query: QueryItems) throws -> JSONValue {
        let from = try query["from"].map { try Self.seq($0, name: "from") } ?? 1
        let limit = try Self.count(query["limit"], name: "limit", default: 100, max: Self.maxLimit)
        let last = try lastSeq()
        guard from <= last else { return .array([]) }
        let end = min(last, from + UInt64(limit) - 1)
        return .array(try (from...end).map { content.eventHeader(try event(at: $0)) })
    }

    /// The store's snapshot, or the state as of `at` (a seq from 0, not past the log's end).
    func state(at: String?) throws -> LogState {
        guard let at else { return content.store.snapshot.state }
        let seq = try Self.seq(at, name: "at", allowZero: true)
        let last = try lastSeq()
        guard seq <= last else { throw APIError.notFound("at=\(seq) is past the end of the log (seq \(last))") }
        do { return try content.store.state(asOf: seq) } catch { throw APIError(status: .internalServerError, message: "\(error)") }
    }

    func lastSeq() throws -> UInt64 {
        do { return try content.store.maintenance.lastSeq() } catch { throw APIError(status: .internalServerError, message: "cannot read the log: \(error)") }
    }

    func event(at seq: UInt64) throws -> Event {
        let last = try lastSeq()
        guard seq <= last else { throw APIError.notFound("no event \(seq): the log holds seq 1…\(last)") }
        do { return try content.store.maintenance.event(at: seq) } catch { throw APIError(status: .internalServerError, message: "cannot read event \(seq): \(error)") }
    }

    // MARK: parameters

    static func seq(_ text: String, name: String, allowZero: Bool = false) throws -> UInt64 {
        guard let seq = UInt64(text), allowZero || seq > 0 else {
            throw APIError.badRequest("\(name) '\(text.prefix(40))' is not a seq: give a whole number from \(allowZero ? 0 : 1) (log stats shows the last)")
        }
        return seq
    }

    /// A count from 1 to `max`, or `default` when not given.
    static func count(_ text: String?, name: String, default value: Int, max: Int) throws -> Int {
        guard let text else { return value }
        guard let n = Int(text), (1...max).contains(n) else {
            throw APIError.badRequest("\(name)=\(text.prefix(40)) is not a count from 1\(max == Int.max ? " on" : " to \(max)")")
        }
        return n
    }
}

/// Query items, percent-decoded (`+` as space). A repeated key is refused rather than
/// guessed, except `where`, which is a list (as `--where` is repeatable).
struct QueryItems {
    static let repeatable: Set<String> = ["where"]
    private var values: [String: [String]] = [:]

    init(parsing query: String) throws {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) throws -> String {
                let plain = s.replacingOccurrences(of: "+", with: " ")
                guard let decoded = plain.removingPercentEncoding else { throw APIError.badRequest("the query part '\(s.prefix(40))' is not valid percent-encoding") }
                return decoded
            }
            let key = try decode(parts[0])
            guard values[key] == nil || Self.repeatable.contains(key) else { throw APIError.badRequest("the query gives \(key) twice: give it once") }
            values[key, default: []].append(parts.count > 1 ? try decode(parts[1]) : "")
        }
    }

    subscript(key: String) -> String? { values[key]?.first }

    func all(_ key: String) -> [String] { values[key] ?? [] }
}
