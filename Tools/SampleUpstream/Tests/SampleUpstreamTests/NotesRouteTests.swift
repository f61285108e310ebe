import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
@testable import SampleUpstream

/// The catalog's writable notes: what an offline-writes client is tested against.
@Suite struct NotesRouteTests {
    static let json = [("Content-Type", "application/json")]

    @Test func createChangeReplaceAndDeleteANote() async throws {
        try await withServer { h in
            let list = try await h.get("/catalog/notes")
            #expect(String(decoding: list.body, as: UTF8.self) == #"{"data":[{"id":1,"title":"buy milk","done":false,"priority":2,"version":1},"#
                + #"{"id":2,"title":"call the plumber","done":true,"priority":1,"version":1},{"id":3,"title":"write the report","done":false,"priority":4,"version":1}]}"#)

            let created = try await h.send(.POST, "/catalog/notes", body: #"{"title":"buy bread","priority":5}"#, headers: Self.json)
            #expect(created.status == 201)
            #expect(created.header("Location") == "/catalog/notes/4")
            let createdBody = #"{"id":4,"title":"buy bread","done":false,"priority":5,"version":1}"#
            #expect(String(decoding: created.body, as: UTF8.self) == createdBody)
            #expect(created.header("ETag") == Validators.etag(for: Data(createdBody.utf8)))

            // The note reads back with the ETag its write answered with.
            let read = try await h.get("/catalog/notes/4")
            #expect(read.status == 200)
            #expect(read.header("ETag") == created.header("ETag"))

            let patched = try await h.send(.PATCH, "/catalog/notes/4", body: #"{"done":true}"#,
                                           headers: Self.json + [("If-Match", created.header("ETag")!)])
            #expect(patched.status == 200)
            #expect(String(decoding: patched.body, as: UTF8.self) == #"{"id":4,"title":"buy bread","done":true,"priority":5,"version":2}"#)

            let replaced = try await h.send(.PUT, "/catalog/notes/4", body: #"{"title":"buy rye bread"}"#, headers: Self.json)
            #expect(String(decoding: replaced.body, as: UTF8.self) == #"{"id":4,"title":"buy rye bread","done":false,"priority":3,"version":3}"#)

            let deleted = try await h.send(.DELETE, "/catalog/notes/4", headers: [("If-Match", replaced.header("ETag")!)])
            #expect(deleted.status == 204)
            #expect(try await h.get("/catalog/notes/4").status == 404)
            #expect(try await h.send(.DELETE, "/catalog/notes/4").status == 404)
            #expect(await h.server.appliedWrites.map(\.method) == ["POST", "PATCH", "PUT", "DELETE"])
        }
    }

    @Test func aStaleIfMatchIs412WithTheCurrentNote() async throws {
        try await withServer { h in
            let first = try await h.get("/catalog/notes/1")
            // Another client changes the note.
            _ = try await h.send(.PATCH, "/catalog/notes/1", body: #"{"priority":1}"#, headers: Self.json)
            let stale = try await h.send(.PATCH, "/catalog/notes/1", body: #"{"done":true}"#,
                                         headers: Self.json + [("If-Match", first.header("ETag")!)])
            #expect(stale.status == 412)
            let current = #"{"id":1,"title":"buy milk","done":false,"priority":1,"version":2}"#
            #expect((stale.object["current"] as? [String: Any])?["version"] as? Int == 2)
            #expect(stale.object["error"] as? String == "note 1 changed since \(first.header("ETag")!): its current version is in current")
            #expect(stale.header("ETag") == Validators.etag(for: Data(current.utf8)))
            #expect(await h.server.notes[1] == current)
            let deleteStale = try await h.send(.DELETE, "/catalog/notes/1", headers: [("If-Match", first.header("ETag")!)])
            #expect(deleteStale.status == 412)
            #expect(try await h.send(.DELETE, "/catalog/notes/1", headers: [("If-Match", "*")]).status == 204)
        }
    }

    /// A client killed while its write was on the way (the exactly-once kill trials found
    /// it): the head arrived, the body did not arrive whole. The server applies nothing and
    /// stores no answer under the key, as an HTTP server does with an incomplete request —
    /// before, the missing body was read as an empty one, its 400 stored under the key, and
    /// the client's resend with the same key refused with 422 ("used for another request").
    @Test func aWriteWhoseBodyNeverArrivedWholeAppliesNothingAndKeepsItsKeyFree() async throws {
        try await withServer { h in
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(h.base.port!).bigEndian)
            let connected = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            #expect(connected == 0)
            let body = #"{"priority":5}"#
            let head = "PATCH /catalog/notes/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Idempotency-Key: store-a:9\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body.prefix(5)
            #expect(Array(head.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == head.utf8.count)
            // Received (the head), then the client is gone before the rest of the body.
            while await h.server.receivedPaths != ["/catalog/notes/1"] { try await Task.sleep(for: .milliseconds(5)) }
            close(fd)
            while await h.server.requestLog.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
            #expect(await h.server.requestLog.map { "\($0.method) \($0.path) \($0.status)" } == ["PATCH /catalog/notes/1 0"])
            #expect(await h.server.appliedWrites.isEmpty)

            // The resend, whole, with the same key: applied, once.
            let resent = try await h.send(.PATCH, "/catalog/notes/1", body: body, headers: Self.json + [("Idempotency-Key", "store-a:9")])
            #expect(resent.status == 200)
            #expect(String(decoding: resent.body, as: UTF8.self) == #"{"id":1,"title":"buy milk","done":false,"priority":5,"version":2}"#)
            #expect(await h.server.appliedWrites == [AppliedWrite(method: "PATCH", path: "/catalog/notes/1", key: "store-a:9", status: 200)])
        }
    }

    /// Switched to ignore `Idempotency-Key` (as most real APIs do, issue 33): a repeated
    /// request is applied again, and the per-note count shows it.
    @Test func aServerIgnoringIdempotencyKeysAppliesARepeatedRequestAgain() async throws {
        try await withServer { h in
            await h.server.setHonoursIdempotencyKey(false)
            let key = [("Idempotency-Key", "store-a:21")]
            for _ in 0 ..< 2 {
                let changed = try await h.send(.PATCH, "/catalog/notes/3", body: #"{"priority":1}"#, headers: Self.json + key)
                #expect(changed.status == 200)
                #expect(changed.header("Idempotent-Replayed") == nil)
            }
            let created = try await h.send(.POST, "/catalog/notes", body: #"{"title":"water the plants"}"#, headers: Self.json + key)
            #expect(created.status == 201)
            #expect(await h.server.appliedWrites.map { "\($0.method) \($0.path) \($0.key ?? "-")" }
                        == ["PATCH /catalog/notes/3 store-a:21", "PATCH /catalog/notes/3 store-a:21", "POST /catalog/notes store-a:21"])
            #expect(await h.server.appliedPerNote == [3: 2, 4: 1])
            #expect(await h.server.notes[3] == #"{"id":3,"title":"write the report","done":false,"priority":1,"version":3}"#)
            // Kept across a reset, until switched back: then the key is honoured again.
            await h.server.resetNotes()
            await h.server.setHonoursIdempotencyKey(true)
            for _ in 0 ..< 2 { _ = try await h.send(.PATCH, "/catalog/notes/3", body: #"{"priority":1}"#, headers: Self.json + key) }
            #expect(await h.server.appliedPerNote == [3: 1])
        }
    }

    @Test func aRepeatedIdempotencyKeyGetsTheStoredAnswerAndAppliesNothing() async throws {
        try await withServer { h in
            let key = [("Idempotency-Key", "store-a:17")]
            let first = try await h.send(.POST, "/catalog/notes", body: #"{"title":"water the plants"}"#, headers: Self.json + key)
            let again = try await h.send(.POST, "/catalog/notes", body: #"{"title":"water the plants"}"#, headers: Self.json + key)
            #expect(first.status == 201)
            #expect(again.status == 201)
            #expect(again.body == first.body)
            #expect(again.header("Idempotent-Replayed") == "true")
            #expect(first.header("Idempotent-Replayed") == nil)
            #expect(await h.server.appliedWrites == [AppliedWrite(method: "POST", path: "/catalog/notes", key: "store-a:17", status: 201)])
            #expect(await h.server.notes.count == 4)
            // The same key for another request is refused, and applies nothing.
            let reused = try await h.send(.POST, "/catalog/notes", body: #"{"title":"feed the cat"}"#, headers: Self.json + key)
            #expect(reused.status == 422)
            #expect(await h.server.notes.count == 4)
        }
    }

    @Test func badWritesAreRefusedNamingTheField() async throws {
        try await withServer { h in
            let cases: [(String, Int, String)] = [
                (#"{"title":"x","colour":"red"}"#, 422, "colour: not a field of a note (title, done, priority)"),
                (#"{"title":"x","priority":"2"}"#, 422, "priority: an integer from 1 to 5"),
                (#"{"title":"x","priority":9}"#, 422, "priority: an integer from 1 to 5"),
                (#"{"title":"x","done":1}"#, 422, "done: true or false"),
                (#"{"done":true}"#, 422, "title: required"),
                (#"{"title":"buy milk"}"#, 409, #"note 1 is already titled "buy milk": titles are unique"#),
                ("[1]", 400, #"the body must be a JSON object, e.g. {"title":"buy bread"}"#),
            ]
            for (body, status, message) in cases {
                let answer = try await h.send(.POST, "/catalog/notes", body: body, headers: Self.json)
                #expect(answer.status == status, "\(body)")
                #expect(answer.object["error"] as? String == message, "\(body)")
            }
            #expect(await h.server.appliedWrites.isEmpty)
            #expect(await h.server.notes.count == 3)
        }
    }

    @Test func dropAfterWriteAppliesTheWriteAndSendsNoAnswer() async throws {
        try await withServer { h in
            await h.server.setFaults(try FaultSpec.parse("drop-after-write@catalog/notes"))
            await #expect(throws: (any Error).self) {
                _ = try await h.send(.POST, "/catalog/notes", body: #"{"title":"lost answer"}"#,
                                     headers: Self.json + [("Idempotency-Key", "store-a:1")])
            }
            await h.server.clearFaults()
            #expect(await h.server.notes[4] == #"{"id":4,"title":"lost answer","done":false,"priority":3,"version":1}"#)
            // The retry with the same key is answered from the stored answer: still one note 4.
            let retried = try await h.send(.POST, "/catalog/notes", body: #"{"title":"lost answer"}"#,
                                           headers: Self.json + [("Idempotency-Key", "store-a:1")])
            #expect(retried.status == 201)
            #expect(retried.header("Idempotent-Replayed") == "true")
            #expect(await h.server.appliedWrites.count == 1)
            #expect(await h.server.notes.count == 4)
            #expect(FaultKind.dropAfterWrite.description == "drop-after-write")
        }
    }
}
