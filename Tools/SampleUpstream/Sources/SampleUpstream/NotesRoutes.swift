import Foundation

/// catalog notes: the writable part of the catalog, for offline writes (mutations sent
/// exactly once). Everything a careful REST API does with writes, so a client can be
/// tested against it: validation, entity tags with `If-Match`, `Idempotency-Key` (the IETF
/// httpapi draft: a repeated key gets the stored answer, nothing is applied twice), a
/// uniqueness conflict, and a fault that applies a write and then drops the connection.
///
///     GET    /catalog/notes        {"data":[note…]} in id order (validators as every route)
///     GET    /catalog/notes/{id}   the note; its ETag is its body's
///     POST   /catalog/notes        create from a JSON object: 201, Location, ETag, the note
///     PATCH  /catalog/notes/{id}   change the fields given: 200, ETag, the note
///     PUT    /catalog/notes/{id}   replace (title required; the rest back to defaults): 200
///     DELETE /catalog/notes/{id}   204
///
/// A note is `{"id":N,"title":T,"done":B,"priority":P,"version":V}`. Fields a client may
/// write: `title` (a string of 1–200 characters, unique: 409 when another note has it),
/// `done` (a boolean), `priority` (an integer 1–5); anything else, or a wrong type, is 422
/// naming the field. `If-Match` that is not the note's current ETag (or `*`) is 412 with
/// the current note and its ETag. A missing note is 404. The server's state lives while it
/// runs (`SampleUpstream.resetNotes()` restores the three notes it starts with).
enum NotesRoutes {
    /// Whether `rest` (the path after `/catalog`) is one of these routes.
    static func handles(_ rest: String) -> Bool { rest == "/notes" || rest.hasPrefix("/notes/") }

    /// A read (`GET`/`HEAD`): answered like every route, the server adding validators.
    static func read(_ rest: String, book: NotesBook, fullPath: String) -> RouteResult {
        if rest == "/notes" {
            return .ok(Data(#"{"data":[\#(book.notes.values.sorted { $0.id < $1.id }.map(\.json).joined(separator: ","))]}"#.utf8))
        }
        guard let id = noteID(rest) else { return .notFoundRoute(fullPath) }
        guard let note = book.notes[id] else { return .error(404, JSONBody.encode(["error": "no note \(id)", "path": fullPath])) }
        return .ok(Data(note.json.utf8))
    }

    static func noteID(_ rest: String) -> Int? {
        let parts = rest.split(separator: "/")
        guard parts.count == 2, parts[0] == "notes", let id = Int(parts[1]), id > 0 else { return nil }
        return id
    }
}

/// One note of the writable catalog.
struct Note: Sendable, Equatable {
    var id: Int
    var title: String
    var done = false
    var priority = 3
    /// Bumped by every change, so a changed note has another body and another ETag.
    var version = 1

    var json: String {
        #"{"id":\#(id),"title":\#(JSONBody.quote(title)),"done":\#(done),"priority":\#(priority),"version":\#(version)}"#
    }
    var etag: String { Validators.etag(for: Data(json.utf8)) }
}

/// A write's request as the server received it.
struct NoteWrite: Sendable {
    var method: String
    /// The path after `/catalog`.
    var rest: String
    var fullPath: String
    var headers: [String: String]
    var body: Data
}

/// A write's answer: status, headers, body, and whether it changed anything.
struct NoteAnswer: Sendable, Equatable {
    var status: Int
    var headers: [String: String] = [:]
    var body: Data = Data()
}

/// A write the server applied (a replayed `Idempotency-Key` applies nothing and adds none):
/// what the exactly-once trials count.
public struct AppliedWrite: Sendable, Equatable, Codable {
    public var method: String
    public var path: String
    /// The request's `Idempotency-Key`, if it sent one.
    public var key: String?
    public var status: Int
}

/// The notes and what the server remembers of writes, changed only by `apply` (in the
/// server's actor, so writes are applied one at a time).
struct NotesBook: Sendable {
    var notes: [Int: Note] = NotesBook.initial
    var nextID = 4
    /// Answers stored by `Idempotency-Key`, with the request they answered (method, path, body).
    var answered: [String: (request: String, answer: NoteAnswer)] = [:]
    var applied: [AppliedWrite] = []
    /// Writes applied per note (by id: a create counts for the note it made), the same
    /// writes as `applied`: a note changed twice by one mutation shows 2.
    var appliedPerNote: [Int: Int] = [:]

    static let initial: [Int: Note] = [
        1: Note(id: 1, title: "buy milk", done: false, priority: 2),
        2: Note(id: 2, title: "call the plumber", done: true, priority: 1),
        3: Note(id: 3, title: "write the report", done: false, priority: 4),
    ]

    /// `honouringKeys` false: the server ignores `Idempotency-Key`, as most real APIs do
    /// (issue 33): a repeated key is applied again; only the header is noted in `applied`.
    mutating func apply(_ write: NoteWrite, honouringKeys: Bool = true) -> NoteAnswer {
        let sent = write.headers["idempotency-key"]
        let key = honouringKeys ? sent : nil
        let fingerprint = write.method + " " + write.rest + " " + String(decoding: write.body, as: UTF8.self)
        if let key, let stored = answered[key] {
            guard stored.request == fingerprint else {
                return refuse(422, "Idempotency-Key \(key) was used for another request (\(stored.request.prefix(80))): use a new key for a new request", write)
            }
            var replayed = stored.answer
            replayed.headers["Idempotent-Replayed"] = "true"
            return replayed
        }
        let answer = answer(write)
        // Server errors are not stored (the draft: a retry may succeed); every other answer is.
        if let key, answer.status < 500 { answered[key] = (fingerprint, answer) }
        if (200 ..< 300).contains(answer.status) {
            applied.append(AppliedWrite(method: write.method, path: write.fullPath, key: sent, status: answer.status))
            let id = NotesRoutes.noteID(write.rest) ?? (nextID - 1)
            appliedPerNote[id, default: 0] += 1
        }
        return answer
    }

    private mutating func answer(_ write: NoteWrite) -> NoteAnswer {
        if !write.body.isEmpty, let type = write.headers["content-type"], !type.hasPrefix("application/json"), !type.hasPrefix("application/merge-patch+json") {
            return refuse(415, "send JSON, not \(type)", write)
        }
        if write.rest == "/notes" {
            guard write.method == "POST" else { return refuse(405, "POST a note here; PATCH, PUT or DELETE /catalog/notes/{id}", write) }
            var note = Note(id: nextID, title: "")
            if let refused = fill(&note, from: write, requireTitle: true) { return refused }
            nextID += 1
            notes[note.id] = note
            return NoteAnswer(status: 201, headers: ["ETag": note.etag, "Location": "/catalog/notes/\(note.id)", "Content-Type": RouteResult.jsonContentType],
                              body: Data(note.json.utf8))
        }
        guard let id = NotesRoutes.noteID(write.rest) else { return refuse(404, "no such route", write) }
        guard var note = notes[id] else { return refuse(404, "no note \(id)", write) }
        if let ifMatch = write.headers["if-match"], ifMatch.trimmingCharacters(in: .whitespaces) != "*",
           !ifMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == note.etag }) {
            return NoteAnswer(status: 412, headers: ["ETag": note.etag, "Content-Type": RouteResult.jsonContentType],
                              body: Data(#"{"error":\#(JSONBody.quote("note \(id) changed since \(ifMatch): its current version is in current")),"current":\#(note.json)}"#.utf8))
        }
        switch write.method {
        case "PATCH", "PUT":
            if write.method == "PUT" { note = Note(id: id, title: "", version: note.version) }
            if let refused = fill(&note, from: write, requireTitle: write.method == "PUT") { return refused }
            note.version += 1
            notes[id] = note
            return NoteAnswer(status: 200, headers: ["ETag": note.etag, "Content-Type": RouteResult.jsonContentType], body: Data(note.json.utf8))
        case "DELETE":
            notes[id] = nil
            return NoteAnswer(status: 204)
        default:
            return refuse(405, "PATCH, PUT or DELETE a note", write)
        }
    }

    /// Sets the fields `write`'s JSON object gives; an answer when it is refused.
    private func fill(_ note: inout Note, from write: NoteWrite, requireTitle: Bool) -> NoteAnswer? {
        guard let object = try? JSONDecoder().decode([String: FieldValue].self, from: write.body) else {
            return refuse(400, "the body must be a JSON object, e.g. {\"title\":\"buy bread\"}", write)
        }
        for (field, value) in object.sorted(by: { $0.key < $1.key }) {
            switch field {
            case "title":
                guard case .string(let title) = value, (1 ... 200).contains(title.count) else {
                    return invalid("title", "a string of 1 to 200 characters", write)
                }
                if let other = notes.values.first(where: { $0.title == title && $0.id != note.id }) {
                    return refuse(409, "note \(other.id) is already titled \(JSONBody.quote(title)): titles are unique", write)
                }
                note.title = title
            case "done":
                guard case .bool(let done) = value else { return invalid("done", "true or false", write) }
                note.done = done
            case "priority":
                guard case .number(let number) = value, let priority = Int(exactly: number), (1 ... 5).contains(priority) else {
                    return invalid("priority", "an integer from 1 to 5", write)
                }
                note.priority = priority
            case "id", "version":
                return invalid(field, "set by the server, not written", write)
            default:
                return invalid(field, "not a field of a note (title, done, priority)", write)
            }
        }
        if requireTitle, note.title.isEmpty { return invalid("title", "required", write) }
        return nil
    }

    private func invalid(_ field: String, _ expected: String, _ write: NoteWrite) -> NoteAnswer {
        NoteAnswer(status: 422, headers: ["Content-Type": RouteResult.jsonContentType],
                   body: JSONBody.encode(["error": "\(field): \(expected)", "field": field, "path": write.fullPath]))
    }

    private func refuse(_ status: Int, _ message: String, _ write: NoteWrite) -> NoteAnswer {
        NoteAnswer(status: status, headers: ["Content-Type": RouteResult.jsonContentType], body: JSONBody.encode(["error": message, "path": write.fullPath]))
    }
}

/// A JSON value of a write's body, as strict as JSON is: `true` is no number, `1` no boolean.
enum FieldValue: Decodable {
    case bool(Bool), number(Double), string(String), other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) { self = .bool(bool) }
        else if let number = try? container.decode(Double.self) { self = .number(number) }
        else if let string = try? container.decode(String.self) { self = .string(string) }
        else { self = .other }
    }
}
