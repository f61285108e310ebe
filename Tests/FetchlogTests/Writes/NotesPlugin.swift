import FetchlogCore
import Foundation

// Issue 26: writes declared through the plug-in API. A plug-in for the sample upstream's
// writable notes, defined in the test target on the engine's public API (`import
// FetchlogCore`, not `@testable`), as a user's plug-in would be: it reads the notes and
// declares, in `writes(for:)`, how they are created, changed and deleted upstream.

/// `GET /notes` → `{"data":[note…]}`, `GET /notes/{id}` → the note; each body decodes to
/// the notes it holds, as JSON.
struct NotesDocument: SourceDocument, Equatable {
    var notes: [JSONValue]
}

struct NotesPlugin: SourcePlugin {
    /// The sample upstream serves the notes under `/catalog` (`BASE/catalog/notes`).
    var source: Source { Source("catalog") }
    var summary: String { "the sample upstream's notes, changed through a plug-in (a test)" }
    var realBase: String { "https://catalog.example" }

    static let list = DocumentKind("catalog.notes")
    static let note = DocumentKind("catalog.note")
    static let notes = Resource(source: Source("catalog"), path: "/notes", document: list)

    func documentKind(ofPath path: String) -> DocumentKind? {
        if path == "/notes" { return Self.list }
        if path.hasPrefix("/notes/") { return Self.note }
        return nil
    }

    func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        guard let json = try? JSONValue.parse(bytes: body) else { throw DecodeError(path: "$", reason: "not JSON") }
        switch kind {
        case Self.list:
            guard case .array(let notes)? = json["data"] else { throw DecodeError(path: "$.data", reason: "not a list of notes") }
            return NotesDocument(notes: notes)
        case Self.note:
            guard case .object = json else { throw DecodeError(path: "$", reason: "not a note") }
            return NotesDocument(notes: [json])
        default:
            throw DecodeError(path: "$", reason: "catalog has no kind \(kind)")
        }
    }

    /// The notes are written as the sample upstream's routes take them; nothing else is.
    /// (The article "Writing offline" shows this plug-in: `PluginWritesTests` keeps the two in step.)
    func writes(for resource: String) -> ResourceWrites? {
        guard resource == "notes" else { return nil }
        return ResourceWrites(key: ["id"], create: "POST /notes", update: "PATCH /notes/{id}",
                              replace: "PUT /notes/{id}", delete: "DELETE /notes/{id}") { document in
            (document as? NotesDocument)?.notes
        }
    }
}

/// A plug-in whose declaration does not hold together: its update's path names a field
/// that is not the key.
struct MisdeclaredNotesPlugin: SourcePlugin {
    var source: Source { Source("jotter") }
    var realBase: String { "https://jotter.example" }
    func documentKind(ofPath path: String) -> DocumentKind? { nil }
    func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        throw DecodeError(path: "$", reason: "jotter reads nothing")
    }
    func writes(for resource: String) -> ResourceWrites? {
        ResourceWrites(key: ["id"], update: "PATCH /notes/{nid}") { _ in nil }
    }
}
