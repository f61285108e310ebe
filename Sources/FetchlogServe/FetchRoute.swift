import FetchlogCore
import Foundation
import Hummingbird

/// `POST /api/fetch`: a fetch through the store, as `fetch … --format json` runs it.
extension APIResponder {
    static let fetchMembers = ["source", "resource", "values", "pages"]

    func fetch(_ request: Request) async throws -> Response {
        // A JSON content type cannot be sent cross-site without a preflight this server
        // never answers: a form or a text/plain POST from another page stops here.
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            throw APIError(status: .unsupportedMediaType, message: "send the fetch as Content-Type: application/json, not \(type ?? "no type"): {\"source\": S, \"resource\": R}")
        }
        var request = request
        let body: ByteBuffer
        do { body = try await request.collectBody(upTo: Self.maxBodyBytes) } catch {
            throw APIError(status: .contentTooLarge, message: "the body is larger than \(Self.maxBodyBytes) bytes: a fetch is {\"source\": S, \"resource\": R}")
        }
        let words = try Self.fetchWords(Array(body.readableBytesView))
        let answer = try await content.answers.fetch(words)
        var response = Self.response(answer.text, contentType: "application/json; charset=utf-8")
        response.headers[Self.exitHeader] = String(answer.exit)
        if let message = answer.message { response.headers[Self.noticeHeader] = message }
        return response
    }

    /// The words of `fetch` from the body `{"source": S, "resource": R, "values": [V…],
    /// "pages": P}`. The words follow `--`, so none is read as an option: a body cannot
    /// reach a flag (`--retain`) the API does not offer.
    static func fetchWords(_ bytes: [UInt8]) throws -> [String] {
        let example = "{\"source\": \"brastlewark\", \"resource\": \"census\"}"
        let json: JSONValue
        do { json = try JSONValue.parse(bytes: bytes) } catch {
            throw APIError.badRequest("the body is not JSON (\(error)): send \(example)")
        }
        guard case .object(let members) = json else { throw APIError.badRequest("the body must be a JSON object: \(example)") }
        if let unknown = members.first(where: { !fetchMembers.contains($0.0) }) {
            throw APIError.badRequest("the body has '\(unknown.0.prefix(40))': a fetch takes \(fetchMembers.joined(separator: ", "))")
        }
        func string(_ name: String) throws -> String? {
            guard let value = json[name], !value.isNull else { return nil }
            guard let text = value.stringValue else { throw APIError.badRequest("\(name) must be a string: \(example)") }
            return text
        }
        guard let source = try string("source"), !source.isEmpty else { throw APIError.badRequest("the body needs a source: \(example)") }
        var positional = [source]
        if let resource = try string("resource") { positional.append(resource) }
        if let values = json["values"], !values.isNull {
            guard let list = values.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw APIError.badRequest("values must be an array of strings")
            }
            positional += list.compactMap(\.stringValue)
        }
        var options: [String] = []
        if let pages = try string("pages") { options += ["--pages", pages] }
        return options + ["--"] + positional
    }
}
