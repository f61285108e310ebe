import FetchlogCore
import Foundation
import Hummingbird

/// A refused request: its status and a message that says what happened and what to do,
/// sent as `{"error": message}` (what the CLI prints on stderr for the same mistake).
package struct APIError: Error {
    let status: HTTPResponse.Status
    let message: String
    var headers: HTTPFields = [:]

    static func badRequest(_ message: String) -> APIError { APIError(status: .badRequest, message: message) }
    static func notFound(_ message: String) -> APIError { APIError(status: .notFound, message: message) }

    var response: Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        let body = JSONValue.object([("error", .string(message))]).canonicalText() + "\n"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
