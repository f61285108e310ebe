import FetchlogCore
import Foundation
import Hummingbird

/// A refused request: its status and a message that says what happened and what to do,
/// sent as `{"error": message, "exit": N}`: the message is what the CLI prints on stderr for
/// the same mistake, `exit` the status the CLI ends with for it (README: 1 the command
/// failed, 64 a usage error …), so a script reads the API's refusals as it reads the CLI's.
package struct APIError: Error {
    let status: HTTPResponse.Status
    let message: String
    let exit: Int32
    var headers: HTTPFields = [:]
    /// More members of the error object (what the CLI prints on stdout beside the error:
    /// a compacted view's `view`, `seq`, `horizon` and `compacted`).
    var details: [(String, JSONValue)] = []

    init(status: HTTPResponse.Status, message: String, exit: Int32? = nil) {
        self.status = status
        self.message = message
        self.exit = exit ?? Self.exitStatus(for: status)
    }

    /// For the doors outside this module (the CLI's answers to the API's questions).
    package init(code: Int, message: String, exit: Int32, details: [(String, JSONValue)] = [], notice: String? = nil) {
        self.init(status: HTTPResponse.Status(code: code), message: message, exit: exit)
        self.details = details
        if let notice { headers[APIResponder.noticeHeader] = notice }
    }

    static func badRequest(_ message: String) -> APIError { APIError(status: .badRequest, message: message) }
    static func notFound(_ message: String) -> APIError { APIError(status: .notFound, message: message) }

    /// What the CLI ends with for the same kind of mistake: a request it would not have
    /// parsed (bad parameters, a method or token it would refuse) is a usage error (64);
    /// something asked for that is not there, or that failed, is a failed command (1).
    static func exitStatus(for status: HTTPResponse.Status) -> Int32 {
        switch status.code {
        case 404, 409, 410, 500...599: 1
        default: 64
        }
    }

    var json: JSONValue {
        .object([("error", .string(message)), ("exit", .number(Int(exit)))] + details)
    }

    var response: Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        let body = json.canonicalText() + "\n"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
