import FetchlogCore
import Foundation
import Hummingbird

/// The offline writes' routes (issue 26 through the API): `GET /api/pending`, and the
/// actions `POST|PATCH|PUT|DELETE /api/items/…`, `POST /api/push`,
/// `POST /api/pending/{id}/retry|discard`, each answered by the CLI's own command.
extension APIResponder {
    func pending() throws -> Response {
        Self.response(try content.answers.pending(content.store.snapshot.state), contentType: "application/json; charset=utf-8")
    }

    func write(_ action: WriteAction) async throws -> Response {
        Self.response(try await content.answers.write(action), contentType: "application/json; charset=utf-8")
    }

    /// The item's fields, from a body that is one JSON object (`{"title": "buy bread"}`).
    func itemFields(_ request: Request) async throws -> [(String, JSONValue)] {
        let example = "{\"title\": \"buy bread\"}"
        guard let json = try await actionBody(request, example: example) else {
            throw APIError.badRequest("the body must be the item's fields as one JSON object: \(example)")
        }
        guard case .object(let members) = json else { throw APIError.badRequest("the body must be one JSON object of fields: \(example)") }
        return members
    }

    /// `{"force": true}` or no body (false).
    func retryForce(_ request: Request) async throws -> Bool {
        let example = "{\"force\": true}"
        guard let json = try await actionBody(request, example: example) else { return false }
        guard case .object(let members) = json else { throw APIError.badRequest("the body must be a JSON object: \(example)") }
        if let unknown = members.first(where: { $0.0 != "force" }) {
            throw APIError.badRequest("the body has '\(unknown.0.prefix(40))': a retry takes force")
        }
        guard let force = json["force"], !force.isNull else { return false }
        guard case .bool(let value) = force else { throw APIError.badRequest("force must be true or false: \(example)") }
        return value
    }

    /// A mutation's id from the path.
    static func mutationID(_ text: String) throws -> UInt64 {
        guard let id = UInt64(text), id > 0 else {
            throw APIError.badRequest("'\(text.prefix(40))' is not a mutation id: give the id GET /api/pending lists (a whole number from 1)")
        }
        return id
    }

    /// An action's JSON body, nil when there is none. A body must be sent as
    /// application/json: a form or a text/plain POST from another page (sent without a
    /// preflight) stops here, as for `POST /api/fetch`.
    func actionBody(_ request: Request, example: String) async throws -> JSONValue? {
        var request = request
        let body: ByteBuffer
        do { body = try await request.collectBody(upTo: Self.maxBodyBytes) } catch {
            throw APIError(status: .contentTooLarge, message: "the body is larger than \(Self.maxBodyBytes) bytes: send \(example)")
        }
        let bytes = Array(body.readableBytesView)
        if bytes.isEmpty { return nil }
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            throw APIError(status: .unsupportedMediaType, message: "send the body as Content-Type: application/json, not \(type ?? "no type"): \(example)")
        }
        do { return try JSONValue.parse(bytes: bytes) } catch {
            throw APIError.badRequest("the body is not JSON (\(error)): send \(example)")
        }
    }
}
